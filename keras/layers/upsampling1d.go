package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// UpSampling1D is keras.layers.UpSampling1D: each step of a (batch, steps,
// channels) sequence is repeated size times.
type UpSampling1D struct {
	Base
	size int
}

// NewUpSampling1D makes an UpSampling1D layer repeating each step size
// times (Keras' default is 2). Options: WithName, WithInputShape.
func NewUpSampling1D(size int, opts ...Option) *UpSampling1D {
	l := &UpSampling1D{size: size}
	l.init("UpSampling1D", nil, opts)
	if size <= 0 && l.err == nil {
		l.err = fmt.Errorf("layers: UpSampling1D %q: size must be positive, got %d", l.name, size)
	}
	return l
}

// Build implements Layer.
func (l *UpSampling1D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 3 {
		return fmt.Errorf("needs one rank-3 (batch, steps, channels) input, got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *UpSampling1D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 3)
	return repeatAxis(in[0], 1, l.size)
}

// GetConfig implements Layer.
func (l *UpSampling1D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["size"] = l.size
	return m
}

// repeatAxis repeats each slice of x along axis n times in place
// (keras.ops.repeat(x, n, axis)): a size-1 axis inserted after axis,
// broadcast to n and merged, so the gradient sums the copies.
func repeatAxis(x ops.Tensor, axis, n int) ops.Tensor {
	if n == 1 {
		return x
	}
	s := x.Shape()
	ins := append(s[:axis+1].Clone(), 1)
	ins = append(ins, s[axis+1:]...)
	wide := ins.Clone()
	wide[axis+1] = n
	out := s.Clone()
	out[axis] *= n
	return ops.Reshape(ops.BroadcastTo(ops.Reshape(x, ins), wide), out)
}
