package layers

import (
	"fmt"
	"sync"

	"github.com/gokeras/gokeras/ops"
)

// RNN is keras.layers.RNN: it runs a [Cell] over the timesteps of a
// (batch, timesteps, features) input, starting from zero states (or the
// previous batch's final states when stateful), and returns the last
// output (batch, units) or, with return_sequences, every output
// (batch, timesteps, units). A timestep mask on the input ([Mask]: from
// Embedding(mask_zero) or Masking) makes masked steps keep the previous
// states and output, as Keras. The loop is unrolled in the trace (traces
// are per input shape). For the built-in cells the input product of all
// timesteps is one GEMM before the loop and each timestep one recurrent
// GEMM with the gates side by side. [LSTM], [GRU] and [SimpleRNN] are RNNs
// over their cells.
//
//	keras.layers.RNN(cell, return_sequences=True)  ->  layers.NewRNN(cell, layers.WithReturnSequences(true))
type RNN struct {
	Base
	cell Cell

	stateMu sync.Mutex
	states  map[int][]*ops.Variable // stateful: the states by batch size
}

// NewRNN makes an RNN layer over cell. Options: WithReturnSequences,
// WithReturnState, WithGoBackwards, WithStateful, WithUnroll,
// WithZeroOutputForMask, WithInputShape, WithName.
func NewRNN(cell Cell, opts ...Option) *RNN {
	l := &RNN{}
	l.init("RNN", rnnKeys, opts)
	if cell == nil {
		if l.err == nil {
			l.err = fmt.Errorf("layers: RNN %q: nil cell", l.name)
		}
		return l
	}
	l.initRNN(cell)
	return l
}

func (l *RNN) initRNN(cell Cell) {
	l.cell = cell
	if l.err == nil && cell.Err() != nil {
		l.err = fmt.Errorf("layers: %s %q: cell: %w", l.class, l.name, cell.Err())
	}
	if l.err == nil && len(cell.StateSize()) == 0 {
		l.err = fmt.Errorf("layers: %s %q: the cell has no state (StateSize is empty)", l.class, l.name)
	}
}

// CellOf returns the layer's cell.
func (l *RNN) CellOf() Cell { return l.cell }

// Build implements Layer: it builds the cell for (batch, features) steps.
func (l *RNN) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 3 || in[0][1] <= 0 || in[0][2] <= 0 {
		return fmt.Errorf("needs one input of shape (batch, timesteps, features), got %v", shapesStr(in))
	}
	if err := l.cell.Build([]ops.Shape{{-1, in[0][2]}}); err != nil {
		return fmt.Errorf("cell %s: %w", l.cell.Name(), err)
	}
	if b, ok := l.cell.(interface{ setBuilt() }); ok {
		b.setBuilt()
	}
	l.cell.SetTrainable(l.trainable)
	l.built = true
	return nil
}

// Weights implements Layer: the cell's weights.
func (l *RNN) Weights() []*ops.Variable { return l.cell.Weights() }

// TrainableWeights implements Layer.
func (l *RNN) TrainableWeights() []*ops.Variable { return l.cell.TrainableWeights() }

// NonTrainableWeights implements Layer.
func (l *RNN) NonTrainableWeights() []*ops.Variable { return l.cell.NonTrainableWeights() }

// SetTrainable implements Layer.
func (l *RNN) SetTrainable(t bool) {
	l.Base.SetTrainable(t)
	l.cell.SetTrainable(t)
}

// RegularizationLosses implements Layer: the cell's penalties.
func (l *RNN) RegularizationLosses(tr *ops.Trace) []ops.Tensor {
	return l.cell.RegularizationLosses(tr)
}

// Call implements Layer: the output; see CallWithStates for the states.
func (l *RNN) Call(in []ops.Tensor, training bool) ops.Tensor {
	if len(in) != 1 {
		panic(&ops.Error{Op: l.class + " " + l.name, Msg: fmt.Sprintf("takes 1 input, got %d", len(in))})
	}
	y, _ := l.CallWithStates(in[0], nil, training)
	return y
}

// CallWithStates is Keras' `output, *states = layer(x, initial_state=...)`
// with return_state: the output and the final states ([h, c] for LSTM).
// initial nil starts from zeros (or the kept states when stateful).
func (l *RNN) CallWithStates(x ops.Tensor, initial []ops.Tensor, training bool) (ops.Tensor, []ops.Tensor) {
	return l.run(x, initial, Mask(x), training)
}

