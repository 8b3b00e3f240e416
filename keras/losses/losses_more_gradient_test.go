package losses_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/ops"
)

// TestLossesMoreGradients checks the gradient of each loss of issue 17
// with respect to the predictions by central differences, away from the
// kinks (Huber's delta, the hinges' margin, clipping bounds).
func TestLossesMoreGradients(t *testing.T) {
	shape := ops.Shape{3, 4}
	wave := func(f func(i int) float64) []float64 {
		v := make([]float64, shape.Size())
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	reg := wave(func(i int) float64 { return math.Sin(float64(i)*1.3) * 2 })
	pos := wave(func(i int) float64 { return 0.3 + 0.5*(1+math.Sin(float64(i)*0.7)) })
	prob := wave(func(i int) float64 { return 0.15 + 0.7*(0.5+0.5*math.Cos(float64(i)*1.1)) })
	labels := func(v []float64) []float32 {
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	binary := labels(wave(func(i int) float64 { return float64(i % 2) }))
	onehot := labels(wave(func(i int) float64 {
		if i%4 == (i/4)%4 {
			return 1
		}
		return 0
	}))
	real := labels(wave(func(i int) float64 { return math.Cos(float64(i)) * 1.5 }))
	bigReal := labels(wave(func(i int) float64 { return 10 + 5*math.Cos(float64(i)) }))
	counts := labels(wave(func(i int) float64 { return float64(i % 3) }))
	for _, c := range []struct {
		name string
		l    losses.Loss
		y    []float32
		x    []float64
	}{
		{"Huber", losses.NewHuber(losses.Delta(0.8)), real, reg},
		{"LogCosh", losses.NewLogCosh(), real, reg},
		{"KLDivergence", losses.NewKLDivergence(), labels(prob), prob},
		{"Poisson", losses.NewPoisson(), counts, pos},
		{"Hinge", losses.NewHinge(), binary, reg},
		{"SquaredHinge", losses.NewSquaredHinge(), binary, reg},
		{"CategoricalHinge", losses.NewCategoricalHinge(), onehot, reg},
		{"CosineSimilarity", losses.NewCosineSimilarity(), real, reg},
		{"MeanSquaredLogarithmicError", losses.NewMeanSquaredLogarithmicError(), counts, pos},
		// large labels keep the loss small, so that float32 differences of it resolve the gradient
		{"MeanAbsolutePercentageError", losses.NewMeanAbsolutePercentageError(), bigReal, wave(func(i int) float64 { return 0.8*float64(bigReal[i]) + math.Sin(float64(i)) })},
		{"CategoricalFocalCrossentropy", losses.NewCategoricalFocalCrossentropy(losses.Gamma(1.5)), onehot, prob},
		{"CategoricalFocalCrossentropyLogits", losses.NewCategoricalFocalCrossentropy(losses.FromLogits(true), losses.LabelSmoothing(0.1)), onehot, reg},
		{"BinaryFocalCrossentropy", losses.NewBinaryFocalCrossentropy(losses.Gamma(2.5)), binary, prob},
		{"BinaryFocalCrossentropyLogits", losses.NewBinaryFocalCrossentropy(losses.FromLogits(true), losses.ApplyClassBalancing(true)), binary, reg},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLossGrad(t, shape, c.x, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
				return c.l.Call(tr.Constant(shape, c.y), x)
			})
		})
	}
}

func TestLossesMoreOptions(t *testing.T) {
	for name, f := range map[string]func(){
		"negative delta":      func() { losses.NewHuber(losses.Delta(-1)) },
		"negative gamma":      func() { losses.NewBinaryFocalCrossentropy(losses.Gamma(-1)) },
		"delta on LogCosh":    func() { losses.NewLogCosh(losses.Delta(1)) },
		"alpha on Hinge":      func() { losses.NewHinge(losses.Alpha(1)) },
		"balancing on CFCE":   func() { losses.NewCategoricalFocalCrossentropy(losses.ApplyClassBalancing(true)) },
		"label smoothing 2":   func() { losses.NewCategoricalFocalCrossentropy(losses.LabelSmoothing(2)) },
		"from_logits on KLD":  func() { losses.NewKLDivergence(losses.FromLogits(true)) },
		"axis on Huber":       func() { losses.NewHuber(losses.Axis(0)) },
		"reduction bad value": func() { losses.NewPoisson(losses.Reduction("mean")) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				} else if _, ok := r.(*ops.Error); !ok {
					t.Errorf("%s: panic %v is not an *ops.Error", name, r)
				}
			}()
			f()
		}()
	}
	if _, err := losses.ConfigOptions(map[string]any{"delta": "big"}); err == nil {
		t.Error("ConfigOptions with a string delta: no error")
	}
	if _, err := losses.ConfigOptions(map[string]any{"axis": 1.5}); err == nil {
		t.Error("ConfigOptions with axis 1.5: no error")
	}
	for _, name := range []string{"huber", "Huber", "logcosh", "kld", "msle", "mape", "categorical_focal_crossentropy", "BinaryFocalCrossentropy", "squared_hinge"} {
		if _, err := losses.Get(name); err != nil {
			t.Errorf("Get(%q): %v", name, err)
		}
	}
}
