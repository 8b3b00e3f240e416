package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// ActivityRegularization is keras.layers.ActivityRegularization: the
// identity, which adds l1·sum|x| + l2·sum(x²) of its input, divided by
// the batch size, to the model's loss at every call (the
// activity_regularizer every layer takes, as a layer of its own).
//
//	keras.layers.ActivityRegularization(l1=0.01, l2=0.0)
//	layers.NewActivityRegularization(0.01, 0)
type ActivityRegularization struct {
	Base
	l1, l2 float64
}

// NewActivityRegularization makes an ActivityRegularization layer; l1
// and l2 must be finite and non-negative. Options: WithName,
// WithInputShape (not WithActivityRegularizer: the layer's own penalty is
// its regularizer, and Keras refuses a second one).
func NewActivityRegularization(l1, l2 float64, opts ...Option) *ActivityRegularization {
	l := &ActivityRegularization{l1: l1, l2: l2}
	l.init("ActivityRegularization", nil, opts)
	switch {
	case l.err != nil:
	case l.cfg.set["activity_regularizer"]:
		l.err = fmt.Errorf("layers: ActivityRegularization %q: its penalty is its activity regularizer; WithActivityRegularizer is not taken", l.name)
	case !(l1 >= 0 && l2 >= 0) || l1-l1 != 0 || l2-l2 != 0:
		l.err = fmt.Errorf("layers: ActivityRegularization %q: l1 and l2 must be finite and >= 0, got %v and %v", l.name, l1, l2)
	default:
		l.cfg.ml.activity = L1L2(float32(l1), float32(l2))
	}
	return l
}

// Build implements Layer.
func (l *ActivityRegularization) Build([]ops.Shape) error { l.built = true; return nil }

// Call implements Layer: the input (layers.Call adds the penalty).
func (l *ActivityRegularization) Call(in []ops.Tensor, _ bool) ops.Tensor { return in[0] }

// GetConfig implements Layer: l1 and l2, without the activity_regularizer
// they make, as Keras writes it.
func (l *ActivityRegularization) GetConfig() map[string]any {
	m := l.baseConfig()
	delete(m, "activity_regularizer")
	m["l1"], m["l2"] = l.l1, l.l2
	return m
}
