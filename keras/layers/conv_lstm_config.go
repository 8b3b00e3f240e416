package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// ConvLSTM's config and its place in Keras' files.

// GetConfig implements Layer.
func (l *ConvLSTM) GetConfig() map[string]any {
	m := l.baseConfig()
	o := l.cfg.rnn
	m["return_sequences"] = o.returnSequences
	m["return_state"] = o.returnState
	m["go_backwards"] = o.goBackwards
	m["stateful"] = o.stateful
	m["unroll"] = o.unroll
	m["zero_output_for_mask"] = o.zeroOutputForMask
	m["filters"] = l.filters
	if l.rank == 1 {
		m["kernel_size"] = []any{l.kernel[1]}
		m["strides"] = []any{l.attrs.Strides[1]}
		m["dilation_rate"] = []any{l.attrs.Dilations[1]}
	} else {
		m["kernel_size"] = intsAny(l.kernel[:])
		m["strides"] = intsAny(l.attrs.Strides[:])
		m["dilation_rate"] = intsAny(l.attrs.Dilations[:])
	}
	m["padding"] = l.attrs.Padding
	m["data_format"] = "channels_last"
	m["activation"] = l.actName
	m["recurrent_activation"] = l.recActName
	m["use_bias"] = l.cfg.useBias
	m["kernel_initializer"] = initName(l.cfg.kernelInit, "GlorotUniform")
	m["recurrent_initializer"] = initName(l.cfg.rnn.recurrentInit, "Orthogonal")
	if l.cfg.rnn.recurrentInit == nil {
		m["recurrent_initializer"] = initName(Orthogonal(1), "Orthogonal")
	}
	m["bias_initializer"] = initName(l.cfg.biasInit, "Zeros")
	m["unit_forget_bias"] = l.unitForgetBias()
	m["kernel_regularizer"] = regConfig(l.cfg.kernelReg)
	m["recurrent_regularizer"] = regConfig(l.cfg.rnn.recurrentReg)
	m["bias_regularizer"] = regConfig(l.cfg.biasReg)
	for _, k := range []string{"activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint"} {
		if _, ok := m[k]; !ok {
			m[k] = nil
		}
	}
	m["dropout"] = o.dropout
	m["recurrent_dropout"] = o.recurrentDropout
	m["seed"] = nil
	if l.cfg.hasSeed {
		m["seed"] = l.cfg.seed
	}
	return m
}

// SavedChildren is what Keras saves below the layer: its weights in its
// "cell" (layers/conv_lstm2d/cell/vars/0, 1, 2).
func (l *ConvLSTM) SavedChildren() ([]string, []Layer) {
	return []string{"cell"}, []Layer{l.cell}
}

// OwnWeights is none: Keras keeps them in the cell.
func (l *ConvLSTM) OwnWeights() []*ops.Variable { return nil }

// convLSTMCell is Keras' ConvLSTMCell, which holds a ConvLSTM layer's
// weights in Keras' files: gokeras keeps them on the layer, and the cell
// stands for them where Keras saves them.
type convLSTMCell struct {
	Base
	l *ConvLSTM
}

// SavedChildren implements the saving interface: the cell has no
// children.
func (c *convLSTMCell) SavedChildren() ([]string, []Layer) { return nil, nil }

// OwnWeights is the layer's kernel, recurrent kernel and bias.
func (c *convLSTMCell) OwnWeights() []*ops.Variable { return c.l.Weights() }

// Call is one timestep: inputs [x, h, c] of one timestep, the output h.
func (c *convLSTMCell) Call(in []ops.Tensor, training bool) ops.Tensor {
	if len(in) != 3 {
		panic(&ops.Error{Op: c.l.where(), Msg: fmt.Sprintf("the cell takes [x, h, c], got %d inputs", len(in))})
	}
	s := in[0].Shape()
	x := ops.Reshape(in[0], append(ops.Shape{s[0], 1}, s[1:]...))
	y, _ := c.l.CallWithStates(x, in[1:], training)
	return y
}
