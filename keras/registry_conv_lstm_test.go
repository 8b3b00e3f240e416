package keras

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// kerasConvLSTMCase is one case of layers/testdata/keras/conv_lstm.json
// (tools/keras_reference/conv_lstm_vectors.py).
type kerasConvLSTMCase struct {
	Name      string
	ClassName string `json:"class_name"`
	Config    map[string]any
	XShape    []int `json:"shape"`
	X         []float32
	Mask      []float32
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

// TestConvLSTMMatchesKeras rebuilds each ConvLSTM1D/ConvLSTM2D of the
// vectors from Keras' config, gives it Keras' weights (and the timestep
// mask), and compares the output and the gradients of sum(y*dy) with
// respect to the input and every weight with Keras' within 1e-5; the
// config reads back to the same layer and has Keras' keys and values.
func TestConvLSTMMatchesKeras(t *testing.T) {
	for _, tc := range kerasvectors.Read[kerasConvLSTMCase](t, "layers/testdata/keras/conv_lstm.json") {
		t.Run(tc.Name, func(t *testing.T) {
			l, err := LayerFromConfig(tc.ClassName, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := layers.OutputShape(l, []ops.Shape{append(ops.Shape{-1}, tc.XShape[1:]...)}); err != nil {
				t.Fatal(err)
			}
			ws := l.Weights()
			if len(ws) != len(tc.Weights) {
				t.Fatalf("%d weights, Keras %d", len(ws), len(tc.Weights))
			}
			for i, w := range tc.Weights {
				base := ws[i].Name()[strings.LastIndex(ws[i].Name(), "/"):]
				if !ws[i].Shape().Equal(ops.Shape(w.Shape)) || !strings.HasSuffix(w.Name, base) {
					t.Fatalf("weight %d is %s %v, Keras' %s %v", i, ws[i].Name(), ws[i].Shape(), w.Name, w.Shape)
				}
				ws[i].Assign(w.Value)
			}
			tr := ops.NewTrace(false, 0, 1)
			xv := ops.NewVariable("x", ops.Shape(tc.XShape), tc.X, true)
			x := ops.Scale(tr.Read(xv), 1)
			if tc.Mask != nil {
				layers.SetMask(x, tr.Constant(ops.Shape(tc.XShape[:2]), tc.Mask))
			}
			y := l.Call([]ops.Tensor{x}, false)
			if !y.Shape().Equal(ops.Shape(tc.YShape)) {
				t.Fatalf("output %v, Keras %v", y.Shape(), tc.YShape)
			}
			all := append([]*ops.Variable{xv}, l.TrainableWeights()...)
			grads, err := ops.Gradients(ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false), all)
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
			worst := closeToKeras(t, "y", vals[0].Data, tc.Y, 1e-5)
			worst = max(worst, closeToKeras(t, "dx", vals[1].Data, tc.Dx, 1e-5))
			for i, g := range tc.Dweights {
				worst = max(worst, closeToKeras(t, "d"+ws[i].Name(), vals[2+i].Data, g, 1e-5))
			}
			t.Logf("worst relative difference from Keras %.3g", worst)

			b1, _ := json.Marshal(l.GetConfig())
			l2, err := LayerFromConfig(l.ClassName(), jsonRoundTrip(t, l.GetConfig()))
			if err != nil {
				t.Fatalf("from our own config: %v", err)
			}
			if b2, _ := json.Marshal(l2.GetConfig()); string(b1) != string(b2) {
				t.Errorf("config round trip:\n%s\n%s", b1, b2)
			}
			var ours map[string]any
			_ = json.Unmarshal(b1, &ours)
			for k, v := range tc.Config {
				switch {
				case k == "dtype":
				case strings.HasSuffix(k, "_initializer"): // Keras adds module and registered_name
					if ours[k].(map[string]any)["class_name"] != v.(map[string]any)["class_name"] {
						t.Errorf("config %s = %v, Keras %v", k, ours[k], v)
					}
				default:
					if g, w := gqaJSON(ours[k]), gqaJSON(v); g != w {
						t.Errorf("config %s = %s, Keras %s", k, g, w)
					}
				}
			}
		})
	}
}

// TestConvLSTMModelMatchesKeras loads the .keras file Keras saved with
// two ConvLSTM2D and a ConvLSTM1D, predicts Keras' outputs, and saves and
// reloads it to the same predictions.
func TestConvLSTMModelMatchesKeras(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/conv_lstm_model.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		File        string
		VideoShape  []int `json:"video_shape"`
		Video       []float32
		SignalShape []int `json:"signal_shape"`
		Signal      []float32
		PredShape   []int `json:"pred_shape"`
		Predictions []float32
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel("testdata/keras/" + ref.File)
	if err != nil {
		t.Fatal(err)
	}
	var classes []string
	for _, l := range m.Layers() {
		if strings.HasPrefix(l.ClassName(), "ConvLSTM") {
			classes = append(classes, l.ClassName())
		}
	}
	slices.Sort(classes)
	if !slices.Equal(classes, []string{"ConvLSTM1D", "ConvLSTM2D", "ConvLSTM2D"}) {
		t.Fatalf("the loaded model has %v", classes)
	}
	checkPredictsLikeKeras(t, m, []kerasInput{{ref.VideoShape, ref.Video}, {ref.SignalShape, ref.Signal}}, ref.PredShape, ref.Predictions)
}

// TestConvLSTMGradients checks the gradients of ConvLSTM2D and ConvLSTM1D
// with respect to their input and weights by finite differences
// (layertest), with their weight counts and config round trips.
func TestConvLSTMGradients(t *testing.T) {
	params := func(k, c, f int, bias bool) int {
		n := k*c*4*f + k*f*4*f
		if bias {
			n += 4 * f
		}
		return n
	}
	layertest.Run(t, layers.NewConvLSTM2D(2, 3), ops.Shape{2, 3, 5, 4, 2}, ops.Shape{2, 3, 2, 2}, params(9, 2, 2, true))
	layertest.Run(t, layers.NewConvLSTM2D(2, 2, layers.WithPadding("same"), layers.WithReturnSequences(true), layers.WithUseBias(false),
		layers.WithGoBackwards(true)), ops.Shape{2, 3, 3, 4, 1}, ops.Shape{2, 3, 3, 4, 2}, params(4, 1, 2, false))
	layertest.Run(t, layers.NewConvLSTM1D(3, 2, layers.WithStrides(2), layers.WithReturnSequences(true)),
		ops.Shape{2, 3, 6, 2}, ops.Shape{2, 3, 3, 3}, params(2, 2, 3, true))
}

func TestConvLSTMErrors(t *testing.T) {
	for _, c := range []struct {
		l    *layers.ConvLSTM
		want string
	}{
		{layers.NewConvLSTM2D(0, 3), "filters"},
		{layers.NewConvLSTM2D(2, 3, layers.WithStateful(true)), "stateful"},
		{layers.NewConvLSTM2D(2, 3, layers.WithStrides(2), layers.WithDilationRate(2)), "dilation"},
		{layers.NewConvLSTM2D(2, 3, layers.WithInputDropout(1)), "dropout"},
		{layers.NewConvLSTM1D(2, 3, layers.WithKernelSize(2, 2)), "kernel_size"},
		{layers.NewConvLSTM2D(2, 3, layers.WithRecurrentActivation("nope")), "recurrent_activation"},
	} {
		if err := c.l.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %s", c.l.Name(), err, c.want)
		}
	}
	l := layers.NewConvLSTM2D(2, 5, layers.WithName("clstm_bad"))
	if err := layers.Apply(l, layers.Input([]int{3, 4, 4, 2})).Err(); err == nil || !strings.Contains(err.Error(), "clstm_bad") {
		t.Errorf("a 5x5 kernel over 4x4 images: %v", err)
	}
	l = layers.NewConvLSTM2D(2, 3, layers.WithName("clstm_rank"))
	if err := layers.Apply(l, layers.Input([]int{3, 4, 2})).Err(); err == nil || !strings.Contains(err.Error(), "rank 5") {
		t.Errorf("a rank-4 input: %v", err)
	}
}
