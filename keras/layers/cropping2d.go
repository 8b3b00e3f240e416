package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Cropping2D is keras.layers.Cropping2D: it removes rows above and below
// and columns left and right of each NHWC image.
//
//	keras.layers.Cropping2D(cropping=((2, 1), (0, 3)))
//	layers.NewCropping2D(2, 1, 0, 3)
type Cropping2D struct {
	Base
	crop [2][2]int // {{top, bottom}, {left, right}}
}

// NewCropping2D makes a Cropping2D layer removing top and bottom rows and
// left and right columns, Keras' cropping=((top, bottom), (left, right)).
// Options: WithName, WithInputShape.
func NewCropping2D(top, bottom, left, right int, opts ...Option) *Cropping2D {
	l := &Cropping2D{crop: [2][2]int{{top, bottom}, {left, right}}}
	l.init("Cropping2D", nil, opts)
	if (top < 0 || bottom < 0 || left < 0 || right < 0) && l.err == nil {
		l.err = fmt.Errorf("layers: Cropping2D %q: cropping must be non-negative, got %v", l.name, l.crop)
	}
	return l
}

// Build implements Layer.
func (l *Cropping2D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 4 {
		return fmt.Errorf("needs one rank-4 (batch, height, width, channels) input, got %v", shapesStr(in))
	}
	for d := range 2 {
		if n := in[0][1+d]; n >= 0 && n <= l.crop[d][0]+l.crop[d][1] {
			return fmt.Errorf("cropping %v leaves nothing of input %v", l.crop, in[0])
		}
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Cropping2D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 4)
	s := x.Shape()
	h, w := s[1]-l.crop[0][0]-l.crop[0][1], s[2]-l.crop[1][0]-l.crop[1][1]
	if h <= 0 || w <= 0 {
		panic(&ops.Error{Op: "Cropping2D " + l.name, Msg: fmt.Sprintf("cropping %v leaves nothing of input %v", l.crop, s)})
	}
	return ops.Slice(x, []int{0, l.crop[0][0], l.crop[1][0], 0}, []int{s[0], h, w, s[3]})
}

// GetConfig implements Layer.
func (l *Cropping2D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["cropping"] = []any{[]any{l.crop[0][0], l.crop[0][1]}, []any{l.crop[1][0], l.crop[1][1]}}
	m["data_format"] = "channels_last"
	return m
}
