package layers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestColorAugmentationGradients: the cores of the colour augmentation
// layers, with a fixed transformation (what a training step applies once
// drawn), against central differences of sum(core(x) * R) for a random
// R. layertest's conformance only differences the inference pass, the
// identity for most of these layers. The inputs are pixels with channels
// apart (a tie of the maximum is a kink of the HSV conversion) in [0.1,
// 0.9] of the value range (0, 1); an entry whose differences at two
// step sizes disagree straddles a kink (a clip, the hue's wrap) and is
// skipped, as in layertest. RandomPosterization's output is piecewise
// constant and has no gradient, as in Keras.
func TestColorAugmentationGradients(t *testing.T) {
	const n = 2
	shape := ops.Shape{n, 3, 4, 3}
	unit := [2]float64{0, 1}
	c := func(tr *ops.Trace, s ops.Shape, v ...float32) ops.Tensor { return tr.Constant(s, v) }
	per := ops.Shape{n, 1, 1, 1}
	jitter := NewRandomColorJitter(RandomColorJitterSettings{ValueRange: &unit, BrightnessFactor: []float64{0.1},
		ContrastFactor: []float64{0.3}, SaturationFactor: []float64{0.5}, HueFactor: []float64{0.4}})
	cases := []struct {
		name string
		core func(tr *ops.Trace, x ops.Tensor) ops.Tensor
	}{
		{"RandomGrayscale", func(tr *ops.Trace, x ops.Tensor) ops.Tensor { return grayscaleImages(x, c(tr, per, 1, 0)) }},
		{"RandomHue", func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return hueImages(x, c(tr, ops.Shape{n}, 0.13, -0.21), unit)
		}},
		{"RandomSaturation", func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return saturationImages(x, c(tr, ops.Shape{n}, 0.6, 1.3), unit)
		}},
		{"RandomColorDegeneration", func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return degenerateImages(x, c(tr, per, 0.4, -0.2), unit)
		}},
		{"RandomColorJitter", func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			d := jitterDraws{c(tr, per, 0.02, -0.03), c(tr, per, 0.8, 1.2), c(tr, ops.Shape{n}, 0.7, 1.4), c(tr, ops.Shape{n}, 0.1, -0.15)}
			return jitter.jitterImages(x, &d, nil)
		}},
		{"RandomSharpness", func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return sharpenImages(x, c(tr, ops.Shape{n}, 0.2, 0.7), [2]float64{-10, 10})
		}},
		{"RandomInvert", func(tr *ops.Trace, x ops.Tensor) ops.Tensor { return invertImages(x, c(tr, ops.Shape{n}, 1, 0), unit) }},
		{"Solarization", func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return solarizeImages(x, c(tr, per, 20, 5), c(tr, per, 128, 70), unit)
		}},
		{"AutoContrast", func(_ *ops.Trace, x ops.Tensor) ops.Tensor { return autoContrast(x, unit) }},
	}
	for _, tc := range cases {
		r := rand.New(rand.NewPCG(3, uint64(len(tc.name))))
		data := make([]float32, shape.Size())
		for i := 0; i < len(data); i += 3 { // three different levels a pixel: no ties
			for k, l := range r.Perm(400)[:3] {
				data[i+k] = 0.1 + 0.8*float32(l)/400
			}
		}
		v := ops.NewVariable("x", shape, data, true)
		data = v.Data(0) // the variable's storage, which the differences nudge
		tr := ops.NewTrace(true, 0, 1)
		y := tc.core(tr, tr.Read(v))
		w := make([]float32, y.Shape().Size())
		for i := range w {
			w[i] = r.Float32()*2 - 1
		}
		loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), w)), false)
		g, err := ops.Gradients(loss, []*ops.Variable{v})
		if err != nil || g[0].IsNone() {
			t.Fatalf("%s: no gradient (%v)", tc.name, err)
		}
		p, err := engine.Compile(tr, []ops.Tensor{loss, g[0]})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		outs, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		grad := append([]float32(nil), outs[1].Data...)
		at := func() float64 {
			o, err := p.Run(engine.Single{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return float64(o[0].Data[0])
		}
		diff := func(j int, eps float32) float64 {
			old := data[j]
			data[j] = old + eps
			up := at()
			data[j] = old - eps
			down := at()
			data[j] = old
			return (up - down) / float64(2*eps)
		}
		checked, nonzero := 0, 0
		for j := range data {
			num := diff(j, 1e-3)
			tol := 5e-3 + 5e-3*math.Abs(num)
			if math.Abs(num-diff(j, 3e-3)) > tol {
				continue // a kink within reach
			}
			checked++
			if grad[j] != 0 {
				nonzero++
			}
			if math.Abs(float64(grad[j])-num) > tol {
				t.Errorf("%s: d/dx[%d] = %v, finite differences %v", tc.name, j, grad[j], num)
			}
		}
		if checked < len(data)/2 || nonzero == 0 {
			t.Errorf("%s: %d of %d entries compared, %d non-zero gradients", tc.name, checked, len(data), nonzero)
		}
	}
}
