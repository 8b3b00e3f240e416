package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// edges are the (before, after) amounts of a padding or cropping layer
// along each spatial axis of a channels-last input: ZeroPadding1D/3D and
// Cropping1D/3D share them.
type edges [][2]int

func (e edges) check(class, what, name string) error {
	for _, p := range e {
		if p[0] < 0 || p[1] < 0 {
			return fmt.Errorf("layers: %s %q: %s must be non-negative, got %v", class, name, what, [][2]int(e))
		}
	}
	return nil
}

// config is Keras' nested pairs: ((a, b), (c, d), ...), or one pair for a
// 1-D layer.
func (e edges) config() any {
	pairs := make([]any, len(e))
	for i, p := range e {
		pairs[i] = []any{p[0], p[1]}
	}
	if len(e) == 1 {
		return pairs[0]
	}
	return pairs
}

// rank is the input rank: batch, the spatial axes, channels.
func (e edges) rank() int { return len(e) + 2 }

// checkShape refuses an input that is not of the layer's rank, or whose
// known spatial sizes cropping removes entirely.
func (e edges) checkShape(in []ops.Shape, crop bool) error {
	if len(in) != 1 || len(in[0]) != e.rank() {
		return fmt.Errorf("needs one rank-%d (batch, %d spatial axes, channels) input, got %v", e.rank(), len(e), shapesStr(in))
	}
	if crop {
		for d, p := range e {
			if n := in[0][1+d]; n >= 0 && n <= p[0]+p[1] {
				return fmt.Errorf("cropping %v leaves nothing of input %v", [][2]int(e), in[0])
			}
		}
	}
	return nil
}

// pad adds zeros around the spatial axes of x.
func (e edges) pad(l Layer, x ops.Tensor) ops.Tensor {
	checkRank(l, x, e.rank())
	p := make([][2]int, 0, e.rank())
	p = append(p, [2]int{})
	p = append(p, e...)
	return ops.Pad(x, append(p, [2]int{}))
}

// crop removes the edges of the spatial axes of x.
func (e edges) crop(l Layer, x ops.Tensor) ops.Tensor {
	checkRank(l, x, e.rank())
	s := x.Shape()
	begin, size := make([]int, len(s)), s.Clone()
	for d, p := range e {
		begin[1+d] = p[0]
		size[1+d] = s[1+d] - p[0] - p[1]
		if size[1+d] <= 0 {
			panic(&ops.Error{Op: fmt.Sprintf("layer %q (%s)", l.Name(), l.ClassName()), Msg: fmt.Sprintf("cropping %v leaves nothing of input %v", [][2]int(e), s)})
		}
	}
	return ops.Slice(x, begin, size)
}