// ResetStates zeroes the states a stateful layer keeps, as Keras'
// reset_states.
func (l *RNN) ResetStates() {
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	for _, vs := range l.states {
		for _, v := range vs {
			_ = v.Assign(make([]float32, v.Shape().Size()))
		}
	}
}

// States returns the states a stateful layer keeps for batches of the
// given size (nil before the first such batch).
func (l *RNN) States(batch int) []*ops.Variable {
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	return l.states[batch]
}

func (l *RNN) fail(format string, args ...any) {
	panic(&ops.Error{Op: l.class + " " + l.name, Msg: fmt.Sprintf(format, args...)})
}

// stateVars returns the kept states for a batch size, made at zero on
// first use.
func (l *RNN) stateVars(batch int) []*ops.Variable {
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	if l.states == nil {
		l.states = map[int][]*ops.Variable{}
	}
	vs := l.states[batch]
	if vs == nil {
		for i, s := range l.cell.StateSize() {
			vs = append(vs, ops.NewVariable(fmt.Sprintf("%s/state_%d_batch%d", l.name, i, batch), ops.Shape{batch, s}, make([]float32, batch*s), false))
		}
		l.states[batch] = vs
	}
	return vs
}

// run is the time loop.
func (l *RNN) run(x ops.Tensor, initial []ops.Tensor, mask ops.Tensor, training bool) (ops.Tensor, []ops.Tensor) {
	if !l.built {
		l.fail("called before Build")
	}
	s := x.Shape()
	if len(s) != 3 {
		l.fail("expected input of shape (batch, timesteps, features), got %v", s)
	}
	b, steps, feat := s[0], s[1], s[2]
	tr := x.Trace()
	o := l.cfg.rnn
	sizes := l.cell.StateSize()

	states := initial
	var kept []*ops.Variable
	switch {
	case states != nil:
		if len(states) != len(sizes) {
			l.fail("%d initial states, the cell has %d", len(states), len(sizes))
		}
		for i, st := range states {
			if sh := st.Shape(); len(sh) != 2 || sh[0] != b || sh[1] != sizes[i] {
				l.fail("initial state %d of shape %v, want (%d, %d)", i, sh, b, sizes[i])
			}
		}
	case o.stateful:
		kept = l.stateVars(b)
		for _, v := range kept {
			states = append(states, tr.Read(v))
		}
	default:
		for _, n := range sizes {
			states = append(states, tr.Constant(ops.Shape{b, n}, make([]float32, b*n)))
		}
	}
	if !mask.IsNone() {
		if ms := mask.Shape(); len(ms) != 2 || ms[0] != b || ms[1] != steps {
			l.fail("mask of shape %v for input %v", ms, s)
		}
	}

	if lc, ok := l.cell.(*LSTMCell); ok && useFused(steps) && lc.actName == "tanh" && lc.recActName == "sigmoid" &&
		!(training && lc.cfg.rnn.recurrentDropout > 0) && (mask.IsNone() || (initial == nil && !o.stateful)) {
		return l.runFusedLSTM(lc, x, states, kept, mask, training)
	}
	if gc, ok := l.cell.(*GRUCell); ok && useFused(steps) && gc.resetAfter() && gc.actName == "tanh" && gc.recActName == "sigmoid" &&
		!(training && gc.cfg.rnn.recurrentDropout > 0) && (mask.IsNone() || (initial == nil && !o.stateful)) {
		return l.runFusedGRU(gc, x, states, kept, mask, training)
	}
	pc, fused := l.cell.(projectedCell)
	var xp ops.Tensor // fused: the input product of every timestep, (b, steps, g)
	var recMask ops.Tensor
	if fused {
		inRate, recRate := pc.dropoutRates()
		xin := x
		if training && inRate > 0 {
			ones := tr.Constant(ops.Shape{b, 1, feat}, filled(b*feat, 1))
			xin = ops.Mul(x, ops.Dropout(ones, float32(inRate)))
		}
		flat := pc.project(ops.Reshape(xin, ops.Shape{b * steps, feat}))
		g := flat.Shape()[1]
		xp = ops.Reshape(flat, ops.Shape{b, steps, g})
		if training && recRate > 0 {
			recMask = ops.Dropout(tr.Constant(ops.Shape{b, sizes[0]}, filled(b*sizes[0], 1)), float32(recRate))
		}
	}

	var xps []ops.Tensor // fused: the input product of each timestep, (b, g)
	if fused {
		xps = unstackTime(xp, 0, steps)
	}
	outs := make([]ops.Tensor, 0, steps)
	var prevOut ops.Tensor
	for k := 0; k < steps; k++ {
		t := k
		if o.goBackwards {
			t = steps - 1 - k
		}
		var out ops.Tensor
		var next []ops.Tensor
		if fused {
			xt := xps[t]
			hr := states[0]
			if !recMask.IsNone() {
				hr = ops.Mul(hr, recMask)
			}
			out, next = pc.stepProjected(xt, states, hr)
		} else {
			xt := ops.Reshape(ops.Slice(x, []int{0, t, 0}, []int{b, 1, feat}), ops.Shape{b, feat})
			out, next = l.cell.Step(xt, states, training)
			if len(next) != len(sizes) {
				l.fail("the cell's Step returned %d states, StateSize has %d", len(next), len(sizes))
			}
			if os := out.Shape(); len(os) != 2 || os[0] != b {
				l.fail("the cell's Step returned an output of shape %v for a batch of %d", os, b)
			}
			for i, st := range next {
				if sh := st.Shape(); len(sh) != 2 || sh[0] != b || sh[1] != sizes[i] {
					l.fail("the cell's Step returned state %d of shape %v, want (%d, %d)", i, sh, b, sizes[i])
				}
			}
		}
		if !mask.IsNone() {
			m := ops.Slice(mask, []int{0, t}, []int{b, 1}) // (b, 1)
			if prevOut.IsNone() {
				prevOut = tr.Constant(out.Shape(), make([]float32, out.Shape().Size()))
			}
			out = blend(m, out, prevOut)
			for i := range next {
				next[i] = blend(m, next[i], states[i])
			}
		}
		prevOut, states = out, next
		if o.returnSequences {
			outs = append(outs, out)
		}
	}

	var y ops.Tensor
	zero := !mask.IsNone() && o.zeroOutputForMask
	if o.returnSequences {
		u := outs[0].Shape()[1]
		parts := make([]ops.Tensor, len(outs))
		for i, ot := range outs {
			parts[i] = ops.Reshape(ot, ops.Shape{b, 1, u})
		}
		y = ops.Concat(1, parts...)
		if zero {
			m := mask
			if o.goBackwards {
				m = ops.Reverse(m, 1)
			}
			y = ops.Mul(y, ops.Reshape(m, ops.Shape{b, steps, 1}))
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
			y = ops.Mul(y, ops.Slice(mask, []int{0, last}, []int{b, 1}))
		}
	}
	l.keepStates(tr, kept, states)
	return y, states
}

