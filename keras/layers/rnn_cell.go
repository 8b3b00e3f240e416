package layers

import (
	"fmt"
	"math/rand/v2"

	"github.com/gokeras/gokeras/ops"
)

// Cell is one timestep of a recurrent layer, Keras' RNN cell: the
// [RNN] layer calls Step once per timestep, passing each step's output
// states on to the next. A user's cell embeds [Base] (for its name,
// weights and config, made with [NewBase] and [Base.AddWeight]) and
// writes Build, StateSize and Step:
//
//	class MinimalRNNCell(keras.layers.Layer):      type MinimalCell struct {
//	    def __init__(self, units): ...                 layers.Base; units int; k, r *ops.Variable }
//	    state_size = units                         func (c *MinimalCell) StateSize() []int { return []int{c.units} }
//	    def build(self, input_shape): ...          func (c *MinimalCell) Build(in []ops.Shape) error { ...AddWeight... }
//	    def call(self, inputs, states):            func (c *MinimalCell) Step(x ops.Tensor, s []ops.Tensor, _ bool) (ops.Tensor, []ops.Tensor)
//	keras.layers.RNN(MinimalRNNCell(32))      ->   layers.NewRNN(&MinimalCell{Base: layers.NewBase("MinimalCell"), units: 32})
type Cell interface {
	Name() string
	ClassName() string
	// Build creates the cell's weights for step inputs of shape
	// (batch -1, features), as Keras' cell.build.
	Build(inputShapes []ops.Shape) error
	// StateSize is Keras' state_size: the width of each state; the
	// output has the width of the first.
	StateSize() []int
	// Step is Keras' cell.call(inputs, states): the output and the new
	// states of one timestep for inputs of shape (batch, features) and
	// states of shapes (batch, StateSize()[i]).
	Step(inputs ops.Tensor, states []ops.Tensor, training bool) (ops.Tensor, []ops.Tensor)
	Weights() []*ops.Variable
	TrainableWeights() []*ops.Variable
	NonTrainableWeights() []*ops.Variable
	SetTrainable(bool)
	RegularizationLosses(tr *ops.Trace) []ops.Tensor
	GetConfig() map[string]any
	Err() error
}

// projectedCell is a built-in cell whose input product is the same for
// every timestep: the RNN computes it for all timesteps in one GEMM
// before the loop, and each step does one recurrent GEMM with the gates
// side by side.
type projectedCell interface {
	Cell
	// project returns x·kernel (+ the input bias) for x of shape (n, features).
	project(x ops.Tensor) ops.Tensor
	// stepProjected is one timestep given the input product xp
	// (batch, gates*units); hr is the previous output after recurrent
	// dropout, for the recurrent product.
	stepProjected(xp ops.Tensor, states []ops.Tensor, hr ops.Tensor) (ops.Tensor, []ops.Tensor)
	dropoutRates() (input, recurrent float64)
}

// cellCore is what SimpleRNNCell, LSTMCell and GRUCell share: units, the
// activations, the kernel (features, gates*units), the recurrent kernel
// (units, gates*units) and the bias.
type cellCore struct {
	Base
	units           int
	gates           int
	act, recAct     func(ops.Tensor) ops.Tensor
	actName         string
	recActName      string
	Kernel          *ops.Variable
	RecurrentKernel *ops.Variable
	Bias            *ops.Variable
}

// cellKeys are the options every built-in cell takes.
var cellKeys = []string{"activation", "recurrent_activation", "use_bias", "kernel_initializer",
	"recurrent_initializer", "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
	"bias_regularizer", "dropout", "recurrent_dropout", "seed", "unit_forget_bias", "reset_after"}

// rnnKeys are the options the recurrent layers take besides their cell's.
var rnnKeys = []string{"return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask"}

// initCell sets up a built-in cell of the given class from a parsed config.
// A cell of a layer is named "<layer>/<snake class>" (owner), as Keras
// names its weights "lstm/lstm_cell/kernel"; a standalone cell gets a
// unique name of its own (owner "").
func (c *cellCore) initCell(class, owner string, units, gates int, cfg *config, err error) {
	c.class = class
	c.cfg, c.err = cfg, err
	c.trainable = cfg.trainable
	switch {
	case owner != "":
		c.name = owner + "/" + snake(class)
	case cfg.name != "":
		c.name = cfg.name
	default:
		c.name = UniqueName(snake(class))
	}
	seed := nextSeed()
	if cfg.hasSeed {
		seed = uint64(cfg.seed)
	}
	c.rng = rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
	c.units, c.gates = units, gates
	if units <= 0 && c.err == nil {
		c.err = fmt.Errorf("layers: %s: units must be positive, got %d", class, units)
	}
	c.actName = "tanh"
	if cfg.set["activation"] {
		c.actName = actName(cfg.activation)
	}
	c.recActName = "sigmoid"
	if cfg.set["recurrent_activation"] {
		c.recActName = actName(cfg.rnn.recurrentActivation)
	}
	var e error
	if c.act, e = activationFn(c.actName); e != nil && c.err == nil {
		c.err = fmt.Errorf("layers: %s: %w", class, e)
	}
	if c.recAct, e = activationFn(c.recActName); e != nil && c.err == nil {
		c.err = fmt.Errorf("layers: %s: recurrent_activation: %w", class, e)
	}
	for _, r := range []float64{cfg.rnn.dropout, cfg.rnn.recurrentDropout} {
		if (r < 0 || r >= 1) && c.err == nil {
			c.err = fmt.Errorf("layers: %s: dropout rates must be in [0, 1), got %v", class, r)
		}
	}
}

