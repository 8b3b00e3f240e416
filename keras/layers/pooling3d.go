package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Pooling3D is keras.layers.MaxPooling3D and AveragePooling3D: the maximum
// or the mean of each (pd, ph, pw) window of a (batch, depth, height,
// width, channels) volume. A window's maximum (or its mean over the
// values inside the input, which "same" padding leaves out) is that over
// depth of the 2-D pooling over height and width, which it runs as: one
// [ops.MaxPool2D] or [ops.AvgPool2D], then the depth taps.
type Pooling3D struct {
	Base
	isMax   bool
	pool    [3]int
	strides [3]int
}

func newPooling3D(class string, isMax bool, opts []Option) *Pooling3D {
	l := &Pooling3D{isMax: isMax}
	l.init(class, []string{"pool_size", "strides", "padding"}, opts)
	var err error
	if l.pool, err = triple("pool_size", l.cfg.poolSize, 2); err == nil {
		l.strides, err = triple("strides", l.cfg.strides, 0)
		if l.cfg.strides == nil {
			l.strides = l.pool // Keras: strides None is the pool size
		}
	}
	if err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: %s %q: %w", class, l.name, err)
	}
	return l
}

// NewMaxPooling3D makes a MaxPooling3D layer. Options: WithPoolSize
// (default 2, 2, 2), WithStrides (default the pool size), WithPadding,
// WithName, WithDataFormat ("channels_last").
func NewMaxPooling3D(opts ...Option) *Pooling3D { return newPooling3D("MaxPooling3D", true, opts) }

// NewAveragePooling3D makes an AveragePooling3D layer. Options: as
// [NewMaxPooling3D].
func NewAveragePooling3D(opts ...Option) *Pooling3D {
	return newPooling3D("AveragePooling3D", false, opts)
}

// Build implements Layer.
func (l *Pooling3D) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) != 5 {
		return fmt.Errorf("needs one rank-5 (batch, depth, height, width, channels) input, got %v", shapesStr(in))
	}
	for d := range 3 {
		if n := in[0][1+d]; n > 0 {
			if _, _, err := ops.ConvOutputSize(n, l.pool[d], l.strides[d], 1, l.cfg.padding); err != nil {
				return fmt.Errorf("input %v: %w", in[0], err)
			}
		}
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Pooling3D) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	checkRank(l, x, 5)
	tr := x.Trace()
	s := x.Shape()
	g, err := newDepthGeom(s[1], l.pool[0], l.strides[0], 1, l.cfg.padding)
	if err != nil {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (%s)", l.name, l.class), Msg: fmt.Sprintf("input %v: %v", s, err)})
	}
	attrs := ops.Pool2DAttrs{Pool: [2]int{l.pool[1], l.pool[2]}, Strides: [2]int{l.strides[1], l.strides[2]}, Padding: l.cfg.padding}
	x4 := ops.Reshape(x, ops.Shape{s[0] * s[1], s[2], s[3], s[4]})
	var p ops.Tensor
	if l.isMax {
		p = ops.MaxPool2D(x4, attrs)
	} else {
		p = ops.AvgPool2D(x4, attrs)
	}
	ps := p.Shape()
	p = ops.Reshape(p, ops.Shape{s[0], s[1], ps[1], ps[2], ps[3]})
	pp := g.padDepth(p)
	if l.isMax && (g.front > 0 || g.after > 0) {
		pp = ops.Add(pp, g.paddingMask(tr, pp.Shape()[1], 5))
	}
	y := g.tap(pp, g.lo)
	for i := g.lo + 1; i <= g.hi; i++ {
		if l.isMax {
			y = ops.Maximum(y, g.tap(pp, i))
		} else {
			y = ops.Add(y, g.tap(pp, i))
		}
	}
	if l.isMax {
		return y
	}
	n := g.validTaps()
	inv := make([]float32, len(n))
	for i, c := range n {
		inv[i] = 1 / c
	}
	return ops.Mul(y, tr.Constant(ops.Shape{1, g.out, 1, 1, 1}, inv))
}

// GetConfig implements Layer.
func (l *Pooling3D) GetConfig() map[string]any {
	m := l.baseConfig()
	m["pool_size"] = intsAny(l.pool[:])
	m["strides"] = intsAny(l.strides[:])
	m["padding"] = l.cfg.padding
	m["data_format"] = "channels_last"
	return m
}