// keepStates makes a stateful layer's step write its final states to the
// kept variables after each replay.
func (l *RNN) keepStates(tr *ops.Trace, kept []*ops.Variable, states []ops.Tensor) {
	if kept != nil {
		vars := kept
		tr.AddHook(ops.Hook{
			Name:   l.name + "/keep_states",
			Inputs: append([]ops.Tensor(nil), states...),
			Run: func(rc ops.ReplicaContext, vals []ops.Value) error {
				replica := 0
				if rc != nil {
					replica = rc.ReplicaID()
				}
				for i, v := range vars {
					copy(v.Data(replica), vals[i].Data)
				}
				return nil
			},
		})
	}
}

// blend is where(m, a, b) for a mask m of 0 and 1 of shape (batch, 1):
// b + m*(a-b).
func blend(m, a, b ops.Tensor) ops.Tensor { return ops.Add(b, ops.Mul(m, ops.Sub(a, b))) }

func filled(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// rnnConfig returns the keys every recurrent layer reports.
func (l *RNN) rnnConfigMap() map[string]any {
	m := l.baseConfig()
	o := l.cfg.rnn
	m["return_sequences"] = o.returnSequences
	m["return_state"] = o.returnState
	m["go_backwards"] = o.goBackwards
	m["stateful"] = o.stateful
	m["unroll"] = o.unroll
	m["zero_output_for_mask"] = o.zeroOutputForMask
	return m
}

// flatConfig is the config of LSTM, GRU and SimpleRNN: the cell's keys
// beside the RNN's, as Keras writes them.
func (l *RNN) flatConfig(cell map[string]any) map[string]any {
	m := l.rnnConfigMap()
	for k, v := range cell {
		switch k {
		case "name", "trainable", "dtype":
		default:
			m[k] = v
		}
	}
	return m
}

// GetConfig implements Layer: the RNN's keys and the cell as
// {"class_name", "config"}.
func (l *RNN) GetConfig() map[string]any {
	m := l.rnnConfigMap()
	if l.cell != nil {
		m["cell"] = map[string]any{"class_name": l.cell.ClassName(), "config": l.cell.GetConfig()}
	}
	return m
}
