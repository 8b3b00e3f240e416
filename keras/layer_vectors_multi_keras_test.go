package keras

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// kerasMultiInputCase is one case of testdata/keras/layers_multi_input.json,
// written by tools/keras_reference/gen_vectors.py: a Keras layer with
// several inputs, or integer inputs (Embedding), its get_config(), weights,
// and in inference its output and the gradients of sum(y*dy) with respect
// to the float inputs and the trainable weights.
type kerasMultiInputCase struct {
	Name      string
	ClassName string `json:"class_name"`
	Config    map[string]any
	Inputs    []struct {
		Shape   []int
		Integer bool
		X       []float32
	}
	Weights []struct {
		Name  string
		Shape []int
		Value []float32
	}
	YShape   []int `json:"y_shape"`
	Y, Dy    []float32
	Dxs      [][]float32
	Dweights [][]float32
}

// TestMultiInputLayersMatchKeras makes each layer from Keras' config, gives
// it Keras' weights and inputs (integer ids as float32, as gokeras carries
// them) and compares output and gradients with Keras' to 1e-5 (relative,
// absolute below magnitude 1).
func TestMultiInputLayersMatchKeras(t *testing.T) {
	for _, tc := range kerasvectors.Read[kerasMultiInputCase](t, "testdata/keras/layers_multi_input.json") {
		t.Run(tc.Name, func(t *testing.T) {
			l, err := LayerFromConfig(tc.ClassName, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			var shapes []ops.Shape
			for _, in := range tc.Inputs {
				shapes = append(shapes, append(ops.Shape{-1}, in.Shape[1:]...))
			}
			if _, err := layers.OutputShape(l, shapes); err != nil {
				t.Fatal(err)
			}
			ws := l.Weights()
			if len(ws) != len(tc.Weights) {
				t.Fatalf("%d weights, Keras %d", len(ws), len(tc.Weights))
			}
			for i, w := range tc.Weights {
				if !ws[i].Shape().Equal(ops.Shape(w.Shape)) {
					t.Fatalf("weight %d (%s) has shape %v, Keras' %s %v", i, ws[i].Name(), ws[i].Shape(), w.Name, w.Shape)
				}
				ws[i].Assign(w.Value)
			}
			tr := ops.NewTrace(false, 0, 1)
			var xs []ops.Tensor
			var vars []*ops.Variable
			for i, in := range tc.Inputs {
				if in.Integer {
					xs = append(xs, tr.Constant(ops.Shape(in.Shape), in.X))
					continue
				}
				v := ops.NewVariable("x"+string(rune('0'+i)), ops.Shape(in.Shape), in.X, true)
				vars = append(vars, v)
				xs = append(xs, tr.Read(v))
			}
			nx := len(vars)
			y := l.Call(xs, false)
			if !y.Shape().Equal(ops.Shape(tc.YShape)) {
				t.Fatalf("output shape %v, Keras %v", y.Shape(), tc.YShape)
			}
			loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false)
			vars = append(vars, l.TrainableWeights()...)
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
			if len(tc.Dxs) != nx || len(tc.Dweights) != len(vars)-nx {
				t.Fatalf("%d input and %d weight gradients, Keras %d and %d", nx, len(vars)-nx, len(tc.Dxs), len(tc.Dweights))
			}
			for i, g := range tc.Dxs {
				check("d"+vars[i].Name(), vals[1+i].Data, g)
			}
			for i, g := range tc.Dweights {
				check("d"+vars[nx+i].Name(), vals[1+nx+i].Data, g)
			}
			t.Logf("worst relative difference from Keras %.3g", worst)
		})
	}
}
