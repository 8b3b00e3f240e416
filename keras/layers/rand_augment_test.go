package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRandAugmentConformance(t *testing.T) {
	layertest.Run(t, layers.NewRandAugment(layers.RandAugmentSettings{ValueRange: &[2]float64{-3, 3}}), ops.Shape{2, 5, 6, 3}, ops.Shape{2, 5, 6, 3}, 0)
	layertest.Run(t, layers.NewRandAugment(layers.RandAugmentSettings{NumOps: 3, Interpolation: "nearest"}), ops.Shape{5, 6, 1}, ops.Shape{5, 6, 1}, 0)
}

// TestRandAugmentTraining: training changes the batch (two operations of
// strength up to 0.5 on a varied image leave it unchanged only when both
// pick an identity-like draw), and two batches change differently; the
// output stays in the value range (every augmentation clips or resamples
// the input); inference is the identity.
func TestRandAugmentTraining(t *testing.T) {
	s := ops.Shape{8, 6, 7, 3}
	x := make([]float32, s.Size())
	for i := range x {
		x[i] = float32((i*37)%251) + 2
	}
	in := ops.Value{Shape: s, Data: x}
	l := layers.NewRandAugment(layers.RandAugmentSettings{}, layers.WithSeed(4))
	if y := layertest.Forward(t, l, false, in); !equal32(y.Data, x) {
		t.Error("inference changed the input")
	}
	changed := 0
	var prev []float32
	for range 20 {
		y := layertest.Forward(t, l, true, in)
		if !equal32(y.Data, x) {
			changed++
		}
		for i, v := range y.Data {
			if v < 0 || v > 255 {
				t.Fatalf("y[%d] = %v outside the value range", i, v)
			}
		}
		if prev != nil && equal32(prev, y.Data) {
			t.Error("two batches augmented alike")
		}
		prev = y.Data
	}
	if changed < 15 {
		t.Errorf("only %d of 20 batches changed", changed)
	}
}

func TestRandAugmentErrors(t *testing.T) {
	wantErr(t, layers.NewRandAugment(layers.RandAugmentSettings{Factor: &[2]float64{1.5, 2}}, layers.WithName("ra")).Err(), "RandAugment", "ra", "factor")
	wantErr(t, layers.NewRandAugment(layers.RandAugmentSettings{NumOps: -1}).Err(), "RandAugment", "num_ops")
	wantErr(t, layers.NewRandAugment(layers.RandAugmentSettings{ValueRange: &[2]float64{1, 1}}).Err(), "RandAugment", "value_range")
	wantErr(t, layers.NewRandAugment(layers.RandAugmentSettings{Interpolation: "bicubic"}).Err(), "RandAugment", "bicubic")
	wantErr(t, layers.NewRandAugment(layers.RandAugmentSettings{}).Build([]ops.Shape{{-1, 4, 4, 2}}), "RandAugment", "channels")
}
