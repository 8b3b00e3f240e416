package keras

import (
	"github.com/gokeras/gokeras/ops"
)

// TrainStepper is implemented by a type that replaces Keras' train_step:
// given the batch (model inputs, then labels) in a traced step, it computes
// the loss, applies gradients and updates metrics, and returns the loss.
type TrainStepper interface {
	TrainStep(data []ops.Tensor) (ops.Tensor, error)
}

// TestStepper replaces Keras' test_step.
type TestStepper interface {
	TestStep(data []ops.Tensor) (ops.Tensor, error)
}

// Override makes Fit and Evaluate call custom's TrainStep and TestStep
// (whichever it implements) instead of the model's own: Keras'
// "customizing what happens in fit". Go has no virtual methods, so a type
// that embeds *Model registers itself:
//
//	type CustomModel struct{ *keras.Model }
//
//	func (m CustomModel) TrainStep(data []ops.Tensor) (ops.Tensor, error) {
//		x, y := data[0], data[1]
//		tape := keras.NewGradientTape()
//		yPred := m.Forward(x, true)
//		loss := m.CompiledLoss(y, yPred)
//		grads, err := tape.Gradient(loss, m.TrainableVariables())
//		...
//		err = m.Optimizer().ApplyGradients(grads, m.TrainableVariables())
//		m.UpdateCompiledMetrics(y, yPred)
//		return loss, err
//	}
//
//	custom := CustomModel{model}
//	model.Override(custom)
//
// The custom step runs on every replica under a distribution strategy,
// like the built-in one.
func (m *Model) Override(custom any) {
	m.customTrain, _ = custom.(TrainStepper)
	m.customTest, _ = custom.(TestStepper)
	m.fns = stepFunctions{}
}

func (m *Model) trainStep(data []ops.Tensor) (ops.Tensor, error) {
	if m.customTrain != nil {
		return m.customTrain.TrainStep(data)
	}
	return m.TrainStep(data)
}

func (m *Model) testStep(data []ops.Tensor) (ops.Tensor, error) {
	if m.customTest != nil {
		return m.customTest.TestStep(data)
	}
	return m.TestStep(data)
}

// CompiledLoss is Keras 2's compiled_loss in a custom step: the compiled
// loss plus regularization (scaled for distribution, see ComputeLoss), with
// the "loss" metric updated.
func (m *Model) CompiledLoss(yTrue, yPred ops.Tensor) ops.Tensor {
	loss, report := m.computeLoss(yTrue, yPred)
	m.trackLoss(report, yTrue.Shape()[0])
	return loss
}

// UpdateCompiledMetrics is compiled_metrics.update_state in a custom step.
func (m *Model) UpdateCompiledMetrics(yTrue, yPred ops.Tensor) {
	if err := m.resolveMetrics([]ops.Shape{yTrue.Shape()}, []ops.Shape{yPred.Shape()}); err != nil {
		panic(&ops.Error{Op: m.name, Msg: err.Error()})
	}
	for i, mt := range m.metrics {
		if m.metricOutput[i] == 0 {
			mt.UpdateState(yTrue, yPred)
		}
	}
}
