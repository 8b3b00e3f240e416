package hdf5

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// craft builds a file of version 2 object headers; msgs(addrs) gives each
// header's messages from the addresses of all headers (header 0 is the
// root).
func craft(t *testing.T, n int, msgs func(addrs []uint64) [][]wmsg) []byte {
	t.Helper()
	return craftWith(t, superblockSize, superblockV2, n, msgs)
}

// superblockV2 is the superblock Encode writes.
func superblockV2(root, eof uint64) []byte {
	var sb buf
	sb.bytes([]byte(signature))
	sb.bytes([]byte{2, 8, 8, 0})
	sb.u64(0)
	sb.u64(undef)
	sb.u64(eof)
	sb.u64(root)
	sb.u32(lookup3(sb))
	return sb
}

// craftWith is craft with a superblock of sbSize bytes made by sb.
func craftWith(t *testing.T, sbSize int, sb func(root, eof uint64) []byte, n int, msgs func(addrs []uint64) [][]wmsg) []byte {
	t.Helper()
	addrs := make([]uint64, n)
	var hdrs [][]byte
	for pass := 0; pass < 2; pass++ {
		hdrs = hdrs[:0]
		pos := align8(uint64(sbSize))
		for i, m := range msgs(addrs) {
			h, err := encodeObjectHeader(m)
			if err != nil {
				t.Fatal(err)
			}
			hdrs = append(hdrs, h)
			addrs[i] = pos
			pos = align8(pos + uint64(len(h)))
		}
	}
	end := addrs[n-1] + uint64(len(hdrs[n-1]))
	out := make([]byte, end)
	copy(out, sb(addrs[0], end))
	for i, h := range hdrs {
		copy(out[addrs[i]:], h)
	}
	return out
}

func groupMsgs(links ...[]byte) []wmsg {
	m := []wmsg{{msgLinkInfo, 0, encodeLinkInfo(len(links))}, {msgGroupInfo, 0, []byte{0, 0}}}
	for _, l := range links {
		m = append(m, wmsg{msgLink, 0, l})
	}
	return m
}

func decodeBytes(b []byte, lim Limits) (*Group, error) {
	return Decode(bytes.NewReader(b), int64(len(b)), lim)
}

// TestCycleRefused: a group that links to its own ancestor is an error,
// not an endless walk.
func TestCycleRefused(t *testing.T) {
	b := craft(t, 2, func(a []uint64) [][]wmsg {
		return [][]wmsg{
			groupMsgs(encodeLink("child", 0, a[1])),
			groupMsgs(encodeLink("back", 0, a[0])),
		}
	})
	_, err := decodeBytes(b, Limits{})
	if err == nil || !strings.Contains(err.Error(), "/child/back") || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("error %v", err)
	}
}

// TestFanOutBounded: links that reuse one group at every level make an
// exponential tree; MaxObjects stops it.
func TestFanOutBounded(t *testing.T) {
	const levels = 40
	b := craft(t, levels, func(a []uint64) [][]wmsg {
		var hs [][]wmsg
		for i := 0; i < levels; i++ {
			if i == levels-1 {
				hs = append(hs, groupMsgs())
				continue
			}
			hs = append(hs, groupMsgs(encodeLink("x", 0, a[i+1]), encodeLink("y", 1, a[i+1])))
		}
		return hs
	})
	_, err := decodeBytes(b, Limits{MaxObjects: 1000})
	if err == nil || !strings.Contains(err.Error(), "MaxObjects") {
		t.Fatalf("error %v", err)
	}
}

// TestShapeBomb: a dataset declaring far more data than the file holds
// (unwritten, fill-valued) is refused before allocating.
func TestShapeBomb(t *testing.T) {
	var lay buf
	lay.bytes([]byte{3, 1})
	lay.u64(undef)
	lay.u64(1 << 40)
	dt, _ := encodeDatatype([]float64{}, false)
	b := craft(t, 2, func(a []uint64) [][]wmsg {
		return [][]wmsg{
			groupMsgs(encodeLink("bomb", 0, a[1])),
			{{msgDataspace, 0, encodeDataspace([]int{1 << 20, 1 << 17})}, {msgDatatype, 1, dt}, {msgLayout, 0, lay}},
		}
	})
	_, err := decodeBytes(b, Limits{})
	if err == nil || !strings.Contains(err.Error(), "/bomb") || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("error %v", err)
	}
}

