package metrics_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
)

func TestAccuracy(t *testing.T) {
	m := metrics.NewAccuracy()
	if m.Result() != 0 {
		t.Fatalf("fresh: %v", m.Result())
	}
	update(t, m, val(shp(4), 1, 2, 3, 4), val(shp(4), 1, 2, 0, 4)) // 3 of 4
	near(t, "one update", m.Result(), 0.75, 0)
	update(t, m, val(shp(4, 1), 0, 0, 1, 1), val(shp(4), 0, 1, 1, 1)) // 3 of 4, (N, 1) against (N,)
	update(t, m, val(shp(2), 5, 5), val(shp(2, 1), 4, 4))             // 0 of 2
	near(t, "three updates", m.Result(), 6.0/10, 1e-15)
	// Rows of two elements: the first example is half right.
	update(t, m, val(shp(2, 2), 1, 1, 2, 2), val(shp(2, 2), 1, 0, 2, 2))
	near(t, "rows", m.Result(), (6+1.5)/12, 1e-15)
	m.ResetState()
	if m.Result() != 0 {
		t.Errorf("after reset: %v", m.Result())
	}
	update(t, m, val(shp(1), 3), val(shp(1), 3))
	near(t, "after reset", m.Result(), 1, 0)
}

func TestSparseCategoricalAccuracy(t *testing.T) {
	m := metrics.NewSparseCategoricalAccuracy()
	// argmax rows: 1, 0 (tie between 0 and 1 goes to 0), 2, 0 (all equal).
	preds := val(shp(4, 3), 0.1, 0.8, 0.1, 0.4, 0.4, 0.2, 0, 0, 1, 0.3, 0.3, 0.3)
	update(t, m, val(shp(4), 1, 1, 2, 0), preds) // hit, miss (tie), hit, hit
	near(t, "first", m.Result(), 0.75, 0)
	update(t, m, val(shp(4, 1), 0, 0, 0, 2), preds) // miss, hit, miss, miss
	near(t, "second", m.Result(), 4.0/8, 0)
	// A class id that is not an integer never matches.
	update(t, m, val(shp(1), 1.5), val(shp(1, 2), 0, 1))
	near(t, "fractional label", m.Result(), 4.0/9, 1e-15)

	// Sequences (N, T, C): each example counts the mean over its T
	// positions, and examples weigh the same across updates.
	s := metrics.NewSparseCategoricalAccuracy()
	update(t, s, val(shp(1, 2), 0, 1), val(shp(1, 2, 2), 1, 0, 0, 1))                                     // 1 example, 2 of 2
	update(t, s, val(shp(3, 2), 0, 0, 0, 0, 0, 0), val(shp(3, 2, 2), 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0)) // 3 examples: 0, 0, 1/2
	near(t, "sequences", s.Result(), (1+0+0+0.5)/4, 1e-15)

	// A single row (C,) is one example.
	v := metrics.NewSparseCategoricalAccuracy()
	update(t, v, val(shp(), 2), val(shp(3), 0, 1, 5))
	update(t, v, val(shp(1), 0), val(shp(3), 0, 1, 5))
	near(t, "single rows", v.Result(), 0.5, 0)
}

func TestCategoricalAccuracy(t *testing.T) {
	m := metrics.NewCategoricalAccuracy()
	labels := val(shp(3, 3), 0, 1, 0, 1, 0, 0, 0.2, 0.2, 0.6)
	preds := val(shp(3, 3), 0.2, 0.7, 0.1, 0.5, 0.5, 0, 0.6, 0.2, 0.2) // hit, tie to 0: hit, miss
	update(t, m, labels, preds)
	near(t, "first", m.Result(), 2.0/3, 1e-15)
	update(t, m, val(shp(1, 2), 0.5, 0.5), val(shp(1, 2), 0.9, 0.1)) // both argmax 0
	near(t, "second", m.Result(), 3.0/4, 1e-15)
	m.ResetState()
	update(t, m, val(shp(1, 2), 0, 1), val(shp(1, 2), 0.9, 0.1))
	near(t, "after reset", m.Result(), 0, 0)
}

func TestBinaryAccuracy(t *testing.T) {
	m := metrics.NewBinaryAccuracy()
	// 0.5 is not above the threshold: read as 0.
	update(t, m, val(shp(5, 1), 1, 0, 0, 1, 1), val(shp(5, 1), 0.9, 0.2, 0.5, 0.51, 0.3)) // 4 of 5
	near(t, "first", m.Result(), 0.8, 1e-15)
	update(t, m, val(shp(3), 1, 1, 0), val(shp(3, 1), 0.6, 0.7, 0.8)) // 2 of 3
	near(t, "second", m.Result(), 6.0/8, 1e-15)
	// Two outputs per example.
	update(t, m, val(shp(2, 2), 1, 0, 1, 1), val(shp(2, 2), 0.9, 0.9, 0.7, 0.8)) // 1/2, 1
	near(t, "multi-output", m.Result(), (6+1.5)/10, 1e-15)

	logits := metrics.NewBinaryAccuracy(metrics.Threshold(0))
	update(t, logits, val(shp(4), 1, 0, 1, 0), val(shp(4), 2.5, -1, -0.1, 0))
	near(t, "threshold 0", logits.Result(), 0.75, 0)
}

