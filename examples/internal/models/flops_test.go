package models

import (
	"math"
	"testing"
)

// TestStepFLOPsSeedCNN checks the count against a hand count of the seed
// CNN at batch 64 (docs/performance.md: 0.99 GFLOP).
func TestStepFLOPsSeedCNN(t *testing.T) {
	m, err := MNISTCNN()
	if err != nil {
		t.Fatal(err)
	}
	gs, err := StepGEMMs(m, 64)
	if err != nil {
		t.Fatal(err)
	}
	want := []GEMM{
		{M: 64 * 26 * 26, N: 32, K: 3 * 3 * 1, Passes: 2}, // no input gradient: nothing trains before it
		{M: 64 * 11 * 11, N: 64, K: 3 * 3 * 32, Passes: 3},
		{M: 64, N: 128, K: 5 * 5 * 64, Passes: 3},
		{M: 64, N: 10, K: 128, Passes: 3},
	}
	if len(gs) != len(want) {
		t.Fatalf("%d GEMMs %+v, want %d", len(gs), gs, len(want))
	}
	for i, g := range gs {
		g.Layer = ""
		if g != want[i] {
			t.Errorf("GEMM %d (%s) = %+v, want %+v", i, gs[i].Layer, g, want[i])
		}
	}
	// 2·(43264·32·9)·2 + 2·(7744·64·288)·3 + 2·(64·128·1600)·3 + 2·(64·10·128)·3
	const hand = 49_840_128 + 856_424_448 + 78_643_200 + 491_520
	got, err := StepFLOPs(m, 64)
	if err != nil || got != hand {
		t.Errorf("StepFLOPs(seed CNN, 64) = %v, %v; want %d", got, err, hand)
	}
	// Linear in the batch.
	if got16, _ := StepFLOPs(m, 16); got16 != hand/4 {
		t.Errorf("StepFLOPs(seed CNN, 16) = %v, want %d", got16, hand/4)
	}
	if _, err := StepFLOPs(m, 0); err == nil {
		t.Error("batch 0 counted")
	}
}

// TestStepFLOPsWidth: at width 2 the second convolution has 4x the
// multiply-adds (both its channel counts double), the first and the first
// dense layer 2x, the last dense layer the same.
func TestStepFLOPsWidth(t *testing.T) {
	one, _ := MNISTCNNWidth(1)
	two, err := MNISTCNNWidth(2)
	if err != nil {
		t.Fatal(err)
	}
	g1, _ := StepGEMMs(one, 64)
	g2, err := StepGEMMs(two, 64)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []float64{2, 4, 2, 1} {
		if got := g2[i].FLOPs() / g1[i].FLOPs(); got != r {
			t.Errorf("GEMM %d: width 2 / width 1 = %v, want %v", i, got, r)
		}
	}
}

// TestStepFLOPsResNet: the seed ResNet's im2col count at batch 64 is the
// 10.8 GFLOP of docs/performance.md (17 GEMMs: the stem, 12 3x3 and 3 1x1
// convolutions, the dense layer; the stem without input gradient).
func TestStepFLOPsResNet(t *testing.T) {
	m, err := ResNetSeed()
	if err != nil {
		t.Fatal(err)
	}
	gs, err := StepGEMMs(m, 64)
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 17 {
		t.Fatalf("%d GEMMs, want 17", len(gs))
	}
	for i, g := range gs {
		want := 3
		if i == 0 {
			want = 2
		}
		if g.Passes != want {
			t.Errorf("GEMM %d (%s): %d passes, want %d", i, g.Layer, g.Passes, want)
		}
	}
	if stem := gs[0]; stem.M != 64*16*16 || stem.N != 64 || stem.K != 7*7*3 {
		t.Errorf("stem %+v, want 16384 x 64 x 147", stem)
	}
	got, _ := StepFLOPs(m, 64)
	if math.Abs(got/1e9-10.8) > 0.05 {
		t.Errorf("StepFLOPs(seed ResNet, 64) = %.3f GFLOP, want 10.8", got/1e9)
	}
}
