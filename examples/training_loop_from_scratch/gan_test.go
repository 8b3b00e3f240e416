package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// digits returns n random 28x28 uint8 images, as LoadMNIST's X.
func digits(n int, seed uint64) *tensor.Dense {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]uint8, n*28*28)
	for i := range b {
		b[i] = uint8(r.IntN(256))
	}
	return tensor.New(tensor.WithShape(n, 28, 28), tensor.WithBacking(b))
}

// TestGANStepAllocations bounds what one step of the guide's DCGAN
// allocates (batch 64; both models built, the discriminator's and the
// generator's gradients, their Adam updates). The generator's last layer,
// a 7x7 convolution over 128 channels of 64 28x28 images, once kept its
// 1.26 GB im2col panel each call: 5.9 GB for the step. What a step
// allocates now (about 800 MB, most of it garbage at once) is mostly the
// transposed convolutions' column matrices (26 and 103 MB a call: each
// eager call traces afresh, with scratch of its own) and the panels the
// tape keeps for the gradients; activations and weights are tens of MB.
func TestGANStepAllocations(t *testing.T) {
	defer func(n int) { *ganSteps = n }(*ganSteps)
	*ganSteps = 1
	train := datasets.Pair{X: digits(64, 1)}
	test := datasets.Pair{X: digits(64, 2)}
	dir := t.TempDir()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if err := gan(context.Background(), train, test, dir); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	alloc := (m1.TotalAlloc - m0.TotalAlloc) >> 20
	t.Logf("one GAN step allocates %d MB", alloc)
	const limit = 1024
	if alloc > limit && !raceEnabled {
		t.Errorf("one GAN step allocates %d MB, want at most %d", alloc, limit)
	}
	if _, err := os.Stat(filepath.Join(dir, "generated_img_0.png")); err != nil {
		t.Errorf("no image in -save-dir: %v", err)
	}
}
