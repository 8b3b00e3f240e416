package keras_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// guideMLP is the model of keras.io's "Writing a training loop from
// scratch": 784 -> Dense 64 relu -> Dense 64 relu -> Dense 10.
func guideMLP(b *testing.B) *keras.Model {
	b.Helper()
	layers.SetRandomSeed(1)
	m, err := keras.NewSequential(
		layers.NewDense(64, layers.WithActivation("relu")),
		layers.NewDense(64, layers.WithActivation("relu")),
		layers.NewDense(10))
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Build(784); err != nil {
		b.Fatal(err)
	}
	return m
}

func guideBatch() (x, y *tensor.Dense) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, 32*784)
	for i := range xs {
		xs[i] = r.Float32()
	}
	ys := make([]float32, 32)
	for i := range ys {
		ys[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(32, 784), tensor.WithBacking(xs)), tensor.New(tensor.WithShape(32), tensor.WithBacking(ys))
}

// readmeCNN is the CNN of the README (Conv 32, pool, Conv 64, pool, Dense
// 128, Dense 10) on 28x28x1 images.
func readmeCNN(b *testing.B) *keras.Model {
	b.Helper()
	layers.SetRandomSeed(1)
	m, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10))
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Build(28, 28, 1); err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkGuideStep compares one training step (forward, loss, gradients,
// Adam update) of the guide's MLP on a batch of 32, run eagerly under a
// GradientTape and as a keras.NewFunction replay.
func BenchmarkGuideStep(b *testing.B) {
	x, y := guideBatch()
	benchSteps(b, guideMLP, x, y)
}

// BenchmarkCNNStep is BenchmarkGuideStep for the README's CNN on a batch
// of 32 images: larger kernels, so the eager overhead weighs less.
func BenchmarkCNNStep(b *testing.B) {
	x, y := guideBatch()
	x = tensor.New(tensor.WithShape(32, 28, 28, 1), tensor.WithBacking(x.Data().([]float32)))
	benchSteps(b, readmeCNN, x, y)
}

func benchSteps(b *testing.B, newModel func(*testing.B) *keras.Model, x, y *tensor.Dense) {
	lossFn := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))
	b.Run("eager", func(b *testing.B) {
		model := newModel(b)
		opt := optimizers.NewAdam(optimizers.LearningRate(1e-3))
		for b.Loop() {
			tape := keras.NewGradientTape()
			logits, err := model.CallEager(x, true)
			if err != nil {
				b.Fatal(err)
			}
			loss := lossFn.Call(ops.ConvertToTensor(y), logits)
			grads, err := tape.Gradient(loss, model.TrainableVariables())
			if err != nil {
				b.Fatal(err)
			}
			if err := opt.ApplyGradients(grads, model.TrainableVariables()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("function", func(b *testing.B) {
		model := newModel(b)
		opt := optimizers.NewAdam(optimizers.LearningRate(1e-3))
		step := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
			tape := keras.NewGradientTape()
			logits := model.Forward(in[0], true)
			loss := lossFn.Call(in[1], logits)
			grads, err := tape.Gradient(loss, model.TrainableVariables())
			if err != nil {
				return nil, err
			}
			return []ops.Tensor{loss}, opt.ApplyGradients(grads, model.TrainableVariables())
		})
		for b.Loop() {
			if _, err := step.Call(x, y); err != nil {
				b.Fatal(err)
			}
		}
	})
}
