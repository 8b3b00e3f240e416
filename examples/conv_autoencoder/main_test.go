package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gorgonia.org/tensor"
)

// writeIDX writes a gzipped idx file: images (n, 28, 28) or labels (n,).
func writeIDX(t *testing.T, path string, magic uint32, dims []uint32, data []byte) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	binary.Write(zw, binary.BigEndian, magic)
	for _, d := range dims {
		binary.Write(zw, binary.BigEndian, d)
	}
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeMNIST writes a small MNIST-format dataset of bright rectangles on
// a dark background.
func fakeMNIST(t *testing.T, dir string, nTrain, nTest int) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, set := range []struct {
		prefix string
		n      int
	}{{"train", nTrain}, {"t10k", nTest}} {
		imgs := make([]byte, set.n*784)
		labels := make([]byte, set.n)
		for i := 0; i < set.n; i++ {
			c := r.IntN(10)
			labels[i] = byte(c)
			y0, x0 := (c/5)*12+2, (c%5)*5+1
			for y := y0; y < y0+8; y++ {
				for x := x0; x < x0+4; x++ {
					imgs[i*784+y*28+x] = 255
				}
			}
		}
		writeIDX(t, filepath.Join(dir, set.prefix+"-images-idx3-ubyte.gz"), 2051, []uint32{uint32(set.n), 28, 28}, imgs)
		writeIDX(t, filepath.Join(dir, set.prefix+"-labels-idx1-ubyte.gz"), 2049, []uint32{uint32(set.n)}, labels)
	}
}

// TestRunBriefly trains for two short epochs on a generated dataset and
// checks the PNG: three rows (noisy, denoised, clean) of the test images.
func TestRunBriefly(t *testing.T) {
	dir := t.TempDir()
	fakeMNIST(t, dir, 256, 40)
	out := filepath.Join(dir, "d.png")
	s := settings{dataset: "mnist", dataDir: dir, out: out, epochs: 2, batchSize: 64, seed: 1, verbose: 2, noiseFactor: 0.4, images: 6}
	if err := run(s); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 6*30+2 || b.Dy() != 3*30+2 {
		t.Errorf("PNG is %dx%d, want %dx%d", b.Dx(), b.Dy(), 6*30+2, 3*30+2)
	}
}

func TestNoiseAndBCE(t *testing.T) {
	x := tensor.New(tensor.WithShape(2, 2, 2, 1), tensor.WithBacking([]float32{0, 0.5, 1, 0.25, 0.75, 0, 1, 0.5}))
	n := noise(x, 0.4, rand.New(rand.NewPCG(1, 1)))
	changed := false
	for i, v := range n.Data().([]float32) {
		if v < 0 || v > 1 {
			t.Errorf("noisy[%d] = %v outside [0, 1]", i, v)
		}
		changed = changed || v != x.Data().([]float32)[i]
	}
	if !changed {
		t.Error("noise changed nothing")
	}
	if z := noise(x, 0, rand.New(rand.NewPCG(1, 1))); !bytes.Equal(f32bytes(z), f32bytes(x)) {
		t.Error("noise factor 0 changed the images")
	}
	// a perfect prediction of binary labels costs about -log(1-1e-7)
	y := tensor.New(tensor.WithShape(2), tensor.WithBacking([]float32{0, 1}))
	if got := bceOf(y, y); got > 1e-6 {
		t.Errorf("bce of a perfect prediction %v", got)
	}
	p := tensor.New(tensor.WithShape(2), tensor.WithBacking([]float32{0.5, 0.5}))
	if got, want := bceOf(p, y), 0.6931471805599453; got < want-1e-6 || got > want+1e-6 {
		t.Errorf("bce of 0.5 = %v, want ln 2", got)
	}
}

func f32bytes(t *tensor.Dense) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, t.Data().([]float32))
	return b.Bytes()
}
