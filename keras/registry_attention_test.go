package keras

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

type kerasArray struct {
	Shape []int
	Value []float32
}

// kerasAttentionCase is one case of layers/testdata/keras/attention.json,
// written by tools/keras_reference/attention_vectors.py.
type kerasAttentionCase struct {
	Name          string
	ClassName     string `json:"class_name"`
	Config        map[string]any
	SelfAttention bool `json:"self_attention"`
	Call          map[string]bool
	Inputs        []kerasArray
	Masks         map[string]kerasArray
	Weights       []struct {
		Name  string
		Shape []int
		Value []float32
	}
	YShape      []int `json:"y_shape"`
	Y, Dy       []float32
	ScoresShape []int `json:"scores_shape"`
	Scores, Ds  []float32
	Dinputs     [][]float32
	Dweights    [][]float32
}

// attender is what the attention layers offer beyond Layer: Keras' call
// with every argument, returning the output and the attention scores.
type attender interface {
	Attend(query, value ops.Tensor, a layers.AttentionArgs) (ops.Tensor, ops.Tensor)
}

// TestAttentionLayersMatchKeras rebuilds each attention layer from Keras'
// own config through LayerFromConfig, gives it Keras' weights, sets
// Keras' masks on the inputs (and the attention mask, the causal mask),
// and compares the output, the attention scores and the gradients of
// sum(y*dy) + sum(scores*ds) with respect to the inputs and the weights
// with Keras' to 1e-5 (relative, absolute below magnitude 1). The rebuilt
// layer's config must read back to the same layer.
func TestAttentionLayersMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasAttentionCase](t, "layers/testdata/keras/attention.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			l, err := LayerFromConfig(tc.ClassName, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			var shapes []ops.Shape
			for _, in := range tc.Inputs {
				s := append(ops.Shape{-1}, in.Shape[1:]...)
				shapes = append(shapes, s)
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
				if !ws[i].Shape().Equal(ops.Shape(w.Shape)) {
					t.Fatalf("weight %d (%s) has shape %v, Keras' %s %v", i, ws[i].Name(), ws[i].Shape(), w.Name, w.Shape)
				}
				ws[i].Assign(w.Value)
			}
			tr := ops.NewTrace(false, 0, 1)
			var vars []*ops.Variable
			var xs []ops.Tensor
			for i, in := range tc.Inputs {
				v := ops.NewVariable("x"+string(rune('0'+i)), ops.Shape(in.Shape), in.Value, true)
				vars = append(vars, v)
				// A copy of the input carries the mask, as the script's
				// tf.identity does.
				xs = append(xs, ops.Scale(tr.Read(v), 1))
			}
			q := xs[0]
			v := q
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
			for k, on := range tc.Call {
				switch k {
				case "use_causal_mask":
					a.UseCausalMask = on
				default:
					t.Fatalf("unknown call argument %q", k)
				}
			}
			at, ok := l.(attender)
			if !ok {
				t.Fatalf("%T has no Attend", l)
			}
			y, s := at.Attend(q, v, a)
			if !y.Shape().Equal(ops.Shape(tc.YShape)) || !s.Shape().Equal(ops.Shape(tc.ScoresShape)) {
				t.Fatalf("output %v and scores %v, Keras %v and %v", y.Shape(), s.Shape(), tc.YShape, tc.ScoresShape)
			}
			loss := ops.Add(ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), tc.Dy)), false),
				ops.Sum(ops.Mul(s, tr.Constant(s.Shape(), tc.Ds)), false))
			all := append(vars, l.TrainableWeights()...)
			grads, err := ops.Gradients(loss, all)
			if err != nil {
				t.Fatal(err)
			}
			p, err := engine.Compile(tr, append([]ops.Tensor{y, s}, grads...))
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
			check("scores", vals[1].Data, tc.Scores)
			if len(tc.Dinputs) != len(vars) || len(tc.Dweights) != len(all)-len(vars) {
				t.Fatalf("%d input and %d weight gradients, Keras %d and %d", len(vars), len(all)-len(vars), len(tc.Dinputs), len(tc.Dweights))
			}
			for i, g := range tc.Dinputs {
				check("dinput"+string(rune('0'+i)), vals[2+i].Data, g)
			}
			for i, g := range tc.Dweights {
				check("d"+all[len(vars)+i].Name(), vals[2+len(vars)+i].Data, g)
			}
			t.Logf("worst relative difference from Keras %.3g", worst)

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
		})
	}
}

// kerasBlock is the transformer_block entry of attention.json: keras.io's
// text classifier in small, layer by layer.
type kerasBlock struct {
	Name   string
	Layers []struct {
		ClassName string `json:"class_name"`
		Config    map[string]any
		Weights   []struct {
			Name  string
			Shape []int
			Value []float32
		}
	}
	XShape   []int `json:"x_shape"`
	X        []float32
	YShape   []int `json:"y_shape"`
	Y, Dy    []float32
	Dweights [][]float32
}

