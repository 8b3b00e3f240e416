package keras_test

import (
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// frozenFirst is a custom train step that only trains the last layer's
// weights, so its effect is observable.
type frozenFirst struct {
	*keras.Model
	traced *int
}

func (m frozenFirst) TrainStep(data []ops.Tensor) (ops.Tensor, error) {
	*m.traced++
	x, y := data[0], data[1]
	tape := keras.NewGradientTape()
	yPred := m.Forward(x, true)
	loss := m.CompiledLoss(y, yPred)
	vars := m.Layers()[1].TrainableWeights()
	grads, err := tape.Gradient(loss, vars)
	if err != nil {
		return ops.Tensor{}, err
	}
	if err := m.Optimizer().ApplyGradients(grads, vars); err != nil {
		return ops.Tensor{}, err
	}
	m.UpdateCompiledMetrics(y, yPred)
	return loss, nil
}

func TestCustomTrainStep(t *testing.T) {
	layers.SetRandomSeed(3)
	model, err := keras.NewSequential(layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)), layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	traced := 0
	model.Override(frozenFirst{model, &traced})
	if err := model.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.05)), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), Metrics: []any{"accuracy"}}); err != nil {
		t.Fatal(err)
	}
	first := model.Layers()[0].Weights()[0].Numpy()
	x, y := synthetic(128, 5)
	hist, err := model.Fit(x, y, keras.FitConfig{Epochs: 5, BatchSize: 32, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if traced == 0 {
		t.Fatal("the custom TrainStep was not used")
	}
	for i, v := range model.Layers()[0].Weights()[0].Numpy() {
		if v != first[i] {
			t.Fatal("the custom step froze the first layer, but it changed")
		}
	}
	loss := hist.History["loss"]
	if loss[len(loss)-1] >= loss[0] {
		t.Errorf("loss did not fall: %v", loss)
	}
	if _, ok := hist.History["accuracy"]; !ok {
		t.Errorf("compiled metrics not reported: %v", hist.Names)
	}
}
