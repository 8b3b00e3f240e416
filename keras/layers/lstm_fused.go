package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// fusedMode selects how LSTM and GRU (reset_after) layers with Keras'
// default activations run their time loop: "auto" (the default) through
// ops.LSTMSequence / ops.GRUSequence (one op, hand-written BPTT) from
// fusedMinSteps timesteps on and unrolled into the graph below, "on"
// always fused, "off" always unrolled. Tests and benchmarks switch it.
var fusedMode = "auto"

// fusedMinSteps is where the fused op starts to pay: measured in CPU time
// per training step, it is 20% faster at 50 timesteps and a little slower
// than the unrolled graph at 4 to 7 (keras/layers/lstm_bench_test.go,
// examples/addition_rnn's BenchmarkTrainStep).
const fusedMinSteps = 16

// useFusedLSTM reports whether an LSTM of this many timesteps runs fused.
func useFused(steps int) bool {
	switch fusedMode {
	case "on":
		return true
	case "off":
		return false
	}
	return steps >= fusedMinSteps
}

// runFusedLSTM is run for an LSTM cell through ops.LSTMSequence: the
// input product of every timestep in one GEMM, then the whole time loop
// (and its backward pass) in one op. Masked steps keep h and c; the
// states start at zero whenever there is a mask, so the output carried
// through a masked step equals the carried h, as the unrolled loop's.
func (l *RNN) runFusedLSTM(c *LSTMCell, x ops.Tensor, states []ops.Tensor, kept []*ops.Variable, mask ops.Tensor, training bool) (ops.Tensor, []ops.Tensor) {
	s := x.Shape()
	b, steps, feat := s[0], s[1], s[2]
	u := c.units
	tr := x.Trace()
	o := l.cfg.rnn
	xin := x
	if training && c.cfg.rnn.dropout > 0 {
		ones := tr.Constant(ops.Shape{b, 1, feat}, filled(b*feat, 1))
		xin = ops.Mul(x, ops.Dropout(ones, float32(c.cfg.rnn.dropout)))
	}
	xp := ops.Reshape(c.project(ops.Reshape(xin, ops.Shape{b * steps, feat})), ops.Shape{b, steps, 4 * u})
	m := mask
	if m.IsNone() {
		m = tr.Constant(ops.Shape{b, steps}, filled(b*steps, 1))
	}
	if o.goBackwards {
		xp = ops.Reverse(xp, 1)
		m = ops.Reverse(m, 1)
	}
	packed := ops.LSTMSequence(xp, tr.Read(c.RecurrentKernel), states[0], states[1], m)
	last := func(off int) ops.Tensor {
		return ops.Reshape(ops.Slice(packed, []int{0, steps - 1, off * u}, []int{b, 1, u}), ops.Shape{b, u})
	}
	final := []ops.Tensor{last(5), last(4)}
	zero := !mask.IsNone() && o.zeroOutputForMask
	var y ops.Tensor
	if o.returnSequences {
		y = ops.Slice(packed, []int{0, 0, 5 * u}, []int{b, steps, u})
		if zero {
			y = ops.Mul(y, ops.Reshape(m, ops.Shape{b, steps, 1}))
		}
		if !mask.IsNone() {
			SetMask(y, mask)
		}
	} else {
		y = final[0]
		if zero {
			y = ops.Mul(y, ops.Slice(m, []int{0, steps - 1}, []int{b, 1}))
		}
	}
	l.keepStates(tr, kept, final)
	return y, final
}

// unstackTime returns the timesteps [lo, hi) of x (b, steps, g) as
// (b, g) tensors. It slices by halves, so that the gradient of x (each
// slice's gradient is padded back to the size it was cut from, and the
// pads summed) costs O(steps log steps) values, not O(steps²) as one
// slice per timestep of the whole would.
func unstackTime(x ops.Tensor, lo, hi int) []ops.Tensor {
	s := x.Shape()
	if hi-lo == 1 {
		return []ops.Tensor{ops.Reshape(ops.Slice(x, []int{0, lo, 0}, []int{s[0], 1, s[2]}), ops.Shape{s[0], s[2]})}
	}
	mid := (lo + hi) / 2
	left := ops.Slice(x, []int{0, lo, 0}, []int{s[0], mid - lo, s[2]})
	right := ops.Slice(x, []int{0, mid, 0}, []int{s[0], hi - mid, s[2]})
	return append(unstackTime(left, 0, mid-lo), unstackTime(right, 0, hi-mid)...)
}

// runFusedGRU is run for a GRU cell with reset_after through
// ops.GRUSequence, as runFusedLSTM for LSTM.
func (l *RNN) runFusedGRU(c *GRUCell, x ops.Tensor, states []ops.Tensor, kept []*ops.Variable, mask ops.Tensor, training bool) (ops.Tensor, []ops.Tensor) {
	s := x.Shape()
	b, steps, feat := s[0], s[1], s[2]
	u := c.units
	tr := x.Trace()
	o := l.cfg.rnn
	xin := x
	if training && c.cfg.rnn.dropout > 0 {
		ones := tr.Constant(ops.Shape{b, 1, feat}, filled(b*feat, 1))
		xin = ops.Mul(x, ops.Dropout(ones, float32(c.cfg.rnn.dropout)))
	}
	xp := ops.Reshape(c.project(ops.Reshape(xin, ops.Shape{b * steps, feat})), ops.Shape{b, steps, 3 * u})
	_, rb := c.biases(tr)
	if rb.IsNone() {
		rb = tr.Constant(ops.Shape{3 * u}, make([]float32, 3*u))
	}
	m := mask
	if m.IsNone() {
		m = tr.Constant(ops.Shape{b, steps}, filled(b*steps, 1))
	}
	if o.goBackwards {
		xp = ops.Reverse(xp, 1)
		m = ops.Reverse(m, 1)
	}
	packed := ops.GRUSequence(xp, tr.Read(c.RecurrentKernel), rb, states[0], m)
	final := []ops.Tensor{ops.Reshape(ops.Slice(packed, []int{0, steps - 1, 4 * u}, []int{b, 1, u}), ops.Shape{b, u})}
	zero := !mask.IsNone() && o.zeroOutputForMask
	var y ops.Tensor
	if o.returnSequences {
		y = ops.Slice(packed, []int{0, 0, 4 * u}, []int{b, steps, u})
		if zero {
			y = ops.Mul(y, ops.Reshape(m, ops.Shape{b, steps, 1}))
		}
		if !mask.IsNone() {
			SetMask(y, mask)
		}
	} else {
		y = final[0]
		if zero {
			y = ops.Mul(y, ops.Slice(m, []int{0, steps - 1}, []int{b, 1}))
		}
	}
	l.keepStates(tr, kept, final)
	return y, final
}
