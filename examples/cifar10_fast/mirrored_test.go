package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// TestMirroredTwoReplicasEqualOne: the recipe's model and optimizer under
// MirroredStrategy with 2 replicas end two steps on the same global
// batches with the weights of 1 replica. distribute's equivalence tests
// cover synchronized batch normalization with plain momentum SGD; this
// adds what the recipe has on top: Nesterov momentum, a schedule, weight
// decay, EMA (whose averages Fit writes into the weights at the end),
// label smoothing on one-hot labels, GELU and global max pooling. The
// augmentation layers are left out: each replica draws its own random
// translations, as in TensorFlow, so they differ by design.
func TestMirroredTwoReplicasEqualOne(t *testing.T) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, 32*32*32*3)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	ids := make([]float32, 32)
	for i := range ids {
		ids[i] = float32(r.IntN(10))
	}
	xs := tensor.New(tensor.WithShape(32, 32, 32, 3), tensor.WithBacking(x))
	ys, err := utils.ToCategorical(tensor.New(tensor.WithShape(32), tensor.WithBacking(ids)), 10)
	if err != nil {
		t.Fatal(err)
	}
	recipe := Recipe{Widths: []int{8, 16, 16, 16}, NoAugment: true, LearningRate: 0.05, WarmupFraction: 0.5,
		Momentum: 0.9, WeightDecay: 5e-3, LabelSmoothing: 0.2, EMA: 0.6}
	train := func(n int) (*keras.Model, [][]float32) {
		devs := make([]string, n)
		for i := range devs {
			devs[i] = fmt.Sprintf("/cpu:%d", i)
		}
		s, err := distribute.NewMirroredStrategy(devs...)
		if err != nil {
			t.Fatal(err)
		}
		layers.SetRandomSeed(7)
		exit := s.Scope()
		m, err := recipe.Compile(4) // warm-up 2 steps, then the cosine
		exit()
		if err != nil {
			t.Fatal(err)
		}
		var init [][]float32
		for _, v := range m.Weights() {
			init = append(init, append([]float32(nil), v.Data(0)...))
		}
		if _, err := m.Fit(xs, ys, keras.FitConfig{Epochs: 1, BatchSize: 16, NoShuffle: true, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatalf("%d replicas: %v", n, err)
		}
		return m, init
	}
	one, init := train(1)
	two, _ := train(2)
	w1, w2 := one.Weights(), two.Weights()
	if len(w1) != len(w2) {
		t.Fatalf("%d weights with 2 replicas, %d with 1", len(w2), len(w1))
	}
	var moved float64
	for i, v := range w2 {
		a, b := v.Data(0), w1[i].Data(0)
		for r := 1; r < v.Replicas(); r++ {
			for j, c := range v.Data(r) {
				if math.Float32bits(c) != math.Float32bits(a[j]) {
					t.Fatalf("%s: replica %d differs from replica 0", v.Name(), r)
				}
			}
		}
		var d, s float64
		for j := range a {
			d = math.Max(d, math.Abs(float64(a[j])-float64(b[j])))
			s = math.Max(s, math.Abs(float64(b[j])))
		}
		// Two replicas sum the gradients in another order: float32
		// rounding, far below a wrongly averaged loss or a missed
		// all-reduce (off by the scale of the update itself).
		if d > 1e-5*math.Max(s, 1) {
			t.Errorf("%s: 2 replicas differ from 1 by %.3g (largest |w| %.3g)", v.Name(), d, s)
		}
		for j := range b {
			moved = math.Max(moved, math.Abs(float64(b[j])-float64(init[i][j])))
		}
	}
	// Two steps must have moved the weights for the comparison to mean
	// anything.
	if moved < 1e-3 {
		t.Errorf("training moved no weight by more than %.3g", moved)
	}
}
