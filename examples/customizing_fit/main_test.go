package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMNIST writes a small MNIST-format dataset (gzipped idx files) of
// random bright rectangles.
func fakeMNIST(t *testing.T, dir string, nTrain, nTest int) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 3))
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
	for _, set := range []struct {
		prefix string
		n      int
	}{{"train", nTrain}, {"t10k", nTest}} {
		imgs := make([]byte, set.n*784)
		labels := make([]byte, set.n)
		for i := 0; i < set.n; i++ {
			y0, x0 := r.IntN(20), r.IntN(20)
			for y := y0; y < y0+8; y++ {
				for x := x0; x < x0+8; x++ {
					imgs[i*784+y*28+x] = 255
				}
			}
		}
		write(set.prefix+"-images-idx3-ubyte.gz", 2051, []uint32{uint32(set.n), 28, 28}, imgs)
		write(set.prefix+"-labels-idx1-ubyte.gz", 2049, []uint32{uint32(set.n)}, labels)
	}
}

// TestRunBriefly runs the guide's sections before the GAN (which
// TestGANDrawsFromItsSeedGenerator runs) and checks that each logs what
// the guide's logs.
func TestRunBriefly(t *testing.T) {
	var out bytes.Buffer
	s := settings{seed: 1, verbose: 2, out: &out}
	for _, part := range parts[:len(parts)-1] {
		if err := part(s); err != nil {
			t.Fatal(err)
		}
	}
	text := out.String()
	sections := strings.Split(text, "## ")[1:]
	if len(sections) != 4 {
		t.Fatalf("%d sections, want 4:\n%s", len(sections), text)
	}
	for i, want := range [][]string{
		{"A first simple example", "Epoch 3/3", "loss:", "mae:"},
		{"Going lower-level", "Epoch 5/5", "loss:", "mae:"},
		{"Supporting sample_weight", "Epoch 3/3", "loss:", "mae:"},
		{"Providing your own evaluation step", "loss:", "mae:"},
	} {
		for _, w := range want {
			if !strings.Contains(sections[i], w) {
				t.Errorf("section %q lacks %q:\n%s", strings.SplitN(sections[i], "\n", 2)[0], w, sections[i])
			}
		}
	}
}

// TestGANDrawsFromItsSeedGenerator trains the GAN on 2 batches of
// generated digits: it logs the guide's d_loss and g_loss; each step
// draws three times from the seed generator (two latent batches, the
// label noise), so its state counts 3 per batch; the losses are finite.
func TestGANDrawsFromItsSeedGenerator(t *testing.T) {
	dir := t.TempDir()
	fakeMNIST(t, dir, 70, 10)
	var out bytes.Buffer
	gan, hist, err := trainGAN(settings{dataDir: dir, seed: 2, ganBatches: 2, verbose: 2, out: &out})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Wrapping up: an end-to-end GAN example", "Epoch 1/1", "d_loss:", "g_loss:"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the GAN's output lacks %q:\n%s", w, out.String())
		}
	}
	if got := gan.seedGenerator.State().Numpy(); got[0] != 1337 || got[1] != 6 {
		t.Errorf("seed generator state %v after 2 steps, want [1337 6]", got)
	}
	for _, name := range []string{"d_loss", "g_loss"} {
		v := hist.History[name]
		if len(v) != 1 || math.IsNaN(v[0]) || math.IsInf(v[0], 0) || v[0] <= 0 {
			t.Errorf("%s = %v", name, v)
		}
	}
}
