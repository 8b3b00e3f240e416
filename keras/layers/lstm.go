package layers

import (
	"math/rand/v2"

	"github.com/gokeras/gokeras/ops"
)

// LSTMCell is keras.layers.LSTMCell, one timestep of [LSTM]: with
// z = x·kernel + h·recurrent_kernel + bias split into the gates i, f, c,
// o (in that order, units each),
//
//	i = σ(z_i), f = σ(z_f), o = σ(z_o)      (σ: recurrent_activation, sigmoid)
//	c' = f*c + i*act(z_c), h' = o*act(c')  (act: activation, tanh)
//
// The states are [h, c]; the output is h'. kernel is (features, 4*units),
// recurrent_kernel (units, 4*units), bias (4*units), its forget part
// starting at 1 with unit_forget_bias (Keras' default).
//
//	keras.layers.LSTMCell(64)  ->  layers.NewLSTMCell(64)
type LSTMCell struct{ cellCore }

// lstmCellKeys are the options LSTMCell takes.
var lstmCellKeys = []string{"activation", "recurrent_activation", "use_bias", "kernel_initializer",
	"recurrent_initializer", "bias_initializer", "unit_forget_bias", "kernel_regularizer",
	"recurrent_regularizer", "bias_regularizer", "dropout", "recurrent_dropout", "seed"}

// NewLSTMCell makes an LSTMCell of the given units. Options: WithActivation
// (default tanh), WithRecurrentActivation (sigmoid), WithUseBias,
// WithKernelInitializer, WithRecurrentInitializer, WithBiasInitializer,
// WithUnitForgetBias, WithKernelRegularizer, WithRecurrentRegularizer,
// WithBiasRegularizer, WithInputDropout, WithRecurrentDropout, WithSeed,
// WithName.
func NewLSTMCell(units int, opts ...Option) *LSTMCell {
	cfg, err := newConfig("LSTMCell", lstmCellKeys, opts)
	return newLSTMCell(units, "", cfg, err)
}

func newLSTMCell(units int, owner string, cfg *config, err error) *LSTMCell {
	c := &LSTMCell{}
	c.initCell("LSTMCell", owner, units, 4, cfg, err)
	return c
}

func (c *LSTMCell) unitForgetBias() bool {
	return !c.cfg.set["unit_forget_bias"] || c.cfg.rnn.unitForgetBias
}

// Build implements Cell.
func (c *LSTMCell) Build(in []ops.Shape) error {
	if err := c.buildKernels(in); err != nil {
		return err
	}
	if c.cfg.useBias {
		var bi Initializer = c.biasInit()
		if c.unitForgetBias() {
			bi = forgetBiasInit{inner: bi, units: c.units}
		}
		c.Bias = c.AddWeight("bias", ops.Shape{4 * c.units}, bi, true, c.cfg.biasReg)
	}
	c.built = true
	return nil
}

// StateSize implements Cell: [units, units] for h and c.
func (c *LSTMCell) StateSize() []int { return []int{c.units, c.units} }

// Step implements Cell.
func (c *LSTMCell) Step(x ops.Tensor, states []ops.Tensor, _ bool) (ops.Tensor, []ops.Tensor) {
	c.checkStep(x, states, c.StateSize())
	return stepVia(c, x, states)
}

func (c *LSTMCell) project(x ops.Tensor) ops.Tensor {
	var b ops.Tensor
	if c.Bias != nil {
		b = x.Trace().Read(c.Bias)
	}
	return c.projectWith(x, b)
}

func (c *LSTMCell) stepProjected(xp ops.Tensor, states []ops.Tensor, hr ops.Tensor) (ops.Tensor, []ops.Tensor) {
	tr := xp.Trace()
	z := ops.Add(xp, ops.MatMul(hr, tr.Read(c.RecurrentKernel), false, false))
	i := activate(c.recAct, c.gate(z, 0))
	f := activate(c.recAct, c.gate(z, 1))
	g := activate(c.act, c.gate(z, 2))
	o := activate(c.recAct, c.gate(z, 3))
	cNew := ops.Add(ops.Mul(f, states[1]), ops.Mul(i, g))
	h := ops.Mul(o, activate(c.act, cNew))
	return h, []ops.Tensor{h, cNew}
}

// GetConfig implements Cell.
func (c *LSTMCell) GetConfig() map[string]any {
	m := c.cellConfig()
	m["recurrent_activation"] = c.recActName
	m["unit_forget_bias"] = c.unitForgetBias()
	return m
}

// forgetBiasInit is LSTM's bias with unit_forget_bias: inner for the
// input gate, ones for the forget gate, inner for the other two.
type forgetBiasInit struct {
	inner Initializer
	units int
}

func (f forgetBiasInit) Name() string { return f.inner.Name() }

func (f forgetBiasInit) Init(_ ops.Shape, rng *rand.Rand) []float32 {
	u := f.units
	out := append([]float32(nil), f.inner.Init(ops.Shape{u}, rng)...)
	for range u {
		out = append(out, 1)
	}
	return append(out, f.inner.Init(ops.Shape{2 * u}, rng)...)
}

// LSTM is keras.layers.LSTM: an [RNN] over an [LSTMCell], on inputs of
// shape (batch, timesteps, features). It returns the last output
// (batch, units), or every output (batch, timesteps, units) with
// return_sequences. The input product of all timesteps is one GEMM before
// the time loop; each timestep is one GEMM of h by the recurrent kernel
// with the four gates side by side. Parameters: 4*(units*(features+units)+units).
//
//	keras.layers.LSTM(128, return_sequences=True)  ->  layers.NewLSTM(128, layers.WithReturnSequences(true))
type LSTM struct {
	RNN
	Cell *LSTMCell
}

// NewLSTM makes an LSTM layer of the given units. Options: those of
// [NewLSTMCell] and WithReturnSequences, WithReturnState, WithGoBackwards,
// WithStateful, WithUnroll, WithZeroOutputForMask, WithInputShape, WithName.
func NewLSTM(units int, opts ...Option) *LSTM {
	l := &LSTM{}
	l.init("LSTM", append(append([]string(nil), lstmCellKeys...), rnnKeys...), opts)
	l.Cell = newLSTMCell(units, l.name, l.cfg, l.err)
	l.err = l.Cell.err
	l.initRNN(l.Cell)
	return l
}

// GetConfig implements Layer: the cell's keys and the RNN's, flat, as Keras.
func (l *LSTM) GetConfig() map[string]any { return l.flatConfig(l.Cell.GetConfig()) }
