package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// SimpleRNNCell is keras.layers.SimpleRNNCell, one timestep of
// [SimpleRNN]: h' = act(x·kernel + bias + h·recurrent_kernel) (act:
// activation, tanh).
//
//	keras.layers.SimpleRNNCell(64)  ->  layers.NewSimpleRNNCell(64)
type SimpleRNNCell struct{ cellCore }

// simpleRNNCellKeys are the options SimpleRNNCell takes.
var simpleRNNCellKeys = []string{"activation", "use_bias", "kernel_initializer",
	"recurrent_initializer", "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
	"bias_regularizer", "dropout", "recurrent_dropout", "seed"}

// NewSimpleRNNCell makes a SimpleRNNCell of the given units. Options: those
// of [NewLSTMCell] but WithRecurrentActivation and WithUnitForgetBias.
func NewSimpleRNNCell(units int, opts ...Option) *SimpleRNNCell {
	cfg, err := newConfig("SimpleRNNCell", simpleRNNCellKeys, opts)
	return newSimpleRNNCell(units, "", cfg, err)
}

func newSimpleRNNCell(units int, owner string, cfg *config, err error) *SimpleRNNCell {
	c := &SimpleRNNCell{}
	c.initCell("SimpleRNNCell", owner, units, 1, cfg, err)
	return c
}

// Build implements Cell.
func (c *SimpleRNNCell) Build(in []ops.Shape) error {
	if err := c.buildKernels(in); err != nil {
		return err
	}
	if c.cfg.useBias {
		c.Bias = c.AddWeight("bias", ops.Shape{c.units}, c.biasInit(), true, c.cfg.biasReg)
	}
	c.built = true
	return nil
}

// Step implements Cell.
func (c *SimpleRNNCell) Step(x ops.Tensor, states []ops.Tensor, _ bool) (ops.Tensor, []ops.Tensor) {
	c.checkStep(x, states, c.StateSize())
	return stepVia(c, x, states)
}

func (c *SimpleRNNCell) project(x ops.Tensor) ops.Tensor {
	var b ops.Tensor
	if c.Bias != nil {
		b = x.Trace().Read(c.Bias)
	}
	return c.projectWith(x, b)
}

func (c *SimpleRNNCell) stepProjected(xp ops.Tensor, _ []ops.Tensor, hr ops.Tensor) (ops.Tensor, []ops.Tensor) {
	h := activate(c.act, ops.Add(xp, ops.MatMul(hr, xp.Trace().Read(c.RecurrentKernel), false, false)))
	return h, []ops.Tensor{h}
}

// GetConfig implements Cell.
func (c *SimpleRNNCell) GetConfig() map[string]any { return c.cellConfig() }

// SimpleRNN is keras.layers.SimpleRNN: an [RNN] over a [SimpleRNNCell].
// Parameters: units*(features+units)+units.
//
//	keras.layers.SimpleRNN(32)  ->  layers.NewSimpleRNN(32)
type SimpleRNN struct {
	RNN
	Cell *SimpleRNNCell
}

// NewSimpleRNN makes a SimpleRNN layer of the given units. Options: those
// of [NewSimpleRNNCell] and of the recurrent layers (see [NewLSTM]).
func NewSimpleRNN(units int, opts ...Option) *SimpleRNN {
	l := &SimpleRNN{}
	l.init("SimpleRNN", append(append([]string(nil), simpleRNNCellKeys...), rnnKeys...), opts)
	l.Cell = newSimpleRNNCell(units, l.name, l.cfg, l.err)
	l.err = l.Cell.err
	l.initRNN(l.Cell)
	return l
}

// GetConfig implements Layer: the cell's keys and the RNN's, flat, as Keras.
func (l *SimpleRNN) GetConfig() map[string]any { return l.flatConfig(l.Cell.GetConfig()) }
