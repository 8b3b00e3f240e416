package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// writeDigits writes a small MNIST-format folder: n images of a few
// blurred blobs, and labels.
func writeDigits(t *testing.T, dir string, prefix string, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(9, 9))
	img := make([]byte, n*784)
	for i := range n {
		cx, cy := 6+r.IntN(16), 6+r.IntN(16)
		for y := range 28 {
			for x := range 28 {
				if d := (x-cx)*(x-cx) + (y-cy)*(y-cy); d < 20 {
					img[i*784+y*28+x] = byte(255 - d*10)
				}
			}
		}
	}
	write := func(name string, magic uint32, dims []uint32, data []byte) {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		binary.Write(zw, binary.BigEndian, magic)
		for _, d := range dims {
			binary.Write(zw, binary.BigEndian, d)
		}
		zw.Write(data)
		zw.Close()
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(prefix+"-images-idx3-ubyte.gz", 0x803, []uint32{uint32(n), 28, 28}, img)
	write(prefix+"-labels-idx1-ubyte.gz", 0x801, []uint32{uint32(n)}, make([]byte, n))
}

// The guide's VAE trains on MNIST-format data: 10 weights, all tracked
// from the layers' fields, and a loss that falls.
func TestVAETrains(t *testing.T) {
	dir := t.TempDir()
	writeDigits(t, dir, "train", 512)
	writeDigits(t, dir, "t10k", 64)
	v, err := NewVariationalAutoEncoder(784, 64, 32)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(v.TrainableVariables()); n != 10 {
		t.Errorf("%d trainable variables, want 10 (Keras: vae.trainable_weights)", n)
	}
	first, err := run(dir, 1, 64, 0, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	last, err := run(dir, 4, 64, 0, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !(last < first) {
		t.Errorf("loss after 4 epochs %v, after 1 %v", last, first)
	}
}
