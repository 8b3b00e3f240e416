package layers_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestEmbeddingShapesAndWeights(t *testing.T) {
	l := layers.NewEmbedding(1000, 8, layers.WithName("emb"))
	out, err := layers.OutputShape(l, []ops.Shape{{-1, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Equal(ops.Shape{-1, 5, 8}) {
		t.Errorf("output shape %v, want (None, 5, 8)", out)
	}
	ws := l.Weights()
	if len(ws) != 1 || ws[0].Name() != "emb/embeddings" || !ws[0].Shape().Equal(ops.Shape{1000, 8}) || !ws[0].Trainable() {
		t.Fatalf("weights %v", ws)
	}
	// Keras' default: uniform in [-0.05, 0.05].
	var sum, sq float64
	data := ws[0].Data(0)
	for _, v := range data {
		if v < -0.05 || v > 0.05 {
			t.Fatalf("initial value %v outside [-0.05, 0.05]", v)
		}
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	mean, std := sum/float64(len(data)), math.Sqrt(sq/float64(len(data)))
	if math.Abs(mean) > 0.003 || math.Abs(std-0.05/math.Sqrt(3)) > 0.003 {
		t.Errorf("initial mean %v and std %v, want 0 and %v", mean, std, 0.05/math.Sqrt(3))
	}
	y := layers.Apply(layers.NewEmbedding(10, 3), layers.Input([]int{2, 4}))
	if y.Err() != nil || !y.Shape().Equal(ops.Shape{-1, 2, 4, 3}) {
		t.Errorf("functional: shape %v, err %v", y.Shape(), y.Err())
	}
}

func TestEmbeddingValuesAndGradient(t *testing.T) {
	l := layers.NewEmbedding(4, 3)
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	table := seq(12, 1, 1) // row r is 3r+1, 3r+2, 3r+3
	if err := l.Embeddings.Assign(table); err != nil {
		t.Fatal(err)
	}
	ids := []float32{3, 0, 3, 1, 1, 2}
	y := layertest.Forward(t, l, false, ops.Value{Shape: ops.Shape{2, 3}, Data: ids})
	if !y.Shape.Equal(ops.Shape{2, 3, 3}) {
		t.Fatalf("shape %v", y.Shape)
	}
	var want []float64
	for _, id := range ids {
		for j := 0; j < 3; j++ {
			want = append(want, float64(table[int(id)*3+j]))
		}
	}
	layertest.AllClose(t, "embedding", y.Data, want, 0)

	// d sum(y * w) / d table adds the rows of w into the rows looked up.
	tr := ops.NewTrace(true, 0, 1)
	x := tr.Constant(ops.Shape{2, 3}, ids)
	w := seq(18, 0.5, -2)
	out := l.Call([]ops.Tensor{x}, true)
	g, err := ops.Gradients(ops.Sum(ops.Mul(out, tr.Constant(out.Shape(), w)), false), []*ops.Variable{l.Embeddings})
	if err != nil {
		t.Fatal(err)
	}
	wantG := make([]float64, 12)
	for i, id := range ids {
		for j := 0; j < 3; j++ {
			wantG[int(id)*3+j] += float64(w[i*3+j])
		}
	}
	layertest.AllClose(t, "d/dembeddings", run(t, tr, g[0]), wantG, 1e-6)
}

func TestEmbeddingBadIDs(t *testing.T) {
	l := layers.NewEmbedding(4, 2, layers.WithName("emb_bad"))
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 2}}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []float32{4, -1, 100} {
		tr := ops.NewTrace(false, 0, 1)
		in := tr.Input("ids", ops.Shape{1, 2})
		p, err := engine.Compile(tr, []ops.Tensor{l.Call([]ops.Tensor{in}, false)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Run(engine.Single{}, []ops.Value{{Shape: ops.Shape{1, 2}, Data: []float32{0, bad}}})
		var e *ops.Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("id %v: error %v, want an *ops.Error saying out of range", bad, err)
		}
	}
}

func TestEmbeddingConfigAndErrors(t *testing.T) {
	cfg := layers.NewEmbedding(50, 4).GetConfig()
	for _, k := range []string{"input_dim", "output_dim", "embeddings_initializer", "embeddings_regularizer", "mask_zero"} {
		if _, ok := cfg[k]; !ok {
			t.Errorf("config lacks %q", k)
		}
	}
	ini, _ := cfg["embeddings_initializer"].(map[string]any)
	if cfg["input_dim"] != 50 || cfg["output_dim"] != 4 || ini["class_name"] != "RandomUniform" {
		t.Errorf("config %v", cfg)
	}
	l := layers.NewEmbedding(3, 2, layers.WithEmbeddingsInitializer(layers.Ones()), layers.WithEmbeddingsRegularizer(layers.L2(0.5)))
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 1}}); err != nil {
		t.Fatal(err)
	}
	for _, v := range l.Embeddings.Data(0) {
		if v != 1 {
			t.Fatalf("embeddings_initializer ignored: %v", l.Embeddings.Data(0))
		}
	}
	tr := ops.NewTrace(false, 0, 0)
	if r := l.RegularizationLosses(tr); len(r) != 1 || run(t, tr, r[0])[0] != 0.5*6 {
		t.Errorf("regularization loss, want 0.5 * 6")
	}
	wantErr(t, layers.NewEmbedding(0, 2, layers.WithName("e0")).Err(), "Embedding", "e0", "input_dim")
	wantErr(t, layers.NewEmbedding(3, 2, layers.WithUseBias(true)).Err(), "Embedding", "use_bias")
}
