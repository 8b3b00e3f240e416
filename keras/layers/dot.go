package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Dot is keras.layers.Dot: the dot product of the samples of its two
// inputs along one axis of each (Keras' batch_dot): inputs (b, 3, 5) and
// (b, 10, 3) with axes (1, 2) give (b, 5, 10); two vectors (b, k) give
// (b, 1). With normalize, both inputs are first L2-normalized along their
// axes, so the result is the cosine similarity.
type Dot struct {
	Base
	axes      []int // as given: one for both inputs, or one each
	normalize bool
}

// NewDot makes a Dot layer taking the product along axes (Keras' axes=, a
// required argument): one axis for both inputs or one each; axis 0, the
// batch, cannot be one. Options: WithNormalize, WithName.
func NewDot(axes []int, opts ...Option) *Dot {
	l := &Dot{axes: append([]int(nil), axes...)}
	l.init("Dot", []string{"normalize"}, opts)
	l.normalize = l.cfg.ml.normalize
	if (len(axes) < 1 || len(axes) > 2) && l.err == nil {
		l.err = fmt.Errorf("layers: Dot %q: axes must be one integer or two, got %v", l.name, axes)
	}
	return l
}

// dotAxes resolves the axes for inputs of ranks r1 and r2 (negative axes
// count from the end, as Keras takes them modulo the rank).
func (l *Dot) dotAxes(r1, r2 int) ([2]int, error) {
	a := [2]int{l.axes[0], l.axes[0]}
	if len(l.axes) == 2 {
		a[1] = l.axes[1]
	}
	for i, r := range [2]int{r1, r2} {
		if a[i] < 0 {
			a[i] += r
		}
		if a[i] < 0 || a[i] >= r {
			return a, fmt.Errorf("axes %v are out of range for inputs of ranks %d and %d", l.axes, r1, r2)
		}
		if a[i] == 0 {
			return a, fmt.Errorf("cannot take the dot product over axis 0, the batch (axes %v)", l.axes)
		}
	}
	return a, nil
}

// Build implements Layer.
func (l *Dot) Build(in []ops.Shape) error {
	if err := checkMergeArity("Dot", len(in), 2, 2); err != nil {
		return err
	}
	s1, s2 := in[0], in[1]
	if len(s1) < 2 || len(s2) < 2 {
		return fmt.Errorf("needs inputs of rank >= 2, got %v and %v", s1, s2)
	}
	a, err := l.dotAxes(len(s1), len(s2))
	if err != nil {
		return err
	}
	if s1[a[0]] >= 0 && s2[a[1]] >= 0 && s1[a[0]] != s2[a[1]] {
		return fmt.Errorf("incompatible input shapes %v and %v: axis %d has %d values, axis %d %d", s1, s2, a[0], s1[a[0]], a[1], s2[a[1]])
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Dot) Call(in []ops.Tensor, _ bool) ops.Tensor {
	mergeCall(l, in, 2, 2)
	where := fmt.Sprintf("layer %q (Dot)", l.name)
	x, y := in[0], in[1]
	if x.Rank() < 2 || y.Rank() < 2 {
		panic(&ops.Error{Op: where, Msg: fmt.Sprintf("needs inputs of rank >= 2, got %v and %v", x.Shape(), y.Shape())})
	}
	a, err := l.dotAxes(x.Rank(), y.Rank())
	if err != nil {
		panic(&ops.Error{Op: where, Msg: err.Error()})
	}
	if xs, ys := x.Shape(), y.Shape(); xs[0] != ys[0] || xs[a[0]] != ys[a[1]] {
		panic(&ops.Error{Op: where, Msg: fmt.Sprintf("incompatible input shapes %v and %v for axes %v", xs, ys, l.axes)})
	}
	if l.normalize {
		x, y = l2Normalize(x, a[0], 1e-7), l2Normalize(y, a[1], 1e-7)
	}
	return batchDot(x, y, a)
}

// l2Normalize is keras.ops.normalize(x, axis, order=2, epsilon):
// x · min(rsqrt(sum(x²)), 1/epsilon) along axis.
func l2Normalize(x ops.Tensor, axis int, epsilon float32) ops.Tensor {
	inv := ops.Rsqrt(ops.Sum(ops.Square(x), true, axis))
	inv = ops.Minimum(inv, x.Trace().Scalar(1/epsilon))
	return ops.Mul(x, inv)
}

// batchDot is Keras' batch_dot(x, y, axes) on concrete shapes: x's axis
// a[0] is moved last and y's a[1] to position 1, both are flattened to
// rank 3 around them, one batched matrix product, and the result takes
// x's remaining axes and then y's (a rank-1 result becomes (batch, 1)).
func batchDot(x, y ops.Tensor, a [2]int) ops.Tensor {
	xs, ys := x.Shape(), y.Shape()
	b := xs[0]
	xr, yr := len(xs), len(ys)
	a0, a1 := a[0], a[1]
	if xr == 2 {
		x = ops.Reshape(x, ops.Shape{b, 1, xs[1]})
		a0++
		xr++
	}
	if yr == 2 {
		y = ops.Reshape(y, ops.Shape{b, ys[1], 1})
		yr++
	}
	if a0 != xr-1 { // move x's axis a0 last
		perm := make([]int, 0, xr)
		for i := range xr {
			if i != a0 {
				perm = append(perm, i)
			}
		}
		x = ops.Transpose(x, append(perm, a0))
	}
	if a1 != 1 { // move y's axis a1 to position 1
		perm := []int{0, a1}
		for i := 1; i < yr; i++ {
			if i != a1 {
				perm = append(perm, i)
			}
		}
		y = ops.Transpose(y, perm)
	}
	xt, yt := x.Shape(), y.Shape()
	k := xt[xr-1]
	mid := xt[1 : xr-1].Clone() // x's kept axes
	trail := yt[2:].Clone()     // y's kept axes
	x3 := ops.Reshape(x, ops.Shape{b, mid.Size(), k})
	y3 := ops.Reshape(y, ops.Shape{b, k, trail.Size()})
	out := ops.BatchMatMul(x3, y3, false, false)
	shape := ops.Shape{b}
	if len(xs) > 2 {
		shape = append(shape, mid...)
	}
	if len(ys) > 2 {
		shape = append(shape, trail...)
	}
	if len(shape) == 1 {
		shape = append(shape, 1)
	}
	return ops.Reshape(out, shape)
}

// GetConfig implements Layer.
func (l *Dot) GetConfig() map[string]any {
	m := l.baseConfig()
	if len(l.axes) == 1 {
		m["axes"] = l.axes[0]
	} else {
		m["axes"] = intsAny(l.axes)
	}
	m["normalize"] = l.normalize
	return m
}

// DotTensors is keras.layers.dot: Apply(NewDot(axes, opts...), a, b).
func DotTensors(a, b *KerasTensor, axes []int, opts ...Option) *KerasTensor {
	return Apply(NewDot(axes, opts...), a, b)
}
