package distribute_test

import (
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// doubleLoss is a custom train step: it trains on twice the compiled loss.
type doubleLoss struct{ *keras.Model }

func (m doubleLoss) TrainStep(data []ops.Tensor) (ops.Tensor, error) {
	tape := keras.NewGradientTape()
	pred := m.Forward(data[0], true)
	loss := ops.Scale(m.CompiledLoss(data[1], pred), 2)
	grads, err := tape.Gradient(loss, m.TrainableVariables())
	if err != nil {
		return ops.Tensor{}, err
	}
	m.UpdateCompiledMetrics(data[1], pred)
	return loss, m.Optimizer().ApplyGradients(grads, m.TrainableVariables())
}

func TestCustomTrainStepMirrored(t *testing.T) {
	if err := distribute.SetLogicalCPUs(3); err != nil {
		t.Fatal(err)
	}
	x, y := images(20, 6, 6, 2)
	var ref []*ops.Variable
	for _, n := range []int{1, 3} {
		s, _ := distribute.NewMirroredStrategy(devices(n)...)
		layers.SetRandomSeed(8)
		exit := s.Scope()
		m, err := keras.NewSequential(layers.NewFlatten(layers.WithInputShape(6, 6, 1)), layers.NewDense(10))
		if err != nil {
			t.Fatal(err)
		}
		m.Override(doubleLoss{m})
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1)), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
		exit()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: 7, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = m.Weights()
			continue
		}
		for i, v := range m.Weights() {
			if d := relDiff(v.Data(0), ref[i].Data(0)); d > 1e-5 {
				t.Errorf("%d replicas: %s differs by %g", n, v.Name(), d)
			}
			if d := relDiff(v.Data(2), v.Data(0)); d != 0 {
				t.Errorf("%d replicas: copies of %s differ", n, v.Name())
			}
		}
	}
}