// TestMaxBytes: a real file decodes within a generous limit and fails
// with a limit error under a small one.
func TestMaxBytes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "new_style.h5"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeBytes(b, Limits{MaxBytes: 1 << 22}); err != nil {
		t.Fatal(err)
	}
	_, err = decodeBytes(b, Limits{MaxBytes: 4096})
	if err == nil || !strings.Contains(err.Error(), "MaxBytes") {
		t.Fatalf("error %v", err)
	}
}

// TestRefusedStorage: external storage and virtual layouts are refused
// with the dataset's path.
func TestRefusedStorage(t *testing.T) {
	dt, _ := encodeDatatype([]float32{}, false)
	var lay buf
	lay.bytes([]byte{3, 1})
	lay.u64(undef)
	lay.u64(4)
	for _, c := range []struct {
		extra []wmsg
		want  string
	}{
		{[]wmsg{{msgExternal, 0, []byte{1, 0, 0, 0}}, {msgLayout, 0, lay}}, "external storage"},
		{[]wmsg{{msgLayout, 0, []byte{4, 3, 0}}}, "virtual"},
	} {
		b := craft(t, 2, func(a []uint64) [][]wmsg {
			return [][]wmsg{
				groupMsgs(encodeLink("w", 0, a[1])),
				append([]wmsg{{msgDataspace, 0, encodeDataspace([]int{1})}, {msgDatatype, 1, dt}}, c.extra...),
			}
		})
		_, err := decodeBytes(b, Limits{})
		if err == nil || !strings.Contains(err.Error(), "hdf5: /w: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestChecksumChecked: a flipped bit in a version 2 object header is
// reported as a checksum mismatch.
func TestChecksumChecked(t *testing.T) {
	var b bytes.Buffer
	if err := Encode(&b, &Group{Groups: []*Group{{Name: "layers"}}}); err != nil {
		t.Fatal(err)
	}
	raw := b.Bytes()
	i := bytes.Index(raw, []byte("layers"))
	raw[i] ^= 1
	_, err := decodeBytes(raw, Limits{})
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("error %v", err)
	}
}

func TestNotHDF5(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("PK\x03\x04 a zip file"), bytes.Repeat([]byte{0}, 5000)} {
		if _, err := decodeBytes(b, Limits{}); err == nil {
			t.Errorf("%q: no error", b[:min(len(b), 8)])
		}
	}
}

// TestHardLinksShared: two hard links to one dataset both appear, with
// the same value, and the object is decoded once.
func TestHardLinksShared(t *testing.T) {
	var lay buf
	lay.bytes([]byte{3, 0})
	lay.u16(8)
	lay.bytes([]byte{1, 0, 0, 0, 2, 0, 0, 0})
	dt, _ := encodeDatatype([]int32{}, false)
	b := craft(t, 2, func(a []uint64) [][]wmsg {
		return [][]wmsg{
			groupMsgs(encodeLink("b", 0, a[1]), encodeLink("a", 1, a[1])),
			{{msgDataspace, 0, encodeDataspace([]int{2})}, {msgDatatype, 1, dt}, {msgLayout, 0, lay}},
		}
	})
	g, err := decodeBytes(b, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Datasets) != 2 || g.Datasets[0].Name != "b" || g.Datasets[1].Name != "a" {
		t.Fatalf("datasets %+v", g.Datasets)
	}
	for _, d := range g.Datasets {
		if v := d.Value.([]int32); len(v) != 2 || v[0] != 1 || v[1] != 2 {
			t.Errorf("%s = %v", d.Name, v)
		}
	}
}
