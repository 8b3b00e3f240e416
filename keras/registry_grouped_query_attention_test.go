package keras

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// kerasGQACase is one case of layers/testdata/keras/grouped_query_attention.json
// (tools/keras_reference/grouped_query_attention_vectors.py): Keras' call
// with return_attention_scores (y, scores and their gradients) and the
// plain call (y_call and the gradients of sum(y_call*dy)).
type kerasGQACase struct {
	kerasAttentionCase
	YCall        []float32   `json:"y_call"`
	DinputsCall  [][]float32 `json:"dinputs_call"`
	DweightsCall [][]float32 `json:"dweights_call"`
}

// TestGroupQueryAttentionMatchesKeras rebuilds each
// GroupQueryAttention of the vectors from Keras' config, gives it Keras'
// weights and masks, and compares both of Keras' calls (with the scores,
// and the plain call whose fully masked rows Keras' fused path averages)
// and their gradients with respect to the inputs and every weight within
// 1e-5; the config reads back to the same layer.
func TestGroupQueryAttentionMatchesKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasGQACase](t, "layers/testdata/keras/grouped_query_attention.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			l, err := LayerFromConfig(tc.ClassName, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			gqa, ok := l.(*layers.GroupQueryAttention)
			if !ok {
				t.Fatalf("%T, want *layers.GroupQueryAttention", l)
			}
			var shapes []ops.Shape
			for _, in := range tc.Inputs {
				shapes = append(shapes, append(ops.Shape{-1}, in.Shape[1:]...))
			}
			if tc.SelfAttention {
				shapes = append(shapes, shapes[0])
			}
			if _, err := layers.OutputShape(l, shapes); err != nil {
				t.Fatal(err)
			}
			ws := l.Weights()
			if len(ws) != len(tc.Weights) {
				t.Fatalf("%d weights, Keras %d", len(ws), len(tc.Weights))
			}
			for i, w := range tc.Weights {
				// Keras' paths end as ours: ".../query/kernel".
				if !ws[i].Shape().Equal(ops.Shape(w.Shape)) || !strings.HasSuffix(w.Name, ws[i].Name()[strings.Index(ws[i].Name(), "/"):]) {
					t.Fatalf("weight %d is %s %v, Keras' %s %v", i, ws[i].Name(), ws[i].Shape(), w.Name, w.Shape)
				}
				ws[i].Assign(w.Value)
			}
			for _, withScores := range []bool{true, false} {
				tr := ops.NewTrace(false, 0, 1)
				var vars []*ops.Variable
				var xs []ops.Tensor
				for i, in := range tc.Inputs {
					v := ops.NewVariable("x"+string(rune('0'+i)), ops.Shape(in.Shape), in.Value, true)
					vars = append(vars, v)
					xs = append(xs, ops.Scale(tr.Read(v), 1)) // a copy carries the mask
				}
				q, v := xs[0], xs[0]
				if !tc.SelfAttention {
					v = xs[1]
				}
				var a layers.AttentionArgs
				if len(xs) == 3 {
					a.Key = xs[2]
				}
				mask := func(key string) (ops.Tensor, bool) {
					m, ok := tc.Masks[key]
					if !ok {
						return ops.Tensor{}, false
					}
					return tr.Constant(ops.Shape(m.Shape), m.Value), true
				}
				if m, ok := mask("query_mask"); ok {
					layers.SetMask(q, m)
				}
				if m, ok := mask("value_mask"); ok && !tc.SelfAttention {
					layers.SetMask(v, m)
				}
				if m, ok := mask("key_mask"); ok {
					layers.SetMask(a.Key, m)
				}
				if m, ok := mask("attention_mask"); ok {
					a.AttentionMask = m
				}
				a.UseCausalMask = tc.Call["use_causal_mask"]
				var y, s, loss ops.Tensor
				if withScores {
					y, s = gqa.Attend(q, v, a)
					if !s.Shape().Equal(ops.Shape(tc.ScoresShape)) {
						t.Fatalf("scores %v, Keras %v", s.Shape(), tc.ScoresShape)
					}
					loss = ops.Add(ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false),
						ops.Sum(ops.Mul(s, tr.Constant(s.Shape(), tc.Ds)), false))
				} else {
					if a.AttentionMask.IsNone() {
						gqa.UseCausalMask = a.UseCausalMask
						ins := []ops.Tensor{q, v}
						if !a.Key.IsNone() {
							ins = append(ins, a.Key)
						}
						y = l.Call(ins, false)
						gqa.UseCausalMask = false
					} else {
						y = gqa.AttendOutput(q, v, a)
					}
					loss = ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false)
				}
				if !y.Shape().Equal(ops.Shape(tc.YShape)) {
					t.Fatalf("output %v, Keras %v", y.Shape(), tc.YShape)
				}
				all := append(vars, l.TrainableWeights()...)
				grads, err := ops.Gradients(loss, all)
				if err != nil {
					t.Fatal(err)
				}
				outs := []ops.Tensor{y}
				if withScores {
					outs = append(outs, s)
				}
				p, err := engine.Compile(tr, append(outs, grads...))
				if err != nil {
					t.Fatal(err)
				}
				vals, err := p.Run(engine.Single{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				wantY, din, dw, tag := tc.Y, tc.Dinputs, tc.Dweights, "scores call "
				if !withScores {
					wantY, din, dw, tag = tc.YCall, tc.DinputsCall, tc.DweightsCall, "plain call "
				}
				worst := closeToKeras(t, tag+"y", vals[0].Data, wantY, 1e-5)
				if withScores {
					worst = max(worst, closeToKeras(t, tag+"scores", vals[1].Data, tc.Scores, 1e-5))
				}
				vals = vals[len(outs):]
				if len(din) != len(vars) || len(dw) != len(all)-len(vars) {
					t.Fatalf("%d input and %d weight gradients, Keras %d and %d", len(vars), len(all)-len(vars), len(din), len(dw))
				}
				for i, g := range din {
					worst = max(worst, closeToKeras(t, tag+"dinput"+string(rune('0'+i)), vals[i].Data, g, 1e-5))
				}
				for i, g := range dw {
					worst = max(worst, closeToKeras(t, tag+"d"+all[len(vars)+i].Name(), vals[len(vars)+i].Data, g, 1e-5))
				}
				t.Logf("%sworst relative difference from Keras %.3g", tag, worst)
			}

			cfg := jsonRoundTrip(t, l.GetConfig())
			l2, err := LayerFromConfig(l.ClassName(), cfg)
			if err != nil {
				t.Fatalf("from our own config: %v", err)
			}
			b1, _ := json.Marshal(l.GetConfig())
			b2, _ := json.Marshal(l2.GetConfig())
			if string(b1) != string(b2) {
				t.Errorf("config round trip:\n%s\n%s", b1, b2)
			}
			want, _ := json.Marshal(tc.Config)
			var kc, oc map[string]any
			_ = json.Unmarshal(want, &kc)
			_ = json.Unmarshal(b1, &oc)
			for k, v := range kc {
				if k == "dtype" {
					continue
				}
				if strings.HasSuffix(k, "_initializer") { // Keras adds module and registered_name
					if oc[k].(map[string]any)["class_name"] != v.(map[string]any)["class_name"] {
						t.Errorf("config %s = %v, Keras %v", k, oc[k], v)
					}
					continue
				}
				if g, _ := json.Marshal(oc[k]); string(g) != gqaJSON(v) {
					t.Errorf("config %s = %s, Keras %s", k, g, gqaJSON(v))
				}
			}
		})
	}
}

func gqaJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestGroupQueryAttentionModelMatchesKeras loads the .keras file Keras
// saved with three GroupQueryAttention layers (a causal, gated
// self-attention over an Embedding's mask, a cross-attention with its own
// key, a sliding window), predicts Keras' outputs, and saves and reloads
// it to the same predictions.
func TestGroupQueryAttentionModelMatchesKeras(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/grouped_query_attention_model.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		File         string
		IDsShape     []int `json:"ids_shape"`
		IDs          []float32
		ContextShape []int `json:"context_shape"`
		Context      []float32
		PredShape    []int `json:"pred_shape"`
		Predictions  []float32
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	m, err := LoadModel("testdata/keras/" + ref.File)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range m.Layers() {
		if g, ok := l.(*layers.GroupQueryAttention); ok {
			n++
			if n == 1 && (!g.UseCausalMask || g.GateKernel == nil) {
				t.Errorf("the first attention %s lost use_causal_mask or use_gate", g.Name())
			}
		}
	}
	if n != 3 {
		t.Fatalf("the loaded model has %d GroupQueryAttention layers, want 3", n)
	}
	checkPredictsLikeKeras(t, m, []kerasInput{{ref.IDsShape, ref.IDs}, {ref.ContextShape, ref.Context}}, ref.PredShape, ref.Predictions)
}

