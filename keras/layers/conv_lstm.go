package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// ConvLSTM is keras.layers.ConvLSTM2D (and ConvLSTM1D): an LSTM whose
// input and recurrent products are convolutions, over inputs of shape
// (batch, timesteps, rows, cols, channels) (ConvLSTM1D: (batch,
// timesteps, steps, channels)). With z = conv(x, kernel) + bias +
// conv(h, recurrent_kernel) split along the channels into the gates i,
// f, c, o (filters each),
//
//	i = σ(z_i), f = σ(z_f), o = σ(z_o)      (σ: recurrent_activation, sigmoid)
//	c' = f*c + i*act(z_c), h' = o*act(c')  (act: activation, tanh)
//
// The input convolution has the layer's strides, padding and
// dilation_rate; the recurrent one stride 1 and "same" padding, so the
// states h and c have the shape of the input convolution's output. The
// layer returns the last h, or every h with return_sequences. Its weights
// are Keras': kernel (kh, kw, channels, 4*filters), recurrent_kernel
// (kh, kw, filters, 4*filters) and bias (4*filters), the forget part
// starting at 1 with unit_forget_bias (Keras' default); ConvLSTM1D's
// kernels drop kh. Keras saves them in the layer's "cell", as gokeras
// does. In Python and in Go:
//
//	keras.layers.ConvLSTM2D(16, 3, padding="same", return_sequences=True)
//
//	layers.NewConvLSTM2D(16, 3, layers.WithPadding("same"), layers.WithReturnSequences(true))
//
// The input convolution of every timestep is one convolution before the
// time loop; each timestep convolves h once, for the four gates at once.
// A timestep mask on the input ([Mask]) makes masked steps keep the
// previous states and output, as Keras. stateful is not supported.
type ConvLSTM struct {
	Base
	rank            int // 1 or 2
	filters         int
	kernel          [2]int // (1, k) for ConvLSTM1D
	attrs           ops.Conv2DAttrs
	act, recAct     func(ops.Tensor) ops.Tensor
	actName         string
	recActName      string
	Kernel          *ops.Variable
	RecurrentKernel *ops.Variable
	Bias            *ops.Variable
	cell            *convLSTMCell
}

// convLSTMKeys are the options the ConvLSTM layers take.
var convLSTMKeys = []string{"kernel_size", "strides", "padding", "dilation_rate", "activation", "recurrent_activation",
	"use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer", "unit_forget_bias",
	"kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
	"bias_constraint", "dropout", "recurrent_dropout", "seed", "return_sequences", "return_state", "go_backwards",
	"stateful", "unroll", "zero_output_for_mask"}

// NewConvLSTM2D makes a ConvLSTM2D layer of filters output channels and a
// square kernel of kernelSize (WithKernelSize sets height and width
// apart). Options: WithKernelSize, WithStrides, WithPadding,
// WithDilationRate, WithActivation (default tanh),
// WithRecurrentActivation (sigmoid), WithUseBias, WithKernelInitializer,
// WithRecurrentInitializer, WithBiasInitializer, WithUnitForgetBias, the
// regularizers and constraints of the kernel, the recurrent kernel and
// the bias, WithInputDropout, WithRecurrentDropout, WithSeed,
// WithReturnSequences, WithReturnState, WithGoBackwards, WithUnroll,
// WithZeroOutputForMask, WithInputShape, WithName.
func NewConvLSTM2D(filters, kernelSize int, opts ...Option) *ConvLSTM {
	return newConvLSTM("ConvLSTM2D", 2, filters, kernelSize, opts)
}

// NewConvLSTM1D makes a ConvLSTM1D layer: [NewConvLSTM2D] over inputs of
// shape (batch, timesteps, steps, channels), with a kernel of kernelSize
// steps.
func NewConvLSTM1D(filters, kernelSize int, opts ...Option) *ConvLSTM {
	return newConvLSTM("ConvLSTM1D", 1, filters, kernelSize, opts)
}

