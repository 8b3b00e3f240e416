package layers

import (
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/ops"
)

// Reshape is keras.layers.Reshape: a new shape for every example (the
// batch dimension is kept); one dimension may be -1.
type Reshape struct {
	Base
	target []int
}

// NewReshape makes a Reshape layer to targetShape (without batch).
func NewReshape(targetShape []int, opts ...Option) *Reshape {
	l := &Reshape{target: append([]int(nil), targetShape...)}
	l.init("Reshape", nil, opts)
	return l
}

// Build implements Layer.
func (l *Reshape) Build(in []ops.Shape) error {
	s := in[0]
	known, unknown := 1, 0
	for _, d := range l.target {
		if d == -1 {
			unknown++
		} else {
			known *= d
		}
	}
	size := ops.Shape(s[1:]).Size()
	if unknown > 1 || (unknown == 0 && known != size) || (unknown == 1 && (known == 0 || size%known != 0)) {
		dims := make([]string, len(l.target))
		for i, d := range l.target {
			dims[i] = fmt.Sprint(d)
		}
		return fmt.Errorf("cannot reshape %v to (None, %s): target_shape %v", s, strings.Join(dims, ", "), l.target)
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Reshape) Call(in []ops.Tensor, _ bool) ops.Tensor {
	s := in[0].Shape()
	return ops.Reshape(in[0], append(ops.Shape{s[0]}, l.target...))
}

// GetConfig implements Layer.
func (l *Reshape) GetConfig() map[string]any {
	m := l.baseConfig()
	m["target_shape"] = intsAny(l.target)
	return m
}
