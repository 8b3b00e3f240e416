package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Permute is keras.layers.Permute: it reorders the axes of each example.
// dims are 1-based and leave out the batch axis, as in Keras: Permute
// (2, 1) swaps the two axes of a (batch, a, b) input.
//
//	keras.layers.Permute((2, 1))
//	layers.NewPermute([]int{2, 1})
type Permute struct {
	Base
	dims []int
}

// NewPermute makes a Permute layer; dims must be a permutation of 1..n.
// Options: WithName, WithInputShape.
func NewPermute(dims []int, opts ...Option) *Permute {
	l := &Permute{dims: append([]int(nil), dims...)}
	l.init("Permute", nil, opts)
	seen := make([]bool, len(dims)+1)
	for _, d := range dims {
		if d < 1 || d > len(dims) || seen[d] {
			if l.err == nil {
				l.err = fmt.Errorf("layers: Permute %q: dims %v must be a permutation of 1..%d", l.name, dims, len(dims))
			}
			break
		}
		seen[d] = true
	}
	if len(dims) == 0 && l.err == nil {
		l.err = fmt.Errorf("layers: Permute %q: dims is empty", l.name)
	}
	return l
}

// Build implements Layer.
func (l *Permute) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != len(l.dims)+1 {
		return fmt.Errorf("dims %v need one rank-%d input, got %v", l.dims, len(l.dims)+1, shapesStr(in))
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Permute) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], len(l.dims)+1)
	return ops.Transpose(in[0], append([]int{0}, l.dims...))
}

// GetConfig implements Layer.
func (l *Permute) GetConfig() map[string]any {
	m := l.baseConfig()
	m["dims"] = intsAny(l.dims)
	return m
}
