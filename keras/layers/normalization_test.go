package layers

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestNormalizationErrors: bad settings and bad Adapt data give errors.
func TestNormalizationErrors(t *testing.T) {
	if l := NewNormalization(NormalizationSettings{Mean: []float64{1}}); l.Err() == nil {
		t.Error("mean without variance accepted")
	}
	if l := NewNormalization(NormalizationSettings{Mean: []float64{1}, Variance: []float64{-1}}); l.Err() == nil {
		t.Error("negative variance accepted")
	}
	l := NewNormalization(NormalizationSettings{Mean: []float64{1}, Variance: []float64{2}})
	if err := l.Adapt(ops.Shape{2}, []float32{1, 2}); err == nil {
		t.Error("Adapt with a fixed mean accepted")
	}
	l = NewNormalization(NormalizationSettings{})
	if err := l.Adapt(ops.Shape{2, 3}, []float32{1, 2}); err == nil {
		t.Error("Adapt with too few values accepted")
	}
	if err := l.Adapt(ops.Shape{2, 2}, []float32{1, 2, 3, 5}); err != nil {
		t.Fatal(err)
	}
	// Per column: mean (1+3)/2 = 2, (2+5)/2 = 3.5; biased variances 1, 2.25.
	if m, v := l.Mean.Numpy(), l.Variance.Numpy(); m[0] != 2 || m[1] != 3.5 || v[0] != 1 || v[1] != 2.25 {
		t.Errorf("mean %v variance %v, want [2 3.5] [1 2.25]", m, v)
	}
	if err := l.Adapt(ops.Shape{1, 3}, []float32{1, 2, 3}); err == nil {
		t.Error("Adapt with another number of channels accepted")
	}
	if _, err := OutputShape(NewNormalization(NormalizationSettings{Axis: []int{0}}), []ops.Shape{{-1, 3}}); err == nil {
		t.Error("keeping the batch axis accepted")
	}
	if _, err := OutputShape(NewNormalization(NormalizationSettings{Axis: []int{5}}), []ops.Shape{{-1, 3}}); err == nil {
		t.Error("axis 5 of a rank-2 input accepted")
	}
}

// TestNormalizationIntegerWeights: count is the weight Keras keeps as an
// int64, which the weight files' writers and readers ask for; a layer with
// a given mean and variance has none.
func TestNormalizationIntegerWeights(t *testing.T) {
	l := NewNormalization(NormalizationSettings{})
	if _, err := OutputShape(l, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	if iw := l.IntegerWeights(); len(iw) != 1 || iw[0] != l.Count {
		t.Errorf("IntegerWeights %v, want [count]", iw)
	}
	fixed := NewNormalization(NormalizationSettings{Mean: []float64{1}, Variance: []float64{2}})
	if _, err := OutputShape(fixed, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	if iw := fixed.IntegerWeights(); iw != nil {
		t.Errorf("a fixed mean and variance: IntegerWeights %v", iw)
	}
}
