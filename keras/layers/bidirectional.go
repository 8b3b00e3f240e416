package layers

import (
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/ops"
)

// Bidirectional is keras.layers.Bidirectional: a forward copy of a
// recurrent layer reads the sequence from the start, a backward copy from
// the end, and their outputs are merged: "concat" (default; the last axis
// doubles), "sum", "mul" or "ave". With return_sequences the backward
// outputs are put back in time order first. The copies are named
// forward_<name> and backward_<name>, the backward one made from the
// layer's arguments with go_backwards flipped (or given with
// WithBackwardLayer); weights are the forward layer's, then the backward
// one's. A timestep mask on the input reaches both.
//
//	keras.layers.Bidirectional(keras.layers.LSTM(64), merge_mode="sum")
//	  ->  layers.NewBidirectional(layers.NewLSTM(64), layers.WithMergeMode("sum"))
type Bidirectional struct {
	Base
	Forward, Backward Layer
	mergeMode         string
	fwd, bwd          recurrent
}

// NewBidirectional wraps a recurrent layer (LSTM, GRU, SimpleRNN, or an
// RNN with WithBackwardLayer). Options: WithMergeMode, WithBackwardLayer,
// WithInputShape, WithName.
func NewBidirectional(layer Layer, opts ...Option) *Bidirectional {
	l := &Bidirectional{}
	l.init("Bidirectional", []string{"merge_mode", "backward_layer"}, opts)
	l.mergeMode = l.cfg.rnn.mergeMode
	if l.mergeMode == "" {
		l.mergeMode = "concat"
	}
	setErr := func(format string, args ...any) {
		if l.err == nil {
			l.err = fmt.Errorf("layers: Bidirectional %q: "+format, append([]any{l.name}, args...)...)
		}
	}
	switch l.mergeMode {
	case "concat", "sum", "mul", "ave":
	default:
		setErr("merge_mode must be \"concat\", \"sum\", \"mul\" or \"ave\", got %q", l.mergeMode)
	}
	r, ok := layer.(recurrent)
	if !ok {
		setErr("wraps a recurrent layer (LSTM, GRU, SimpleRNN, RNN), got %T", layer)
		return l
	}
	if err := layer.Err(); err != nil {
		setErr("%w", err)
		return l
	}
	o := r.rnnOptions()
	if o.returnState {
		setErr("return_state is not supported inside Bidirectional; call CallWithStates on the Bidirectional layer")
	}
	zero := o.returnSequences
	base := strings.TrimPrefix(layer.Name(), "forward_") // a config's forward layer, as Keras
	var err error
	if l.fwd, err = r.cloneAs("forward_"+base, o.goBackwards, zero); err != nil {
		if l.cfg.rnn.backward == nil {
			setErr("%w", err)
			return l
		}
		l.fwd = r // an RNN over a user's cell reads forward itself
	}
	if bl := l.cfg.rnn.backward; bl != nil {
		b, ok := bl.(recurrent)
		switch {
		case !ok:
			setErr("backward_layer must be a recurrent layer, got %T", bl)
		case b.rnnOptions().goBackwards == o.goBackwards:
			setErr("backward_layer must read in the other direction (go_backwards %v) than the forward layer", !o.goBackwards)
		case b.rnnOptions().returnSequences != o.returnSequences:
			setErr("backward_layer must have the forward layer's return_sequences (%v)", o.returnSequences)
		}
		l.bwd = b
	} else if l.bwd, err = r.cloneAs("backward_"+base, !o.goBackwards, zero); err != nil {
		setErr("%w", err)
	}
	l.Forward, l.Backward = l.fwd, l.bwd
	return l
}

// Build implements Layer: it builds both directions.
func (l *Bidirectional) Build(in []ops.Shape) error {
	for _, r := range []Layer{l.Forward, l.Backward} {
		if !r.Built() {
			if _, err := OutputShape(r, in); err != nil {
				return err
			}
		}
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Bidirectional) Call(in []ops.Tensor, training bool) ops.Tensor {
	if len(in) != 1 {
		panic(&ops.Error{Op: "Bidirectional " + l.name, Msg: fmt.Sprintf("takes 1 input, got %d", len(in))})
	}
	y, _ := l.CallWithStates(in[0], nil, training)
	return y
}

// CallWithStates returns the merged output and the final states of the
// forward layer, then of the backward one (Keras' return_state).
func (l *Bidirectional) CallWithStates(x ops.Tensor, initial []ops.Tensor, training bool) (ops.Tensor, []ops.Tensor) {
	var fi, bi []ops.Tensor
	if initial != nil {
		if len(initial)%2 != 0 {
			panic(&ops.Error{Op: "Bidirectional " + l.name, Msg: fmt.Sprintf("%d initial states: want the forward ones then the backward ones", len(initial))})
		}
		fi, bi = initial[:len(initial)/2], initial[len(initial)/2:]
	}
	yf, sf := l.fwd.CallWithStates(x, fi, training)
	yb, sb := l.bwd.CallWithStates(x, bi, training)
	seq := l.fwd.rnnOptions().returnSequences
	if seq {
		yb = ops.Reverse(yb, 1)
	}
	var y ops.Tensor
	switch l.mergeMode {
	case "sum":
		y = ops.Add(yf, yb)
	case "mul":
		y = ops.Mul(yf, yb)
	case "ave":
		y = ops.Scale(ops.Add(yf, yb), 0.5)
	default:
		y = ops.Concat(-1, yf, yb)
	}
	if seq {
		SetMask(y, Mask(x))
	}
	return y, append(sf, sb...)
}

// Weights implements Layer: the forward layer's, then the backward one's.
func (l *Bidirectional) Weights() []*ops.Variable {
	return append(l.Forward.Weights(), l.Backward.Weights()...)
}

// TrainableWeights implements Layer.
func (l *Bidirectional) TrainableWeights() []*ops.Variable {
	return append(l.Forward.TrainableWeights(), l.Backward.TrainableWeights()...)
}

// NonTrainableWeights implements Layer.
func (l *Bidirectional) NonTrainableWeights() []*ops.Variable {
	return append(l.Forward.NonTrainableWeights(), l.Backward.NonTrainableWeights()...)
}

// SetTrainable implements Layer.
func (l *Bidirectional) SetTrainable(t bool) {
	l.Base.SetTrainable(t)
	l.Forward.SetTrainable(t)
	l.Backward.SetTrainable(t)
}

// RegularizationLosses implements Layer.
func (l *Bidirectional) RegularizationLosses(tr *ops.Trace) []ops.Tensor {
	return append(l.Forward.RegularizationLosses(tr), l.Backward.RegularizationLosses(tr)...)
}

// GetConfig implements Layer: merge_mode and both layers as
// {"class_name", "config"}.
func (l *Bidirectional) GetConfig() map[string]any {
	m := l.baseConfig()
	m["merge_mode"] = l.mergeMode
	if l.Forward != nil {
		m["layer"] = map[string]any{"class_name": l.Forward.ClassName(), "config": l.Forward.GetConfig()}
	}
	if l.Backward != nil {
		m["backward_layer"] = map[string]any{"class_name": l.Backward.ClassName(), "config": l.Backward.GetConfig()}
	}
	return m
}