func TestRegressionMetrics(t *testing.T) {
	mse, mae := metrics.NewMeanSquaredError(), metrics.NewMeanAbsoluteError()
	batches := [][2]ops.Value{
		{val(shp(2, 2), 1, 2, 3, 4), val(shp(2, 2), 1.5, 2, 1, 4)},
		{val(shp(1, 2), 0, 0), val(shp(1, 2), -1, 3)},
		{val(shp(3), 1, 2, 3), val(shp(3, 1), 2, 2, 0)},
	}
	for _, b := range batches {
		update(t, mse, b[0], b[1])
		update(t, mae, b[0], b[1])
	}
	// Per-example means: mse (0.125, 2), (5), (1, 0, 9); mae (0.25, 1), (2), (1, 0, 3).
	near(t, "mse", mse.Result(), (0.125+2+5+1+0+9)/6, 1e-12)
	near(t, "mae", mae.Result(), (0.25+1+2+1+0+3)/6, 1e-12)
}

func TestCrossentropyMetrics(t *testing.T) {
	lse := func(z ...float64) float64 {
		var s float64
		for _, v := range z {
			s += math.Exp(v)
		}
		return math.Log(s)
	}
	t.Run("Sparse", func(t *testing.T) {
		logits := metrics.NewSparseCategoricalCrossentropy(metrics.FromLogits(true))
		update(t, logits, val(shp(2), 0, 2), val(shp(2, 3), 1, 2, 3, 0, 0, 100))
		update(t, logits, val(shp(1, 1), 1), val(shp(1, 3), -100, 100, 0))
		near(t, "logits", logits.Result(), (lse(1, 2, 3)-1+lse(0, 0, 100)-100+0)/3, 1e-9)

		probs := metrics.NewSparseCategoricalCrossentropy()
		update(t, probs, val(shp(2), 1, 0), val(shp(2, 2), 0.25, 0.75, 0, 0.6))
		// Not a class id of 2 classes.
		if err := probs.Update(val(shp(1), 2), val(shp(1, 2), 0.5, 0.5)); err == nil {
			t.Error("label 2 of 2 classes: no error")
		}
		update(t, probs, val(shp(1), 2), val(shp(1, 3), 0.2, 0.2, 0.4))
		// -ln 0.75, the clipped 0 (-ln 1e-7 renormalised by 0.6), ln 2.
		want := (-math.Log(0.75) - math.Log(1e-7/(0.6+1e-7)) + math.Ln2) / 3
		near(t, "probabilities", probs.Result(), want, 1e-6) // float32 inputs
	})
	t.Run("Categorical", func(t *testing.T) {
		logits := metrics.NewCategoricalCrossentropy(metrics.FromLogits(true), metrics.LabelSmoothing(0.3))
		update(t, logits, val(shp(1, 2), 0, 1), val(shp(1, 2), 1, -1))
		// Labels (0.15, 0.85).
		l := lse(1, -1)
		near(t, "smoothed logits", logits.Result(), 0.15*(l-1)+0.85*(l+1), 1e-9)

		probs := metrics.NewCategoricalCrossentropy()
		update(t, probs, val(shp(2, 3), 0, 1, 0, 0, 0, 1), val(shp(2, 3), 0.1, 0.6, 0.3, 0.6, 0.6, 0.8))
		// The second row is normalised: 0.8/2.
		near(t, "probabilities", probs.Result(), (-math.Log(0.6)-math.Log(0.4))/2, 1e-6)
	})
	t.Run("Binary", func(t *testing.T) {
		probs := metrics.NewBinaryCrossentropy()
		update(t, probs, val(shp(2, 2), 0, 1, 1, 1), val(shp(2, 2), 0.2, 0.7, 0.9, 0.6))
		g := func(p float64) float64 { return -math.Log(p + 1e-7) }
		near(t, "probabilities", probs.Result(), (g(0.8)+g(0.7)+g(0.9)+g(0.6))/4, 1e-6)

		logits := metrics.NewBinaryCrossentropy(metrics.FromLogits(true), metrics.LabelSmoothing(0.2))
		update(t, logits, val(shp(2), 1, 0), val(shp(2, 1), 100, -100))
		// Labels 0.9 and 0.1: 0.1*100 each.
		near(t, "extreme smoothed logits", logits.Result(), 10, 1e-9)
		if r := logits.Result(); math.IsInf(r, 0) || math.IsNaN(r) {
			t.Errorf("not finite: %v", r)
		}
	})
}
