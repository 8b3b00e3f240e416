package keras

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// kerasRecurrentCase is one case of layers/testdata/keras/recurrent.json,
// written by tools/keras_reference/recurrent_vectors.py.
type kerasRecurrentCase struct {
	kerasLayerCase
	Mask   []float32
	States []struct {
		Shape []int
		Value []float32
	}
}

// TestRecurrentLayersMatchKeras rebuilds each recurrent layer (and
// Bidirectional, TimeDistributed, RepeatVector, Masking) from Keras' own
// config through LayerFromConfig, gives it Keras' weights, applies Keras'
// timestep mask when the case has one, and compares the output, the final
// states and the gradients of sum(y*dy) with Keras' to 1e-5 (relative,
// absolute below magnitude 1). The rebuilt layer's config must be read
// back to the same layer.
func TestRecurrentLayersMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasRecurrentCase](t, "layers/testdata/keras/recurrent.json")
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
			tr := ops.NewTrace(false, 0, 1)
			xv := ops.NewVariable("x", s, tc.X, true)
			x := tr.Read(xv)
			if tc.Mask != nil {
				layers.SetMask(x, tr.Constant(s[:2], tc.Mask))
			}
			var y ops.Tensor
			var states []ops.Tensor
			if sc, ok := l.(interface {
				CallWithStates(ops.Tensor, []ops.Tensor, bool) (ops.Tensor, []ops.Tensor)
			}); ok {
				y, states = sc.CallWithStates(x, nil, false)
			} else {
				y = l.Call([]ops.Tensor{x}, false)
			}
			if !y.Shape().Equal(ops.Shape(tc.YShape)) {
				t.Fatalf("output shape %v, Keras %v", y.Shape(), tc.YShape)
			}
			loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false)
			vars := append([]*ops.Variable{xv}, l.TrainableWeights()...)
			grads, err := ops.Gradients(loss, vars)
			if err != nil {
				t.Fatal(err)
			}
			outs := append([]ops.Tensor{y}, grads...)
			if len(tc.States) > 0 {
				if len(states) != len(tc.States) {
					t.Fatalf("%d states, Keras %d", len(states), len(tc.States))
				}
				outs = append(outs, states...)
			}
			p, err := engine.Compile(tr, outs)
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
			if len(tc.Dweights) != len(grads)-1 {
				t.Fatalf("%d trainable weights, Keras %d", len(grads)-1, len(tc.Dweights))
			}
			for i, g := range tc.Dweights {
				check("d"+vars[i+1].Name(), vals[i+2].Data, g)
			}
			for i, st := range tc.States {
				check("state", vals[1+len(grads)+i].Data, st.Value)
			}
			t.Logf("worst relative difference from Keras %.3g", worst)

			// The config round trip: our config rebuilds an equal config.
			cfg := jsonRoundTrip(t, l.GetConfig())
			l2, err := LayerFromConfig(l.ClassName(), cfg)
			if err != nil {
				t.Fatalf("from our own config: %v", err)
			}
			a, _ := json.Marshal(l.GetConfig())
			b, _ := json.Marshal(l2.GetConfig())
			if string(a) != string(b) {
				t.Errorf("config round trip:\n%s\n%s", a, b)
			}
		})
	}
}