// TestGroupQueryAttentionGradients checks the layer's gradients with
// respect to its inputs and weights by finite differences (layertest),
// with and without bias and gate, and its weight counts and config round
// trip.
func TestGroupQueryAttentionGradients(t *testing.T) {
	params := func(d, u, g, h int, bias, gate bool) int {
		n := d*u*h + 2*d*g*h + u*h*d
		if gate {
			n += d * u * h
		}
		if bias {
			n += u*h + 2*g*h + d
			if gate {
				n += u * h
			}
		}
		return n
	}
	layertest.RunN(t, layers.NewGroupQueryAttention(2, 4, 2), []ops.Shape{{2, 3, 5}, {2, 4, 5}}, ops.Shape{2, 3, 5}, params(5, 4, 2, 2, true, false))
	layertest.RunN(t, layers.NewGroupQueryAttention(3, 2, 1, layers.WithUseBias(false), layers.WithUseGate(true)),
		[]ops.Shape{{2, 3, 4}, {2, 3, 4}}, ops.Shape{2, 3, 4}, params(4, 2, 1, 3, false, true))
	layertest.RunN(t, layers.NewGroupQueryAttention(2, 2, 2, layers.WithUseGate(true), layers.WithSlidingWindow(2)),
		[]ops.Shape{{2, 4, 3}, {2, 5, 3}}, ops.Shape{2, 4, 3}, params(3, 2, 2, 2, true, true))
}

func TestGroupQueryAttentionErrors(t *testing.T) {
	// Keras names the layer after its Python class, GroupedQueryAttention.
	if n := layers.NewGroupQueryAttention(2, 2, 1).Name(); !strings.HasPrefix(n, "grouped_query_attention") {
		t.Errorf("default name %q, Keras grouped_query_attention", n)
	}
	if _, err := LayerFromConfig("GroupQueryAttention", map[string]any{"head_dim": 2.0, "num_query_heads": 2.0,
		"num_key_value_heads": 1.0, "kernel_constraint": "non_neg"}); err == nil || !strings.Contains(err.Error(), "kernel_constraint") {
		t.Errorf("a kernel constraint: %v", err)
	}
	for _, c := range []struct {
		l    *layers.GroupQueryAttention
		want string
	}{
		{layers.NewGroupQueryAttention(0, 2, 1), "head_dim"},
		{layers.NewGroupQueryAttention(2, 3, 2), "divisible"},
		{layers.NewGroupQueryAttention(2, 2, 0), "positive"},
		{layers.NewGroupQueryAttention(2, 2, 1, layers.WithAttentionDropout(1)), "dropout"},
		{layers.NewGroupQueryAttention(2, 2, 1, layers.WithSlidingWindow(-1)), "sliding_window"},
		{layers.NewGroupQueryAttention(2, 2, 1, layers.WithPadding("same")), "padding"},
	} {
		if err := c.l.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %s", c.l.Name(), err, c.want)
		}
	}
	q, v := layers.Input([]int{3, 4}), layers.Input([]int{5, 6})
	l := layers.NewGroupQueryAttention(2, 2, 1, layers.WithName("gqa_bad"))
	if err := layers.Apply(l, q, v).Err(); err == nil || !strings.Contains(err.Error(), "gqa_bad") || !strings.Contains(err.Error(), "last dimensions") {
		t.Errorf("query and value of different features: %v", err)
	}
	if _, err := LayerFromConfig("GroupQueryAttention", map[string]any{"head_dim": 2.0, "num_query_heads": 2.0,
		"num_key_value_heads": 1.0, "flash_attention": true}); err == nil {
		t.Error("flash_attention = true accepted")
	}
}
