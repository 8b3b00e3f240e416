package losses_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/ops"
)

// kerasLossMoreCase is one case of testdata/keras/losses_more.json,
// written by tools/keras_reference/conv_more_vectors.py.
type kerasLossMoreCase struct {
	Name            string
	Loss            string
	Config          map[string]any
	Kwargs          map[string]any // the constructor's arguments
	PredActivation  string         `json:"pred_activation"`
	TrueShape       []int          `json:"true_shape"`
	YTrue           []float32      `json:"y_true"`
	PredShape       []int          `json:"pred_shape"`
	YPred           []float32      `json:"y_pred"`
	PerExampleShape []int          `json:"per_example_shape"`
	PerExample      []float32      `json:"per_example"`
	Reduced         float64
	Grad            []float32
}

// TestLossesMoreMatchKeras builds each loss from Keras' own config
// (ConfigOptions and Get, as loading a compiled model does) and compares
// the per-example losses, the reduced loss and its gradient with respect
// to the predictions with Keras' to 1e-5 (relative, absolute below
// magnitude 1); it also checks that GetConfig reports Keras' keys and
// values.
func TestLossesMoreMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasLossMoreCase](t, "testdata/keras/losses_more.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			cfg := map[string]any{}
			for k, v := range tc.Config {
				cfg[k] = v
			}
			for k, v := range tc.Kwargs {
				cfg[k] = v
			}
			opts, err := losses.ConfigOptions(cfg)
			if err != nil {
				t.Fatal(err)
			}
			reduced, err := losses.Get(tc.Loss, opts...)
			if err != nil {
				t.Fatal(err)
			}
			per, err := losses.Get(tc.Loss, append(opts, losses.Reduction(losses.ReductionNone))...)
			if err != nil {
				t.Fatal(err)
			}
			got := reduced.GetConfig()
			for k, want := range tc.Config {
				if k == "dtype" {
					continue
				}
				g, ok := got[k]
				if !ok {
					t.Errorf("config lacks %q (Keras: %v)", k, want)
					continue
				}
				if wf, isNum := want.(float64); isNum {
					gf, _ := toFloat(g)
					if gf != wf {
						t.Errorf("config %s = %v, Keras %v", k, g, want)
					}
				} else if g != want {
					t.Errorf("config %s = %v, Keras %v", k, g, want)
				}
			}
			tr := ops.NewTrace(true, 0, 1)
			pv := ops.NewVariable("y_pred", ops.Shape(tc.PredShape), tc.YPred, true)
			yt := tr.Constant(ops.Shape(tc.TrueShape), tc.YTrue)
			yp := tr.Read(pv)
			switch tc.PredActivation {
			case "sigmoid":
				yp = ops.Sigmoid(yp)
			case "softmax":
				yp = ops.Softmax(yp)
			case "":
			default:
				t.Fatalf("unknown pred_activation %q", tc.PredActivation)
			}
			l := reduced.Call(yt, yp)
			pe := per.Call(yt, yp)
			grads, err := ops.Gradients(l, []*ops.Variable{pv})
			if err != nil {
				t.Fatal(err)
			}
			p, err := engine.Compile(tr, []ops.Tensor{l, pe, grads[0]})
			if err != nil {
				t.Fatal(err)
			}
			vals, err := p.Run(engine.Single{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !vals[1].Shape.Equal(ops.Shape(tc.PerExampleShape)) {
				t.Errorf("per-example shape %v, Keras %v", vals[1].Shape, tc.PerExampleShape)
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
							t.Errorf("%s[%d] = %v, Keras %v (error %.2g)", what, i, got[i], w, e)
						}
						bad++
					}
				}
			}
			check("per_example", vals[1].Data, tc.PerExample)
			check("loss", vals[0].Data, []float32{float32(tc.Reduced)})
			check("grad", vals[2].Data, tc.Grad)
			t.Logf("worst relative difference from Keras %.3g", worst)
		})
	}
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}
