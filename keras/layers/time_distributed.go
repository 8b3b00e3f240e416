package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// TimeDistributed is keras.layers.TimeDistributed: it applies a layer to
// every timestep of a (batch, timesteps, ...) input, with the same
// weights, by folding the timesteps into the batch: (batch*timesteps, ...)
// through the layer, then back to (batch, timesteps, ...). A timestep mask
// on the input goes on to the output.
//
//	keras.layers.TimeDistributed(keras.layers.Dense(10))  ->  layers.NewTimeDistributed(layers.NewDense(10))
type TimeDistributed struct {
	Base
	Layer Layer
}

// NewTimeDistributed wraps layer. Options: WithInputShape, WithName.
func NewTimeDistributed(layer Layer, opts ...Option) *TimeDistributed {
	l := &TimeDistributed{Layer: layer}
	l.init("TimeDistributed", nil, opts)
	if layer == nil {
		if l.err == nil {
			l.err = fmt.Errorf("layers: TimeDistributed %q: nil layer", l.name)
		}
		return l
	}
	if err := layer.Err(); err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: TimeDistributed %q: %w", l.name, err)
	}
	return l
}

// Build implements Layer: it builds the wrapped layer for one timestep.
func (l *TimeDistributed) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) < 3 || in[0][1] <= 0 {
		return fmt.Errorf("needs one input of shape (batch, timesteps, ...), got %v", shapesStr(in))
	}
	if !l.Layer.Built() {
		step := append(ops.Shape{-1}, in[0][2:]...)
		if _, err := OutputShape(l.Layer, []ops.Shape{step}); err != nil {
			return err
		}
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *TimeDistributed) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	s := x.Shape()
	if len(s) < 3 {
		checkRank(l, x, 3)
	}
	flat := append(ops.Shape{s[0] * s[1]}, s[2:]...)
	y := l.Layer.Call([]ops.Tensor{ops.Reshape(x, flat)}, training)
	ys := y.Shape()
	if len(ys) == 0 || ys[0] != s[0]*s[1] {
		panic(&ops.Error{Op: "TimeDistributed " + l.name, Msg: fmt.Sprintf("the wrapped layer %s returned shape %v for %v", l.Layer.Name(), ys, flat)})
	}
	out := ops.Reshape(y, append(ops.Shape{s[0], s[1]}, ys[1:]...))
	SetMask(out, Mask(x))
	return out
}

// Weights implements Layer: the wrapped layer's.
func (l *TimeDistributed) Weights() []*ops.Variable { return l.Layer.Weights() }

// TrainableWeights implements Layer.
func (l *TimeDistributed) TrainableWeights() []*ops.Variable { return l.Layer.TrainableWeights() }

// NonTrainableWeights implements Layer.
func (l *TimeDistributed) NonTrainableWeights() []*ops.Variable {
	return l.Layer.NonTrainableWeights()
}

// SetTrainable implements Layer.
func (l *TimeDistributed) SetTrainable(t bool) {
	l.Base.SetTrainable(t)
	l.Layer.SetTrainable(t)
}

// RegularizationLosses implements Layer.
func (l *TimeDistributed) RegularizationLosses(tr *ops.Trace) []ops.Tensor {
	return l.Layer.RegularizationLosses(tr)
}

// GetConfig implements Layer: the wrapped layer as {"class_name", "config"}.
func (l *TimeDistributed) GetConfig() map[string]any {
	m := l.baseConfig()
	m["layer"] = map[string]any{"class_name": l.Layer.ClassName(), "config": l.Layer.GetConfig()}
	return m
}
