package hdf5

import (
	"reflect"
	"testing"
)

// superblockV01 is a version 0 or 1 superblock (version 1 adds the
// indexed storage K) whose root symbol table entry names root.
func superblockV01(version byte) func(root, eof uint64) []byte {
	return func(root, eof uint64) []byte {
		var b buf
		b.bytes([]byte(signature))
		b.bytes([]byte{version, 0, 0, 0, 0, 8, 8, 0})
		b.u16(4)  // group leaf node K
		b.u16(16) // group internal node K
		b.u32(0)  // flags
		if version == 1 {
			b.u16(32) // indexed storage K
			b.u16(0)
		}
		b.u64(0)     // base address
		b.u64(undef) // free space
		b.u64(eof)
		b.u64(undef) // driver info
		b.u64(0)     // root entry: link name offset
		b.u64(root)  // object header
		b.u32(0)     // cache type
		b.u32(0)
		b.bytes(make([]byte, 16))
		return b
	}
}

// TestSuperblockVersions: the same objects behind superblocks of versions
// 0, 1 and 2 decode alike (h5py writes 0, 2 and 3; 1 only with a
// non-default chunk B-tree K, which h5py cannot ask for).
func TestSuperblockVersions(t *testing.T) {
	dt, _ := encodeDatatype([]int32{}, false)
	var lay buf
	lay.bytes([]byte{3, 0})
	lay.u16(8)
	lay.bytes([]byte{5, 0, 0, 0, 6, 0, 0, 0})
	msgs := func(a []uint64) [][]wmsg {
		return [][]wmsg{
			groupMsgs(encodeLink("x", 0, a[1])),
			{{msgDataspace, 0, encodeDataspace([]int{2})}, {msgDatatype, 1, dt}, {msgLayout, 0, lay}},
		}
	}
	var trees []*Group
	for _, c := range []struct {
		size int
		sb   func(root, eof uint64) []byte
	}{{superblockSize, superblockV2}, {96, superblockV01(0)}, {100, superblockV01(1)}} {
		g, err := decodeBytes(craftWith(t, c.size, c.sb, 2, msgs), Limits{})
		if err != nil {
			t.Fatalf("superblock of %d bytes: %v", c.size, err)
		}
		trees = append(trees, g)
	}
	if v := trees[0].Dataset("x"); v == nil || !reflect.DeepEqual(v.Value, []int32{5, 6}) {
		t.Fatalf("x = %+v", v)
	}
	for i := 1; i < len(trees); i++ {
		if !reflect.DeepEqual(trees[i], trees[0]) {
			t.Errorf("tree %d differs: %+v", i, trees[i])
		}
	}
}
