package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// globalPooling1D is the shared part of GlobalAveragePooling1D and
// GlobalMaxPooling1D.
type globalPooling1D struct {
	Base
	keepDims bool
}

func (l *globalPooling1D) setup(class string, opts []Option) {
	l.init(class, []string{"keepdims"}, opts)
	l.keepDims = l.cfg.more.keepDims
}

// Build implements Layer.
func (l *globalPooling1D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 3 {
		return fmt.Errorf("needs one rank-3 (batch, steps, channels) input, got %v", shapesStr(in))
	}
	l.built = true
	return nil
}

// GetConfig implements Layer.
func (l *globalPooling1D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["data_format"] = "channels_last"
	m["keepdims"] = l.keepDims
	return m
}

// GlobalAveragePooling1D is keras.layers.GlobalAveragePooling1D: the mean
// over the steps, (batch, steps, c) -> (batch, c), or (batch, 1, c) with
// WithKeepDims(true); over the unmasked steps when the input carries a
// mask.
//
//	keras.layers.GlobalAveragePooling1D()
//	layers.NewGlobalAveragePooling1D()
type GlobalAveragePooling1D struct{ globalPooling1D }

// NewGlobalAveragePooling1D makes a 1-D global average pooling layer.
// Options: WithKeepDims, WithName.
func NewGlobalAveragePooling1D(opts ...Option) *GlobalAveragePooling1D {
	l := &GlobalAveragePooling1D{}
	l.setup("GlobalAveragePooling1D", opts)
	return l
}

// Call implements Layer. With a timestep mask on the input (see [Mask]:
// Embedding with mask_zero, Masking) it averages the unmasked steps
// only, sum(x*mask)/sum(mask), as Keras does.
func (l *GlobalAveragePooling1D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 3)
	m := Mask(x)
	if m.IsNone() {
		return ops.Mean(x, l.keepDims, 1)
	}
	s := x.Shape()
	m = ops.Reshape(m, ops.Shape{s[0], s[1], 1})
	return ops.Div(ops.Sum(ops.Mul(x, m), l.keepDims, 1), ops.Sum(m, l.keepDims, 1))
}

// GlobalMaxPooling1D is keras.layers.GlobalMaxPooling1D: the maximum over
// the steps. The gradient goes to the first maximal step.
//
//	keras.layers.GlobalMaxPooling1D(keepdims=True)
//	layers.NewGlobalMaxPooling1D(layers.WithKeepDims(true))
type GlobalMaxPooling1D struct{ globalPooling1D }

// NewGlobalMaxPooling1D makes a 1-D global max pooling layer; options as
// [NewGlobalAveragePooling1D].
func NewGlobalMaxPooling1D(opts ...Option) *GlobalMaxPooling1D {
	l := &GlobalMaxPooling1D{}
	l.setup("GlobalMaxPooling1D", opts)
	return l
}

// Call implements Layer.
func (l *GlobalMaxPooling1D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	checkRank(l, in[0], 3)
	return ops.Max(in[0], l.keepDims, 1)
}
