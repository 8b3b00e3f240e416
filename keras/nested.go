package keras

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// ModelLayer is a model used as a layer of another model, as Keras calls
// a model on tensors (`y = inner(x)`): a Sequential or functional model
// nested in a functional model or a Sequential, or two models on one
// Input (an ensemble). It shares the model's weights: training the outer
// model trains the inner one, and every model that uses it sees the
// same values. Its weights, trainability, regularization losses and
// config are the inner model's; the outer model's Summary shows it as one
// row, "name (Sequential)" or "name (Functional)", with its parameter
// count, as Keras does. The nested model has one output.
//
// Get it with [Model.AsLayer], or call the model with [Model.Apply].
type ModelLayer struct {
	m         *Model
	trainable bool
}

// AsLayer returns the model as a layer of another model (the same
// *ModelLayer on every call, so calls of it share weights, as calling a
// Keras model twice does).
func (m *Model) AsLayer() *ModelLayer {
	if m == nil {
		// A layer whose Err and Build report the nil model, so that
		// Apply and NewSequential return the error.
		return &ModelLayer{trainable: true}
	}
	if m.asLayer == nil {
		m.asLayer = &ModelLayer{m: m, trainable: true}
	}
	return m.asLayer
}

// Apply calls the model on symbolic tensors, as `model(x)` in Keras'
// functional API: the output of a one-output model used as a layer (see
// [ModelLayer]). Errors are kept in the returned tensor.
func (m *Model) Apply(inputs ...*layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(m.AsLayer(), inputs...)
}

// ApplyTraining is [Model.Apply] with Keras' training argument:
// `base_model(x, training=False)` is base.ApplyTraining(false, x). The
// nested model runs in that mode in every step of the outer one, so a
// pretrained base keeps its BatchNormalization statistics while the
// head trains, and still after it is unfrozen for fine-tuning.
func (m *Model) ApplyTraining(training bool, inputs ...*layers.KerasTensor) *layers.KerasTensor {
	return layers.ApplyTraining(m.AsLayer(), training, inputs...)
}

// SetTrainable freezes (false) or unfreezes every layer of the model, as
// Keras' model.trainable = False: a frozen model's weights are
// non-trainable wherever it is used. Compile again after changing it,
// as in Keras.
func (m *Model) SetTrainable(t bool) {
	if m == nil {
		return
	}
	m.AsLayer().SetTrainable(t)
}

// Trainable reports the model's trainable flag (see [Model.SetTrainable]).
func (m *Model) Trainable() bool { return m != nil && m.AsLayer().trainable }

// Model returns the nested model.
func (l *ModelLayer) Model() *Model { return l.m }

// Name implements layers.Layer: the model's name.
func (l *ModelLayer) Name() string { return l.m.Name() }

// ClassName implements layers.Layer: "Sequential" or "Functional".
func (l *ModelLayer) ClassName() string {
	if l.m == nil {
		return "Model"
	}
	return l.m.className
}

// Build implements layers.Layer: an unbuilt Sequential model builds for
// the input shape; a built model checks the shapes when called.
func (l *ModelLayer) Build(shapes []ops.Shape) error {
	if err := l.m.usable("Apply"); err != nil {
		return err
	}
	if l.m.Built() {
		return nil
	}
	if len(shapes) != 1 || len(shapes[0]) == 0 {
		return fmt.Errorf("model %q takes one input, got shapes %v", l.m.name, shapes)
	}
	if err := l.m.build(shapes[0][1:]); err != nil {
		return err
	}
	if !l.trainable {
		l.SetTrainable(false)
	}
	return nil
}

// Built implements layers.Layer.
func (l *ModelLayer) Built() bool { return l.m.Built() }

// Call implements layers.Layer: the inner model's computation, in the
// outer model's trace.
func (l *ModelLayer) Call(inputs []ops.Tensor, training bool) ops.Tensor {
	outs := l.m.Call(inputs, training)
	if len(outs) != 1 {
		panic(&ops.Error{Op: l.m.name, Msg: fmt.Sprintf("a model used as a layer must have one output; %q has %d", l.m.name, len(outs))})
	}
	return outs[0]
}

// Weights implements layers.Layer: the inner model's weights, in its order.
func (l *ModelLayer) Weights() []*ops.Variable { return l.m.Weights() }

// TrainableWeights implements layers.Layer.
func (l *ModelLayer) TrainableWeights() []*ops.Variable { return l.m.TrainableVariables() }

// NonTrainableWeights implements layers.Layer.
func (l *ModelLayer) NonTrainableWeights() []*ops.Variable { return l.m.NonTrainableVariables() }

// Trainable implements layers.Layer.
func (l *ModelLayer) Trainable() bool { return l.trainable }

// SetTrainable implements layers.Layer: it sets every inner layer's flag,
// as Keras' model.trainable setter does.
func (l *ModelLayer) SetTrainable(t bool) {
	l.trainable = t
	if l.m == nil {
		return
	}
	for _, il := range l.m.Layers() {
		il.SetTrainable(t)
	}
	l.m.fns = stepFunctions{}
}

// RegularizationLosses implements layers.Layer.
func (l *ModelLayer) RegularizationLosses(tr *ops.Trace) []ops.Tensor {
	return l.m.RegularizationLosses(tr)
}

// GetConfig implements layers.Layer: the inner model's config, as
// [Model.GetConfig] (Keras nests a model's get_config in its parent's).
func (l *ModelLayer) GetConfig() map[string]any {
	cfg, err := l.m.GetConfig()
	if err != nil {
		return map[string]any{"name": l.m.Name()}
	}
	return cfg
}

// InputShape implements layers.Layer: the inner model's input shape
// (without batch), so a Sequential that starts with a nested model is
// built at once.
func (l *ModelLayer) InputShape() ops.Shape {
	switch {
	case l.m == nil:
	case l.m.Built() && len(l.m.inputs) == 1:
		return l.m.inputs[0].Shape()[1:]
	case len(l.m.pending) > 0:
		return l.m.pending[0].InputShape()
	}
	return nil
}

// Err implements layers.Layer.
func (l *ModelLayer) Err() error { return l.m.usable("Apply") }

var _ layers.Layer = (*ModelLayer)(nil)
