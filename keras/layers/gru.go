package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// GRUCell is keras.layers.GRUCell, one timestep of [GRU]: with the input
// product x·kernel + b_in and the recurrent product h·recurrent_kernel +
// b_rec split into the gates z, r, h (in that order, units each),
//
//	z = σ(x_z + r_z), r = σ(x_r + r_r)    (σ: recurrent_activation, sigmoid)
//	ĥ = act(x_h + r * r_h)                 (reset_after, Keras' default; act: tanh)
//	ĥ = act(x_h + (r*h)·recurrent_kernel_h) (reset_after=false, one bias)
//	h' = z*h + (1-z)*ĥ
//
// With reset_after the bias is (2, 3*units): the input bias, then the
// recurrent bias.
//
//	keras.layers.GRUCell(64)  ->  layers.NewGRUCell(64)
type GRUCell struct{ cellCore }

// gruCellKeys are the options GRUCell takes.
var gruCellKeys = []string{"activation", "recurrent_activation", "use_bias", "kernel_initializer",
	"recurrent_initializer", "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
	"bias_regularizer", "dropout", "recurrent_dropout", "reset_after", "seed"}

// NewGRUCell makes a GRUCell of the given units. Options: those of
// [NewLSTMCell] but WithUnitForgetBias, and WithResetAfter (default true).
func NewGRUCell(units int, opts ...Option) *GRUCell {
	cfg, err := newConfig("GRUCell", gruCellKeys, opts)
	return newGRUCell(units, "", cfg, err)
}

func newGRUCell(units int, owner string, cfg *config, err error) *GRUCell {
	c := &GRUCell{}
	c.initCell("GRUCell", owner, units, 3, cfg, err)
	return c
}

func (c *GRUCell) resetAfter() bool { return !c.cfg.set["reset_after"] || c.cfg.rnn.resetAfter }

// Build implements Cell.
func (c *GRUCell) Build(in []ops.Shape) error {
	if err := c.buildKernels(in); err != nil {
		return err
	}
	if c.cfg.useBias {
		s := ops.Shape{3 * c.units}
		if c.resetAfter() {
			s = ops.Shape{2, 3 * c.units}
		}
		c.Bias = c.AddWeight("bias", s, c.biasInit(), true, c.cfg.biasReg)
	}
	c.built = true
	return nil
}

// Step implements Cell.
func (c *GRUCell) Step(x ops.Tensor, states []ops.Tensor, _ bool) (ops.Tensor, []ops.Tensor) {
	c.checkStep(x, states, c.StateSize())
	return stepVia(c, x, states)
}

// biases returns the input bias and (with reset_after) the recurrent one.
func (c *GRUCell) biases(tr *ops.Trace) (in, rec ops.Tensor) {
	if c.Bias == nil {
		return
	}
	b := tr.Read(c.Bias)
	if !c.resetAfter() {
		return b, rec
	}
	g := 3 * c.units
	return ops.Reshape(ops.Slice(b, []int{0, 0}, []int{1, g}), ops.Shape{g}),
		ops.Reshape(ops.Slice(b, []int{1, 0}, []int{1, g}), ops.Shape{g})
}

func (c *GRUCell) project(x ops.Tensor) ops.Tensor {
	in, _ := c.biases(x.Trace())
	return c.projectWith(x, in)
}

func (c *GRUCell) stepProjected(xp ops.Tensor, states []ops.Tensor, hr ops.Tensor) (ops.Tensor, []ops.Tensor) {
	tr := xp.Trace()
	h := states[0]
	u := c.units
	rk := tr.Read(c.RecurrentKernel)
	var z, r, hh ops.Tensor
	if c.resetAfter() {
		inner := ops.MatMul(hr, rk, false, false)
		if _, rb := c.biases(tr); !rb.IsNone() {
			inner = ops.BiasAdd(inner, rb)
		}
		zr := activate(c.recAct, ops.Add(ops.Slice(xp, []int{0, 0}, []int{-1, 2 * u}), ops.Slice(inner, []int{0, 0}, []int{-1, 2 * u})))
		z, r = c.gate(zr, 0), c.gate(zr, 1)
		hh = activate(c.act, ops.Add(c.gate(xp, 2), ops.Mul(r, c.gate(inner, 2))))
	} else {
		inner := ops.MatMul(hr, ops.Slice(rk, []int{0, 0}, []int{-1, 2 * u}), false, false)
		zr := activate(c.recAct, ops.Add(ops.Slice(xp, []int{0, 0}, []int{-1, 2 * u}), inner))
		z, r = c.gate(zr, 0), c.gate(zr, 1)
		rh := ops.MatMul(ops.Mul(r, hr), ops.Slice(rk, []int{0, 2 * u}, []int{-1, u}), false, false)
		hh = activate(c.act, ops.Add(c.gate(xp, 2), rh))
	}
	// h' = z*h + (1-z)*ĥ = ĥ + z*(h-ĥ)
	hNew := ops.Add(hh, ops.Mul(z, ops.Sub(h, hh)))
	return hNew, []ops.Tensor{hNew}
}

// GetConfig implements Cell.
func (c *GRUCell) GetConfig() map[string]any {
	m := c.cellConfig()
	m["recurrent_activation"] = c.recActName
	m["reset_after"] = c.resetAfter()
	return m
}

// GRU is keras.layers.GRU: an [RNN] over a [GRUCell] (reset_after=True
// by default, with an input and a recurrent bias), on inputs of shape
// (batch, timesteps, features). Parameters with reset_after:
// 3*(units*(features+units)+2*units).
//
//	keras.layers.GRU(64, return_sequences=True)  ->  layers.NewGRU(64, layers.WithReturnSequences(true))
type GRU struct {
	RNN
	Cell *GRUCell
}

// NewGRU makes a GRU layer of the given units. Options: those of
// [NewGRUCell] and of the recurrent layers (see [NewLSTM]).
func NewGRU(units int, opts ...Option) *GRU {
	l := &GRU{}
	l.init("GRU", append(append([]string(nil), gruCellKeys...), rnnKeys...), opts)
	l.Cell = newGRUCell(units, l.name, l.cfg, l.err)
	l.err = l.Cell.err
	l.initRNN(l.Cell)
	return l
}

// GetConfig implements Layer: the cell's keys and the RNN's, flat, as Keras.
func (l *GRU) GetConfig() map[string]any { return l.flatConfig(l.Cell.GetConfig()) }
