package hdf5

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oldStyleF4 returns old_style.h5 (superblock 0, version 1 object headers,
// no checksums) and the object header address and the contiguous data
// address of its dataset /numeric/f4le.
func oldStyleF4(t *testing.T) (file []byte, header, data uint64) {
	t.Helper()
	file, err := os.ReadFile(filepath.Join("testdata", "old_style.h5"))
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{r: bytes.NewReader(file), size: uint64(len(file)), budget: 1 << 30, lim: Limits{MaxBytes: 1 << 30, MaxObjects: 1 << 20},
		onPath: map[uint64]bool{}, gheaps: map[uint64]map[uint32][]byte{},
		groups: map[uint64]*Group{}, datasets: map[uint64]*Dataset{}, weight: map[uint64]int{},
		readLeft: 1 << 40, inflateLeft: 1 << 40}
	root, err := d.superblock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.group("/", root); err != nil {
		t.Fatal(err)
	}
	var ds *Dataset
	for a, x := range d.datasets {
		if x.Name == "f4le" {
			header, ds = a, x
		}
	}
	if ds == nil {
		t.Fatal("no dataset f4le in old_style.h5")
	}
	vals := ds.Value.([]float32)
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	// The values may occur more than once; the data is where a layout
	// message (address, 48 bytes) points.
	for off := 0; ; off++ {
		i := bytes.Index(file[off:], raw)
		if i < 0 {
			t.Fatal("f4le's data is not found in the file")
		}
		off += i
		if layoutAt(file, uint64(off)) >= 0 {
			return file, header, uint64(off)
		}
	}
}

// layoutAt is where the contiguous layout of 48 bytes at data is in file,
// if it occurs once, else -1.
func layoutAt(file []byte, data uint64) int {
	var want [16]byte
	binary.LittleEndian.PutUint64(want[:], data)
	binary.LittleEndian.PutUint64(want[8:], 48) // 12 float32
	at := bytes.Index(file, want[:])
	if at < 0 || bytes.Index(file[at+1:], want[:]) >= 0 {
		return -1
	}
	return at
}

// TestLayoutAddressInSuperblock: a contiguous layout whose address points
// into the superblock used to load the superblock's bytes as the weights
// (predictions all NaN); it is an error naming the dataset.
func TestLayoutAddressInSuperblock(t *testing.T) {
	file, _, data := oldStyleF4(t)
	at := layoutAt(file, data)
	for _, addr := range []uint64{0, 8, 40, 90} {
		b := bytes.Clone(file)
		binary.LittleEndian.PutUint64(b[at:], addr)
		_, err := decodeBytes(b, Limits{})
		if err == nil || !strings.Contains(err.Error(), "/numeric/f4le") || !strings.Contains(err.Error(), "superblock") {
			t.Errorf("layout address %d: error %v; want one naming /numeric/f4le and the superblock", addr, err)
		}
	}
	// Right after the superblock and its root entry (96 bytes) is fine
	// for the decoder (garbage, but not the superblock's).
	b := bytes.Clone(file)
	binary.LittleEndian.PutUint64(b[at:], 96)
	if _, err := decodeBytes(b, Limits{}); err != nil && strings.Contains(err.Error(), "superblock") {
		t.Errorf("address 96, past the superblock: %v", err)
	}
}

// TestEmptyV1HeaderRefused: a version 1 object header whose size is 0
// used to drop its dataset silently; it is an error naming the dataset,
// and so is a header of no messages at all.
func TestEmptyV1HeaderRefused(t *testing.T) {
	file, header, _ := oldStyleF4(t)
	b := bytes.Clone(file)
	binary.LittleEndian.PutUint32(b[header+8:], 0) // size 0, messages still counted
	_, err := decodeBytes(b, Limits{})
	if err == nil || !strings.Contains(err.Error(), "/numeric/f4le") || !strings.Contains(err.Error(), "0 bytes") {
		t.Errorf("header of size 0: error %v; want one naming /numeric/f4le and its size", err)
	}
	binary.LittleEndian.PutUint16(b[header+2:], 0) // and no messages
	_, err = decodeBytes(b, Limits{})
	if err == nil || !strings.Contains(err.Error(), "/numeric/f4le") || !strings.Contains(err.Error(), "neither a group, a dataset") {
		t.Errorf("header of no messages: error %v; want one naming /numeric/f4le", err)
	}
}
