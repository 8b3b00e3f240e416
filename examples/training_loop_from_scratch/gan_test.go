package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/internal/racetest"
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
// generator's gradients, their Adam updates) and the live heap the
// garbage collector finds during it, which with GOGC=100 is half the heap
// the process reaches. The generator's last layer, a 7x7 convolution over
// 128 channels of 64 28x28 images, once kept its 1.26 GB im2col panel
// each call: 5.9 GB allocated for the step. What a step allocates now
// (about 1050 MB, most of it garbage at once) is mostly the transposed
// convolutions' column matrices (26 and 103 MB a call) and the panels the
// tape keeps for the gradients; activations and weights are tens of MB.
// The live heap was about 680 MB while every eager model call's trace
// kept its scratch arena (a column matrix) until the step ended; eager
// ops now drop it after they run (ops/eager.go), for about 490 MB, at the
// price of about 240 MB more allocated (each op's scratch is its own).
func TestGANStepAllocations(t *testing.T) {
	racetest.Skip(t, "an allocation budget, which the race detector's shadow memory changes")
	defer func(n int) { *ganSteps = n }(*ganSteps)
	*ganSteps = 1
	train := datasets.Pair{X: digits(64, 1)}
	test := datasets.Pair{X: digits(64, 2)}
	dir := t.TempDir()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	live := watchLiveHeap()
	if err := gan(context.Background(), train, test, dir); err != nil {
		t.Fatal(err)
	}
	maxLive := live() >> 20
	runtime.ReadMemStats(&m1)
	alloc := (m1.TotalAlloc - m0.TotalAlloc) >> 20
	t.Logf("one GAN step allocates %d MB; the largest live heap a collection found was %d MB", alloc, maxLive)
	const limit, liveLimit = 1536, 600
	if alloc > limit {
		t.Errorf("one GAN step allocates %d MB, want at most %d", alloc, limit)
	}
	if maxLive > liveLimit {
		t.Errorf("a collection during one GAN step found %d MB live, want at most %d", maxLive, liveLimit)
	}
	if _, err := os.Stat(filepath.Join(dir, "generated_img_0.png")); err != nil {
		t.Errorf("no image in -save-dir: %v", err)
	}
}

// watchLiveHeap samples the live heap the last garbage collection marked
// (runtime/metrics /gc/heap/live:bytes) every millisecond until the
// function it returns is called, which returns the largest value seen. A
// sample missed under load can only make it smaller than the truth, so a
// bound on it fails only when a collection did find that much live.
func watchLiveHeap() func() uint64 {
	var stop atomic.Bool
	var most uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for !stop.Load() {
			metrics.Read(s)
			most = max(most, s[0].Value.Uint64())
			time.Sleep(time.Millisecond)
		}
		metrics.Read(s)
		most = max(most, s[0].Value.Uint64())
	}()
	return func() uint64 {
		stop.Store(true)
		<-done
		return most
	}
}
