package keras

import (
	"testing"

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
			compareLayerWithKeras(t, l, tc.kerasLayerCase, func(tr *ops.Trace, x ops.Tensor) {
				if tc.Mask != nil {
					layers.SetMask(x, tr.Constant(ops.Shape{s[0], s[1]}, tc.Mask))
				}
			})
		})
	}
}
