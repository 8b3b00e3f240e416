package keras_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"gorgonia.org/tensor"
)

// TestMultiInputMultiOutput fits a functional model with two inputs, a
// shared layer and two outputs (a classifier and a regressor), with a loss
// per output and loss weights, as Keras' multi-output models.
func TestMultiInputMultiOutput(t *testing.T) {
	layers.ClearSession()
	a := layers.Input([]int{4}, layers.WithName("a"))
	b := layers.Input([]int{4}, layers.WithName("b"))
	shared := layers.NewDense(8, layers.WithActivation("relu"))
	h := layers.ConcatenateTensors(-1, layers.Apply(shared, a), layers.Apply(shared, b))
	cls := layers.Apply(layers.NewDense(3, layers.WithName("cls")), h)
	reg := layers.Apply(layers.NewDense(1, layers.WithName("reg")), h)
	m, err := keras.NewModel([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{cls, reg})
	if err != nil {
		t.Fatal(err)
	}
	err = m.Compile(keras.CompileConfig{
		Optimizer:   "adam",
		Loss:        []any{losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), "mse"},
		LossWeights: []float64{1, 0.5},
		Metrics:     []any{"accuracy"},
	})
	if err != nil {
		t.Fatal(err)
	}
	const n = 96
	r := rand.New(rand.NewPCG(2, 2))
	xa, xb := make([]float32, n*4), make([]float32, n*4)
	yc, yr := make([]float32, n), make([]float32, n)
	for i := 0; i < n; i++ {
		c := r.IntN(3)
		yc[i] = float32(c)
		for j := 0; j < 4; j++ {
			xa[i*4+j] = float32(r.NormFloat64()) * 0.3
			xb[i*4+j] = float32(r.NormFloat64())
		}
		xa[i*4+c] += 2
		yr[i] = xb[i*4] + xb[i*4+1]
	}
	dense := func(d []float32, shape ...int) *tensor.Dense {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
	}
	ds, err := datasets.FromTensorSlices(dense(xa, n, 4), dense(xb, n, 4), dense(yc, n), dense(yr, n, 1))
	if err != nil {
		t.Fatal(err)
	}
	hist, err := m.Fit(ds.Batch(16, false), nil, keras.FitConfig{Epochs: 6, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"loss", "cls_loss", "reg_loss", "cls_accuracy", "reg_accuracy"}
	for i, w := range want {
		if i >= len(hist.Names) || hist.Names[i] != w {
			t.Fatalf("logs %v, want %v", hist.Names, want)
		}
	}
	last := len(hist.Epoch) - 1
	total := hist.History["loss"][last]
	parts := hist.History["cls_loss"][last] + 0.5*hist.History["reg_loss"][last]
	if math.Abs(total-parts) > 1e-4*math.Max(1, total) {
		t.Errorf("loss %v != cls_loss + 0.5*reg_loss = %v", total, parts)
	}
	if l := hist.History["loss"]; l[last] >= l[0] {
		t.Errorf("loss did not fall: %v", l)
	}
	outs, err := m.PredictAll(ds.Batch(32, false), keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || outs[0].Shape()[1] != 3 || outs[1].Shape()[1] != 1 || outs[0].Shape()[0] != n {
		t.Errorf("PredictAll shapes: %v %v", outs[0].Shape(), outs[1].Shape())
	}
	// Saved and loaded, the model keeps its loss per output and the loss
	// weights: Evaluate gives the same losses.
	path := filepath.Join(t.TempDir(), "two_heads.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	before, err := m.Evaluate(ds.Batch(32, false), nil, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	after, err := loaded.Evaluate(ds.Batch(32, false), nil, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"loss", "cls_loss", "reg_loss"} {
		b, _ := before.Get(k)
		a, ok := after.Get(k)
		if !ok || math.Abs(a-b) > 1e-6*math.Max(1, math.Abs(b)) {
			t.Errorf("%s after save and load = %v (present %v), before %v", k, a, ok, b)
		}
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: "adam", Loss: []any{"mse"}}); err == nil {
		t.Error("one loss in a list for two outputs: no error")
	}
}