func newConvLSTM(class string, rank, filters, kernelSize int, opts []Option) *ConvLSTM {
	l := &ConvLSTM{rank: rank, filters: filters}
	l.init(class, convLSTMKeys, opts)
	var errs []error
	var err error
	if rank == 1 {
		var k, s, d int
		k, s, d, err = window1D(l.cfg, kernelSize)
		l.kernel, l.attrs.Strides, l.attrs.Dilations = [2]int{1, k}, [2]int{1, s}, [2]int{1, d}
		errs = append(errs, err)
	} else {
		ks := []int{kernelSize}
		if l.cfg.kernelSize != nil {
			ks = l.cfg.kernelSize
		}
		l.kernel, err = pair("kernel_size", ks, 0)
		errs = append(errs, err)
		l.attrs.Strides, err = pair("strides", l.cfg.strides, 1)
		errs = append(errs, err)
		l.attrs.Dilations, err = pair("dilation_rate", l.cfg.dilation, 1)
		errs = append(errs, err)
		if l.kernel[0] <= 0 || l.kernel[1] <= 0 {
			errs = append(errs, fmt.Errorf("kernel_size %v must be positive", ks))
		}
		if (l.attrs.Strides != [2]int{1, 1}) && (l.attrs.Dilations != [2]int{1, 1}) {
			errs = append(errs, fmt.Errorf("strides > 1 with dilation_rate > 1 is not supported (as in Keras)"))
		}
	}
	l.attrs.Padding = l.cfg.padding
	l.actName, l.recActName = "tanh", "sigmoid"
	if l.cfg.set["activation"] {
		l.actName = actName(l.cfg.activation)
	}
	if l.cfg.set["recurrent_activation"] {
		l.recActName = actName(l.cfg.rnn.recurrentActivation)
	}
	l.act, err = activationFn(l.actName)
	errs = append(errs, err)
	l.recAct, err = activationFn(l.recActName)
	if err != nil {
		errs = append(errs, fmt.Errorf("recurrent_activation: %w", err))
	}
	if filters <= 0 {
		errs = append(errs, fmt.Errorf("filters must be positive, got %d", filters))
	}
	for _, r := range []float64{l.cfg.rnn.dropout, l.cfg.rnn.recurrentDropout} {
		if r < 0 || r >= 1 {
			errs = append(errs, fmt.Errorf("dropout rates must be in [0, 1), got %v", r))
		}
	}
	if l.cfg.rnn.stateful {
		errs = append(errs, fmt.Errorf("stateful = true is not supported"))
	}
	for _, e := range errs {
		if e != nil && l.err == nil {
			l.err = fmt.Errorf("layers: %s %q: %w", class, l.name, e)
		}
	}
	l.cell = &convLSTMCell{l: l}
	l.cell.class, l.cell.name, l.cell.trainable = "ConvLSTMCell", "conv_lstm_cell", true
	return l
}

func (l *ConvLSTM) where() string { return fmt.Sprintf("layer %q (%s)", l.name, l.class) }

func (l *ConvLSTM) unitForgetBias() bool {
	return !l.cfg.set["unit_forget_bias"] || l.cfg.rnn.unitForgetBias
}

// Build implements Layer: one input of rank 5 (ConvLSTM1D: 4) with known
// spatial dimensions and channels, as Keras requires.
func (l *ConvLSTM) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != l.rank+3 {
		return fmt.Errorf("needs one input of rank %d (batch, timesteps, %s, channels), got %v", l.rank+3,
			map[int]string{1: "steps", 2: "rows, cols"}[l.rank], shapesStr(in))
	}
	for _, d := range in[0][2:] {
		if d <= 0 {
			return fmt.Errorf("the spatial dimensions and the channels of %v must be known", in[0])
		}
	}
	s := l.imageShape(in[0])
	for i := 0; i < 2; i++ {
		if _, _, err := ops.ConvOutputSize(s[i+2], l.kernel[i], l.attrs.Strides[i], l.attrs.Dilations[i], l.attrs.Padding); err != nil {
			return fmt.Errorf("input %v: %w", in[0], err)
		}
	}
	ch := s[4]
	ki, ri, bi := l.cfg.kernelInit, l.cfg.rnn.recurrentInit, l.cfg.biasInit
	if ki == nil {
		ki = GlorotUniform()
	}
	if ri == nil {
		ri = Orthogonal(1)
	}
	if bi == nil {
		bi = Zeros()
	}
	lead := ops.Shape{l.kernel[0], l.kernel[1]}
	if l.rank == 1 {
		lead = ops.Shape{l.kernel[1]}
	}
	l.Kernel = l.AddWeight("kernel", append(lead.Clone(), ch, 4*l.filters), ki, true, l.cfg.kernelReg)
	l.RecurrentKernel = l.AddWeight("recurrent_kernel", append(lead.Clone(), l.filters, 4*l.filters), ri, true, l.cfg.rnn.recurrentReg)
	if l.cfg.useBias {
		if l.unitForgetBias() {
			bi = forgetBiasInit{inner: bi, units: l.filters}
		}
		l.Bias = l.AddWeight("bias", ops.Shape{4 * l.filters}, bi, true, l.cfg.biasReg)
	}
	l.built = true
	return nil
}

