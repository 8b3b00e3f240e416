package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// RepeatVector is keras.layers.RepeatVector: it repeats a (batch,
// features) input n times, (batch, n, features), as the bridge from a
// sequence encoder to a decoder.
//
//	keras.layers.RepeatVector(4)  ->  layers.NewRepeatVector(4)
type RepeatVector struct {
	Base
	n int
}

// NewRepeatVector makes a RepeatVector layer repeating its input n times.
// Options: WithInputShape, WithName.
func NewRepeatVector(n int, opts ...Option) *RepeatVector {
	l := &RepeatVector{n: n}
	l.init("RepeatVector", nil, opts)
	if n <= 0 && l.err == nil {
		l.err = fmt.Errorf("layers: RepeatVector %q: n must be positive, got %d", l.name, n)
	}
	return l
}

// Build implements Layer.
func (l *RepeatVector) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 2 {
		return fmt.Errorf("needs one input of shape (batch, features), got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RepeatVector) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 2)
	s := x.Shape()
	return ops.BroadcastTo(ops.Reshape(x, ops.Shape{s[0], 1, s[1]}), ops.Shape{s[0], l.n, s[1]})
}

// GetConfig implements Layer.
func (l *RepeatVector) GetConfig() map[string]any {
	m := l.baseConfig()
	m["n"] = l.n
	return m
}