// TestTransformerBlockMatchesKeras checks what a small Transformer needs
// beyond the attention layers (Embedding, Dense on 3-D inputs,
// LayerNormalization on the last axis of 3-D inputs, Dropout in
// inference, Add, GlobalAveragePooling1D) in keras.io's block: every layer
// made from Keras' config, Keras' weights, the output and the gradient of
// every trainable weight equal to Keras' within 1e-5.
func TestTransformerBlockMatchesKeras(t *testing.T) {
	b, err := os.ReadFile("layers/testdata/keras/attention.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Blocks []kerasBlock }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Blocks) == 0 {
		t.Fatal("no blocks")
	}
	blk := f.Blocks[0]
	want := []string{"Embedding", "MultiHeadAttention", "Dropout", "Add", "LayerNormalization", "Dense", "Dense",
		"Dropout", "Add", "LayerNormalization", "GlobalAveragePooling1D", "Dropout", "Dense"}
	if len(blk.Layers) != len(want) {
		t.Fatalf("%d layers, want %d", len(blk.Layers), len(want))
	}
	ls := make([]layers.Layer, len(want))
	for i, lc := range blk.Layers {
		if lc.ClassName != want[i] {
			t.Fatalf("layer %d is %s, the test wires %s", i, lc.ClassName, want[i])
		}
		if ls[i], err = LayerFromConfig(lc.ClassName, lc.Config); err != nil {
			t.Fatal(err)
		}
	}
	tr := ops.NewTrace(false, 0, 1)
	ids := tr.Constant(ops.Shape(blk.XShape), blk.X)
	call := func(i int, in ...ops.Tensor) ops.Tensor {
		t.Helper()
		shapes := make([]ops.Shape, len(in))
		for j, x := range in {
			shapes[j] = append(ops.Shape{-1}, x.Shape()[1:]...)
		}
		if _, err := layers.OutputShape(ls[i], shapes); err != nil {
			t.Fatalf("layer %d: %v", i, err)
		}
		ws := ls[i].Weights()
		if len(ws) != len(blk.Layers[i].Weights) {
			t.Fatalf("layer %d (%s): %d weights, Keras %d", i, want[i], len(ws), len(blk.Layers[i].Weights))
		}
		for j, w := range blk.Layers[i].Weights {
			if !ws[j].Shape().Equal(ops.Shape(w.Shape)) {
				t.Fatalf("weight %s: shape %v, Keras %v", w.Name, ws[j].Shape(), w.Shape)
			}
			ws[j].Assign(w.Value)
		}
		return ls[i].Call(in, false)
	}
	e := call(0, ids)
	a := call(1, e, e)
	a = call(2, a)
	o1 := call(4, call(3, e, a))
	h := call(7, call(6, call(5, o1)))
	o2 := call(9, call(8, o1, h))
	y := call(12, call(11, call(10, o2)))
	if !y.Shape().Equal(ops.Shape(blk.YShape)) {
		t.Fatalf("output %v, Keras %v", y.Shape(), blk.YShape)
	}
	var vars []*ops.Variable
	for _, l := range ls {
		vars = append(vars, l.TrainableWeights()...)
	}
	grads, err := ops.Gradients(ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), blk.Dy)), false), vars)
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
	if len(blk.Dweights) != len(vars) {
		t.Fatalf("%d trainable weights, Keras %d", len(vars), len(blk.Dweights))
	}
	worst := 0.0
	check := func(what string, got, want []float32) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, Keras %d", what, len(got), len(want))
		}
		for i := range want {
			w := float64(want[i])
			e := math.Abs(float64(got[i])-w) / math.Max(1, math.Abs(w))
			worst = max(worst, e)
			if !(e <= 1e-5) {
				t.Errorf("%s[%d] = %v, Keras %v", what, i, got[i], w)
				return
			}
		}
	}
	check("y", vals[0].Data, blk.Y)
	for i, g := range blk.Dweights {
		check("d"+vars[i].Name(), vals[1+i].Data, g)
	}
	t.Logf("worst relative difference from Keras %.3g", worst)
}

// Summary's parameter counts equal Keras', computed here by hand:
// MultiHeadAttention(num_heads=h, key_dim=k, value_dim=v) on a query of
// d features and a value of e features has query and key kernels (d, h, k)
// and (e, h, k) with biases (h, k), a value kernel (e, h, v) with bias
// (h, v) and an output kernel (h, v, d) with bias (d,); Attention with
// use_scale one scalar; AdditiveAttention a scale of d values.
func TestAttentionSummaryCounts(t *testing.T) {
	layers.ClearSession()
	const T, S, d, e, h, k, v = 7, 5, 12, 10, 3, 4, 6
	q := layers.Input([]int{T, d})
	val := layers.Input([]int{S, e})
	mha := layers.NewMultiHeadAttention(h, k, layers.WithValueDim(v))
	y := layers.Apply(mha, q, val)
	att := layers.NewAttention(layers.WithUseScale(true))
	y2 := layers.Apply(att, y, y)
	add := layers.NewAdditiveAttention()
	y3 := layers.Apply(add, y2, y)
	m, err := NewModel([]*layers.KerasTensor{q, val}, []*layers.KerasTensor{y3})
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.SummaryString()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{
		mha.Name(): (d*h*k + h*k) + (e*h*k + h*k) + (e*h*v + h*v) + (h*v*d + d),
		att.Name(): 1,
		add.Name(): d,
	}
	total := 0
	for name, n := range counts {
		total += n
		found := false
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, name+" (") && strings.Contains(line+" ", " "+commasForTest(n)+" ") {
				found = true
			}
		}
		if !found {
			t.Errorf("layer %s: no summary line with %d parameters:\n%s", name, n, s)
		}
	}
	if !strings.Contains(s, "Total params: "+commasForTest(total)) {
		t.Errorf("summary does not total %d:\n%s", total, s)
	}
}

// commasForTest writes n with thousands separators, as Keras' summary.
func commasForTest(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
