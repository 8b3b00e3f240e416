package keras_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// BenchmarkCNNTrainStep times Fit's step of the tutorial CNN at batch 64
// (one batch per Fit call, after a warm-up that traces).
func BenchmarkCNNTrainStep(b *testing.B) {
	layers.SetRandomSeed(1)
	m, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10))
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
		b.Fatal(err)
	}
	const batch = 64
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, batch*28*28)
	for i := range xs {
		xs[i] = r.Float32()
	}
	ys := make([]float32, batch)
	for i := range ys {
		ys[i] = float32(r.IntN(10))
	}
	x := tensor.New(tensor.WithShape(batch, 28, 28, 1), tensor.WithBacking(xs))
	y := tensor.New(tensor.WithShape(batch), tensor.WithBacking(ys))
	cfg := keras.FitConfig{BatchSize: batch, NoShuffle: true, Verbose: keras.VerboseSilent}
	if _, err := m.Fit(x, y, cfg); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Fit(x, y, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/step")
}

// BenchmarkCNNEvaluate times Evaluate of the tutorial CNN on 640 examples
// in batches of 64 (a forward pass, the loss and the metrics).
func BenchmarkCNNEvaluate(b *testing.B) {
	layers.SetRandomSeed(1)
	m, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10))
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), Metrics: []any{"accuracy"}}); err != nil {
		b.Fatal(err)
	}
	const n = 640
	x := tensor.New(tensor.WithShape(n, 28, 28, 1), tensor.WithBacking(make([]float32, n*784)))
	y := tensor.New(tensor.WithShape(n), tensor.WithBacking(make([]float32, n)))
	cfg := keras.EvaluateConfig{BatchSize: 64, Verbose: keras.VerboseSilent}
	if _, err := m.Evaluate(x, y, cfg); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Evaluate(x, y, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*n/64), "ms/batch")
}