// imageShape is the input shape as (batch, timesteps, rows, cols,
// channels): ConvLSTM1D's steps are one row.
func (l *ConvLSTM) imageShape(s ops.Shape) ops.Shape {
	if l.rank == 1 {
		return ops.Shape{s[0], s[1], 1, s[2], s[3]}
	}
	return s.Clone()
}

// kernel4 reads a kernel as the 4-D kernel of ops.Conv2D.
func (l *ConvLSTM) kernel4(tr *ops.Trace, v *ops.Variable) ops.Tensor {
	k := tr.Read(v)
	if l.rank == 1 {
		s := v.Shape()
		k = ops.Reshape(k, ops.Shape{1, s[0], s[1], s[2]})
	}
	return k
}

// Call implements Layer: the output; see CallWithStates for the states.
func (l *ConvLSTM) Call(in []ops.Tensor, training bool) ops.Tensor {
	if len(in) != 1 {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("takes 1 input, got %d", len(in))})
	}
	y, _ := l.CallWithStates(in[0], nil, training)
	return y
}

// CallWithStates is Keras' `output, h, c = layer(x, initial_state=...)`
// with return_state: the output and the final states [h, c], each of the
// shape of one timestep's output. initial nil starts from zeros.
func (l *ConvLSTM) CallWithStates(x ops.Tensor, initial []ops.Tensor, training bool) (ops.Tensor, []ops.Tensor) {
	if !l.built {
		panic(&ops.Error{Op: l.where(), Msg: "called before Build"})
	}
	xs := x.Shape()
	ch := l.Kernel.Shape()[len(l.Kernel.Shape())-2]
	if len(xs) != l.rank+3 || xs[len(xs)-1] != ch {
		panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("input of shape %v, want rank %d with %d channels", xs, l.rank+3, ch)})
	}
	tr := x.Trace()
	s := l.imageShape(xs)
	b, steps, f := s[0], s[1], l.filters
	o := l.cfg.rnn
	x5 := ops.Reshape(x, s)
	if training && o.dropout > 0 {
		ones := tr.Constant(ops.Shape{b, 1, s[2], s[3], s[4]}, filled(b*s[2]*s[3]*s[4], 1))
		x5 = ops.Mul(x5, ops.BroadcastTo(ops.Dropout(ones, float32(o.dropout)), s))
	}
	// The input convolution of every timestep at once.
	xp := ops.Conv2D(ops.Reshape(x5, ops.Shape{b * steps, s[2], s[3], s[4]}), l.kernel4(tr, l.Kernel), l.attrs)
	if l.Bias != nil {
		xp = ops.BiasAdd(xp, tr.Read(l.Bias))
	}
	ps := xp.Shape()
	oh, ow := ps[1], ps[2]
	xp = ops.Reshape(xp, ops.Shape{b, steps, oh, ow, 4 * f})
	state := ops.Shape{b, oh, ow, f}
	outShape := state // of one timestep, as the caller sees it
	if l.rank == 1 {
		outShape = ops.Shape{b, ow, f}
	}

	var states []ops.Tensor
	if initial != nil {
		if len(initial) != 2 {
			panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("%d initial states, want 2 (h, c)", len(initial))})
		}
		for i, st := range initial {
			if !st.Shape().Equal(outShape) {
				panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("initial state %d of shape %v, want %v", i, st.Shape(), outShape)})
			}
			states = append(states, ops.Reshape(st, state))
		}
	} else {
		for range 2 {
			states = append(states, tr.Constant(state, make([]float32, state.Size())))
		}
	}
	mask := Mask(x)
	if !mask.IsNone() {
		if ms := mask.Shape(); len(ms) != 2 || ms[0] != b || ms[1] != steps {
			panic(&ops.Error{Op: l.where(), Msg: fmt.Sprintf("mask of shape %v for input %v", ms, xs)})
		}
	}
	var recMask ops.Tensor
	if training && o.recurrentDropout > 0 {
		recMask = ops.Dropout(tr.Constant(state, filled(state.Size(), 1)), float32(o.recurrentDropout))
	}
	rk := l.kernel4(tr, l.RecurrentKernel)
	recAttrs := ops.Conv2DAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{1, 1}, Padding: "same", Precision: l.attrs.Precision}
	gate := func(z ops.Tensor, i int) ops.Tensor {
		return ops.Slice(z, []int{0, 0, 0, i * f}, []int{-1, -1, -1, f})
	}
	var outs []ops.Tensor
	var prevOut ops.Tensor
	for k := 0; k < steps; k++ {
		t := k
		if o.goBackwards {
			t = steps - 1 - k
		}
		h, c := states[0], states[1]
		hr := h
		if !recMask.IsNone() {
			hr = ops.Mul(hr, recMask)
		}
		xt := ops.Reshape(ops.Slice(xp, []int{0, t, 0, 0, 0}, []int{b, 1, oh, ow, 4 * f}), ops.Shape{b, oh, ow, 4 * f})
		z := ops.Add(xt, ops.Conv2D(hr, rk, recAttrs))
		i := activate(l.recAct, gate(z, 0))
		fg := activate(l.recAct, gate(z, 1))
		g := activate(l.act, gate(z, 2))
		og := activate(l.recAct, gate(z, 3))
		cNew := ops.Add(ops.Mul(fg, c), ops.Mul(i, g))
		hNew := ops.Mul(og, activate(l.act, cNew))
		out, next := hNew, []ops.Tensor{hNew, cNew}
		if !mask.IsNone() {
			m := ops.BroadcastTo(ops.Reshape(ops.Slice(mask, []int{0, t}, []int{b, 1}), ops.Shape{b, 1, 1, 1}), state)
			if prevOut.IsNone() {
				prevOut = tr.Constant(state, make([]float32, state.Size()))
			}
			out = blend(m, out, prevOut)
			for j := range next {
				next[j] = blend(m, next[j], states[j])
			}
		}
		prevOut, states = out, next
		if o.returnSequences {
			outs = append(outs, ops.Reshape(out, ops.Shape{b, 1, oh, ow, f}))
		}
	}
	zero := !mask.IsNone() && o.zeroOutputForMask
	var y ops.Tensor
	if o.returnSequences {
		y = ops.Concat(1, outs...)
		if zero {
			m := mask
			if o.goBackwards {
				m = ops.Reverse(m, 1)
			}
			y = ops.Mul(y, ops.BroadcastTo(ops.Reshape(m, ops.Shape{b, steps, 1, 1, 1}), y.Shape()))
		}
		if l.rank == 1 {
			y = ops.Reshape(y, ops.Shape{b, steps, ow, f})
		}
		if !mask.IsNone() {
			SetMask(y, mask)
		}
	} else {
		y = prevOut
		if zero {
			last := steps - 1
			if o.goBackwards {
				last = 0
			}
			m := ops.Reshape(ops.Slice(mask, []int{0, last}, []int{b, 1}), ops.Shape{b, 1, 1, 1})
			y = ops.Mul(y, ops.BroadcastTo(m, state))
		}
		y = ops.Reshape(y, outShape)
	}
	for j := range states {
		states[j] = ops.Reshape(states[j], outShape)
	}
	return y, states
}
