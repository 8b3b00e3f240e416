package keras

import (
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// kerasLayerCase is one case of testdata/keras/layers.json, written by
// tools/keras_reference/gen_vectors.py: a Keras layer's get_config(), its
// weights, and in inference its output and the gradients of sum(y*dy).
type kerasLayerCase struct {
	Name      string
	ClassName string `json:"class_name"`
	Config    map[string]any
	Shape     []int
	X         []float32
	Weights   []struct {
		Name  string
		Shape []int
		Value []float32
	}
	YShape   []int `json:"y_shape"`
	Y, Dy    []float32
	Dx       []float32
	Dweights [][]float32
}

// TestLayersMatchKeras makes each layer from Keras' own config (through
// LayerFromConfig, as loading a .keras file does), gives it Keras' weights
// and compares the output and the gradients with Keras' to 1e-5 (relative,
// absolute below magnitude 1).
func TestLayersMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasLayerCase](t, "testdata/keras/layers.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			l, err := LayerFromConfig(tc.ClassName, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			s := ops.Shape(tc.Shape)
			in := append(ops.Shape{-1}, s[1:]...)
			if _, err := layers.OutputShape(l, []ops.Shape{in}); err != nil {
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
			compareLayerWithKeras(t, l, tc, nil)
		})
	}
}

// compareLayerWithKeras calls l, which holds Keras' weights, on tc's input
// (prepare, when not nil, may attach a mask to it first) and compares the
// output and the gradients with respect to the input and the trainable
// weights with Keras' to 1e-5 (relative, absolute below magnitude 1).
func compareLayerWithKeras(t *testing.T, l layers.Layer, tc kerasLayerCase, prepare func(tr *ops.Trace, x ops.Tensor)) {
	t.Helper()
	s := ops.Shape(tc.Shape)
	tr := ops.NewTrace(false, 0, 1)
	xv := ops.NewVariable("x", s, tc.X, true)
	x := tr.Read(xv)
	if prepare != nil {
		prepare(tr, x)
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
}