func jsonRoundTrip(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Summary's parameter counts equal Keras': LSTM 4*(u*(f+u)+u), GRU with
// reset_after 3*(u*(f+u)+2u), SimpleRNN u*(f+u)+u, Bidirectional twice
// its layer, TimeDistributed(Dense) f*u+u, computed here by hand.
func TestRecurrentSummaryCounts(t *testing.T) {
	layers.ClearSession()
	m, err := NewSequential(
		layers.NewLSTM(16, layers.WithInputShape(10, 8), layers.WithReturnSequences(true)),
		layers.NewGRU(12, layers.WithReturnSequences(true)),
		layers.NewBidirectional(layers.NewSimpleRNN(5, layers.WithReturnSequences(true))),
		layers.NewTimeDistributed(layers.NewDense(4)),
		layers.NewLSTM(6),
		layers.NewRepeatVector(3),
		layers.NewGRU(7, layers.WithResetAfter(false)),
	)
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.SummaryString()
	if err != nil {
		t.Fatal(err)
	}
	lstm := func(u, f int) int { return 4 * (u*(f+u) + u) }
	counts := []int{
		lstm(16, 8),
		3 * (12*(16+12) + 2*12),
		2 * (5*(12+5) + 5),
		10*4 + 4,
		lstm(6, 4),
		0,
		3 * (7*(6+7) + 7),
	}
	total := 0
	lines := strings.Split(s, "\n")
	for i, l := range m.Layers() {
		total += counts[i]
		found := false
		for _, line := range lines {
			if strings.Contains(line, l.Name()+" (") && strings.HasSuffix(strings.TrimSpace(line), " "+strconv.Itoa(counts[i])) {
				found = true
			}
		}
		if !found {
			t.Errorf("layer %s: no summary line ending in %d parameters:\n%s", l.Name(), counts[i], s)
		}
	}
	want := "Total params: " + withCommas(total)
	if !strings.Contains(s, want) {
		t.Errorf("summary lacks %q:\n%s", want, s)
	}
}

func withCommas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// A model of every recurrent class survives Save and LoadModel: the
// loaded model predicts what the saved one did (masks included).
func TestRecurrentModelSaveLoad(t *testing.T) {
	layers.ClearSession()
	layers.SetRandomSeed(3)
	in := layers.Input([]int{6})
	e := layers.Apply(layers.NewEmbedding(9, 4, layers.WithMaskZero(true)), in)
	h := layers.Apply(layers.NewBidirectional(layers.NewLSTM(3, layers.WithReturnSequences(true)), layers.WithMergeMode("sum")), e)
	h = layers.Apply(layers.NewGRU(4, layers.WithReturnSequences(true), layers.WithGoBackwards(true)), h)
	h = layers.Apply(layers.NewTimeDistributed(layers.NewDense(2)), h)
	h = layers.Apply(layers.NewSimpleRNN(3), h)
	h = layers.Apply(layers.NewRepeatVector(2), h)
	h = layers.Apply(layers.NewRNN(layers.NewLSTMCell(2), layers.WithReturnSequences(true)), h)
	out := layers.Apply(layers.NewMasking(), h)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	ids := []float32{1, 2, 3, 0, 0, 0, 4, 5, 6, 7, 8, 1, 3, 0, 0, 0, 0, 0}
	x := tensor.New(tensor.WithShape(3, 6), tensor.WithBacking(ids))
	want, err := m.Predict(x, PredictConfig{Verbose: VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rnn.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	m2, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m2.Predict(x, PredictConfig{Verbose: VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	w, g := want.Data().([]float32), got.Data().([]float32)
	for i := range w {
		if w[i] != g[i] {
			t.Fatalf("loaded model predicts %v, saved one %v", g, w)
		}
	}
}

// Configs gokeras cannot honour are errors naming the key, never panics.
func TestRecurrentConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		class string
		cfg   map[string]any
		want  string
	}{
		{"Bidirectional", map[string]any{"layer": "lstm"}, "layer"},
		{"Bidirectional", map[string]any{"layer": map[string]any{"class_name": "LSTM", "config": map[string]any{"units": 2}}, "merge_mode": nil}, "merge_mode"},
		{"Bidirectional", map[string]any{"layer": map[string]any{"class_name": "Dense", "config": map[string]any{"units": 2}}}, "recurrent"},
		{"RNN", map[string]any{"cell": map[string]any{"class_name": "MinimalRNNCell", "config": map[string]any{}}}, "MinimalRNNCell"},
		{"RNN", map[string]any{"cell": []any{}}, "cell"},
		{"GRU", map[string]any{"units": 2, "implementation": 3}, "implementation"},
		{"LSTM", map[string]any{"units": -1}, "units"},
		{"LSTM", map[string]any{"units": 2, "recurrent_constraint": map[string]any{"class_name": "Clip"}}, "recurrent_constraint"},
		{"TimeDistributed", map[string]any{"layer": map[string]any{"class_name": "Nope", "config": map[string]any{}}}, "Nope"},
		{"RepeatVector", map[string]any{"n": 0}, "positive"},
	} {
		_, err := LayerFromConfig(tc.class, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one containing %q", tc.class, tc.cfg, err, tc.want)
		}
	}
}
