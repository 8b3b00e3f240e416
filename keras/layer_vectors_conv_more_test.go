package keras

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// TestConvMoreLayersMatchKeras is TestLayersMatchKeras for the layers of
// issue 17 (testdata/keras/conv_more.json, written by
// tools/keras_reference/conv_more_vectors.py): each layer is made from
// Keras' own config through LayerFromConfig (the Lambda, whose config
// holds Python code, as layers.NewLambda of the same function), given
// Keras' weights, and its output and the gradients with respect to the
// input and the weights are compared with Keras' to 1e-5 (relative,
// absolute below magnitude 1).
func TestConvMoreLayersMatchKeras(t *testing.T) {
	type convMoreCase struct {
		kerasLayerCase
		Mask []float32 // a (batch, steps) timestep mask the layer is called with
	}
	cases := kerasvectors.Read[convMoreCase](t, "testdata/keras/conv_more.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var l layers.Layer
			var err error
			if tc.ClassName == "Lambda" {
				l = layers.NewLambda(func(x ops.Tensor) ops.Tensor { return ops.AddScalar(ops.Scale(x, 2), 1) })
			} else if l, err = LayerFromConfig(tc.ClassName, tc.Config); err != nil {
				t.Fatal(err)
			}
			s := ops.Shape(tc.Shape)
			in := append(ops.Shape{-1}, s[1:]...)
			out, err := layers.OutputShape(l, []ops.Shape{in})
			if err != nil {
				t.Fatal(err)
			}
			if want := append(ops.Shape{-1}, tc.YShape[1:]...); !out.Equal(want) {
				t.Errorf("symbolic output shape %v, Keras %v", out, want)
			}
			ws := l.Weights()
			if len(ws) != len(tc.Weights) {
				t.Fatalf("%d weights, Keras %d", len(ws), len(tc.Weights))
			}
			for i, w := range tc.Weights {
				if !ws[i].Shape().Equal(ops.Shape(w.Shape)) {
					t.Fatalf("weight %d (%s) has shape %v, Keras' %s %v", i, ws[i].Name(), ws[i].Shape(), w.Name, w.Shape)
				}
				if err := ws[i].Assign(w.Value); err != nil {
					t.Fatal(err)
				}
			}
			tr := ops.NewTrace(false, 0, 1)
			xv := ops.NewVariable("x", s, tc.X, true)
			x := tr.Read(xv)
			if tc.Mask != nil {
				layers.SetMask(x, tr.Constant(ops.Shape{s[0], s[1]}, tc.Mask))
			}
			y := l.Call([]ops.Tensor{x}, false)
			if !y.Shape().Equal(ops.Shape(tc.YShape)) {
				t.Fatalf("output shape %v, Keras %v", y.Shape(), tc.YShape)
			}
			loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false)
			vars := append([]*ops.Variable{xv}, l.TrainableWeights()...)
			grads, err := ops.Gradients(loss, vars)
			if err != nil {
				t.Fatal(err)
			}
			p, err := engine.Compile(tr, append([]ops.Tensor{y}, grads...))
			if err != nil {
				t.Fatal(err)
			}
			vals, err := p.Run(engine.Single{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			check := func(what string, got, want []float32) {
				t.Helper()
				if len(got) != len(want) {
					t.Fatalf("%s: %d values, Keras %d", what, len(got), len(want))
				}
				bad := 0
				for i := range want {
					w := float64(want[i])
					e := math.Abs(float64(got[i])-w) / math.Max(1, math.Abs(w))
					worst = max(worst, e)
					if !(e <= 1e-5) {
						if bad < 3 {
							t.Errorf("%s[%d] = %v, Keras %v", what, i, got[i], w)
						}
						bad++
					}
				}
			}
			check("y", vals[0].Data, tc.Y)
			check("dx", vals[1].Data, tc.Dx)
			if len(tc.Dweights) != len(vals)-2 {
				t.Fatalf("%d trainable weights, Keras %d", len(vals)-2, len(tc.Dweights))
			}
			for i, g := range tc.Dweights {
				check("d"+vars[i+1].Name(), vals[i+2].Data, g)
			}
			t.Logf("worst relative difference from Keras %.3g", worst)
		})
	}
}