// buildKernels adds the kernel and the recurrent kernel for inputs of
// shape (batch, features).
func (c *cellCore) buildKernels(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 2 || in[0][1] <= 0 {
		return fmt.Errorf("%s needs step inputs of shape (batch, features), got %v", c.class, shapesStr(in))
	}
	ki, ri := c.cfg.kernelInit, c.cfg.rnn.recurrentInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if ri == nil {
		ri = Orthogonal(1)
	}
	c.Kernel = c.AddWeight("kernel", ops.Shape{in[0][1], c.gates * c.units}, ki, true, c.cfg.kernelReg)
	c.RecurrentKernel = c.AddWeight("recurrent_kernel", ops.Shape{c.units, c.gates * c.units}, ri, true, c.cfg.rnn.recurrentReg)
	return nil
}

func (c *cellCore) biasInit() Initializer {
	if c.cfg.biasInit == nil {
		return Zeros()
	}
	return c.cfg.biasInit
}

// StateSize implements Cell.
func (c *cellCore) StateSize() []int { return []int{c.units} }

func (c *cellCore) dropoutRates() (float64, float64) {
	return c.cfg.rnn.dropout, c.cfg.rnn.recurrentDropout
}

// checkStep panics unless x is (batch, features) for the built kernel
// and the states match the state sizes.
func (c *cellCore) checkStep(x ops.Tensor, states []ops.Tensor, sizes []int) {
	if c.Kernel == nil {
		panic(&ops.Error{Op: c.class + " " + c.name, Msg: "the cell is not built"})
	}
	f := c.Kernel.Shape()[0]
	if s := x.Shape(); len(s) != 2 || s[1] != f {
		panic(&ops.Error{Op: c.class + " " + c.name, Msg: fmt.Sprintf("step input of shape %v, want (batch, %d)", s, f)})
	}
	if len(states) != len(sizes) {
		panic(&ops.Error{Op: c.class + " " + c.name, Msg: fmt.Sprintf("%d states, want %d", len(states), len(sizes))})
	}
	for i, s := range states {
		if sh := s.Shape(); len(sh) != 2 || sh[0] != x.Shape()[0] || sh[1] != sizes[i] {
			panic(&ops.Error{Op: c.class + " " + c.name, Msg: fmt.Sprintf("state %d of shape %v, want (%d, %d)", i, sh, x.Shape()[0], sizes[i])})
		}
	}
}

// project implements projectedCell: x·kernel plus the bias (its input
// row for GRU with reset_after).
func (c *cellCore) projectWith(x ops.Tensor, bias ops.Tensor) ops.Tensor {
	tr := x.Trace()
	y := ops.MatMul(x, tr.Read(c.Kernel), false, false)
	if !bias.IsNone() {
		y = ops.BiasAdd(y, bias)
	}
	return y
}

// gate returns columns [i*units, (i+1)*units) of z (batch, gates*units).
func (c *cellCore) gate(z ops.Tensor, i int) ops.Tensor {
	return ops.Slice(z, []int{0, i * c.units}, []int{-1, c.units})
}

// cellConfig returns the config keys every built-in cell reports.
func (c *cellCore) cellConfig() map[string]any {
	m := c.baseConfig()
	m["units"] = c.units
	m["activation"] = c.actName
	m["use_bias"] = c.cfg.useBias
	m["kernel_initializer"] = initName(c.cfg.kernelInit, "GlorotUniform")
	m["recurrent_initializer"] = initName(c.cfg.rnn.recurrentInit, "Orthogonal")
	if c.cfg.rnn.recurrentInit == nil {
		m["recurrent_initializer"] = initName(Orthogonal(1), "Orthogonal")
	}
	m["bias_initializer"] = initName(c.cfg.biasInit, "Zeros")
	m["kernel_regularizer"] = regConfig(c.cfg.kernelReg)
	m["recurrent_regularizer"] = regConfig(c.cfg.rnn.recurrentReg)
	m["bias_regularizer"] = regConfig(c.cfg.biasReg)
	m["dropout"] = c.cfg.rnn.dropout
	m["recurrent_dropout"] = c.cfg.rnn.recurrentDropout
	m["seed"] = nil
	if c.cfg.hasSeed {
		m["seed"] = c.cfg.seed
	}
	return m
}

// stepVia runs a projected cell's Step: the input product, then the
// recurrent step (no dropout: the RNN layer draws the masks of a
// sequence).
func stepVia(c projectedCell, x ops.Tensor, states []ops.Tensor) (ops.Tensor, []ops.Tensor) {
	return c.stepProjected(c.project(x), states, states[0])
}
