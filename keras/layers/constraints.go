package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// Constraint is a projection of a weight that optimizers apply after every
// update, as keras.constraints: a layer's kernel_constraint= and the like
// ([WithKernelConstraint]) attach one to the weight (see
// [ops.SetConstraint]).
type Constraint interface {
	ops.Constraint
	// Name is the Keras class name, such as "MaxNorm".
	Name() string
	// Config is the constraint's Keras config (its constructor arguments).
	Config() map[string]any
	// check reports whether the constraint fits a weight of shape s.
	check(s ops.Shape) error
}

// constraintEpsilon is Keras' backend.epsilon(), added to the norms that
// the norm constraints divide by.
const constraintEpsilon = 1e-7

// normAxes are the axes a norm constraint reduces over, Keras' axis=: one
// axis (listed false: serialised as an integer), several, or none at all
// (nil and all: every axis, Keras' axis=None).
type normAxes struct {
	axes   []int
	listed bool
	all    bool
}

// normAxesOf returns the axes of a norm constraint given as Go
// arguments: none for Keras' default axis=0, one value for one axis,
// several for a list.
func normAxesOf(axes []int) normAxes {
	switch len(axes) {
	case 0:
		return normAxes{axes: []int{0}}
	case 1:
		return normAxes{axes: []int{axes[0]}}
	}
	return normAxes{axes: append([]int(nil), axes...), listed: true}
}

func (a normAxes) config() any {
	switch {
	case a.all:
		return nil
	case a.listed:
		return intsAny(a.axes)
	}
	return a.axes[0]
}

// reduced marks the axes of a rank-r weight that the norm reduces over.
func (a normAxes) reduced(r int) ([]bool, error) {
	red := make([]bool, r)
	if a.all {
		for i := range red {
			red[i] = true
		}
		return red, nil
	}
	for _, ax := range a.axes {
		d := ax
		if d < 0 {
			d += r
		}
		if d < 0 || d >= r {
			return nil, fmt.Errorf("axis %d is out of range for a weight of rank %d", ax, r)
		}
		red[d] = true
	}
	return red, nil
}

func (a normAxes) check(s ops.Shape) error {
	_, err := a.reduced(len(s))
	return err
}

// norms returns the L2 norm of each group of w (the values that agree on
// every axis the norm keeps) and the group of each value, summing in
// float64.
func (a normAxes) norms(w []float32, s ops.Shape) (norms []float32, group []int32) {
	red, err := a.reduced(len(s))
	if err != nil || len(w) != s.Size() {
		return nil, nil // refused when the constraint was attached
	}
	r := len(s)
	stride := make([]int, r) // a kept axis' step in the group index
	groups := 1
	for d := r - 1; d >= 0; d-- {
		if !red[d] {
			stride[d] = groups
			groups *= s[d]
		}
	}
	group = make([]int32, len(w))
	sums := make([]float64, groups)
	coord := make([]int, r)
	g := 0
	for i, v := range w {
		group[i] = int32(g)
		sums[g] += float64(v) * float64(v)
		for d := r - 1; d >= 0; d-- {
			coord[d]++
			g += stride[d]
			if coord[d] < s[d] {
				break
			}
			g -= stride[d] * s[d]
			coord[d] = 0
		}
	}
	norms = make([]float32, groups)
	for i, q := range sums {
		norms[i] = float32(math.Sqrt(q))
	}
	return norms, group
}

// rescale multiplies each group of w by desired(norm) / (epsilon + norm),
// in float32 as Keras computes it.
func (a normAxes) rescale(w []float32, s ops.Shape, desired func(norm float32) float32) {
	norms, group := a.norms(w, s)
	if norms == nil {
		return
	}
	f := make([]float32, len(norms))
	for i, n := range norms {
		f[i] = desired(n) / (constraintEpsilon + n)
	}
	for i := range w {
		w[i] *= f[group[i]]
	}
}

func clip32(x, lo, hi float32) float32 { return min(max(x, lo), hi) }

type maxNorm struct {
	maxValue float64
	axes     normAxes
}

// MaxNorm is keras.constraints.MaxNorm(max_value, axis): each group of
// values along axes (Keras' default axis=0: in a Dense kernel, the
// weights into each unit) is scaled down to an L2 norm of at most
// maxValue (Keras' default 2). Several axes are Keras' axis list (a
// Conv2D kernel's filters: 0, 1, 2).
func MaxNorm(maxValue float64, axes ...int) Constraint {
	return maxNorm{maxValue: maxValue, axes: normAxesOf(axes)}
}

func (c maxNorm) Project(w []float32, s ops.Shape) {
	m := float32(c.maxValue)
	c.axes.rescale(w, s, func(n float32) float32 { return clip32(n, 0, m) })
}
func (maxNorm) Name() string              { return "MaxNorm" }
func (c maxNorm) check(s ops.Shape) error { return c.axes.check(s) }
func (c maxNorm) Config() map[string]any {
	return map[string]any{"max_value": c.maxValue, "axis": c.axes.config()}
}

type nonNeg struct{}

// NonNeg is keras.constraints.NonNeg: negative values become zero.
func NonNeg() Constraint { return nonNeg{} }

func (nonNeg) Project(w []float32, _ ops.Shape) {
	for i, v := range w {
		if !(v >= 0) { // Keras multiplies by w >= 0: NaN becomes NaN*0 = NaN
			w[i] = v * 0
		}
	}
}
func (nonNeg) Name() string           { return "NonNeg" }
func (nonNeg) check(ops.Shape) error  { return nil }
func (nonNeg) Config() map[string]any { return map[string]any{} }

type unitNorm struct{ axes normAxes }

// UnitNorm is keras.constraints.UnitNorm(axis): each group of values along
// axes (default 0) is divided by epsilon plus its L2 norm.
func UnitNorm(axes ...int) Constraint { return unitNorm{axes: normAxesOf(axes)} }

func (c unitNorm) Project(w []float32, s ops.Shape) {
	c.axes.rescale(w, s, func(float32) float32 { return 1 })
}
func (unitNorm) Name() string              { return "UnitNorm" }
func (c unitNorm) check(s ops.Shape) error { return c.axes.check(s) }
func (c unitNorm) Config() map[string]any  { return map[string]any{"axis": c.axes.config()} }

type minMaxNorm struct {
	minValue, maxValue, rate float64
	axes                     normAxes
}

// MinMaxNorm is keras.constraints.MinMaxNorm(min_value, max_value, rate,
// axis): each group's norm n along axes becomes rate*clip(n, min, max) +
// (1-rate)*n (Keras' defaults 0, 1, 1 and axis 0).
func MinMaxNorm(minValue, maxValue, rate float64, axes ...int) Constraint {
	return minMaxNorm{minValue: minValue, maxValue: maxValue, rate: rate, axes: normAxesOf(axes)}
}

func (c minMaxNorm) Project(w []float32, s ops.Shape) {
	lo, hi, r := float32(c.minValue), float32(c.maxValue), float32(c.rate)
	c.axes.rescale(w, s, func(n float32) float32 { return r*clip32(n, lo, hi) + (1-r)*n })
}
func (minMaxNorm) Name() string              { return "MinMaxNorm" }
func (c minMaxNorm) check(s ops.Shape) error { return c.axes.check(s) }
func (c minMaxNorm) Config() map[string]any {
	return map[string]any{"min_value": c.minValue, "max_value": c.maxValue, "rate": c.rate, "axis": c.axes.config()}
}

// constraintConfig is Keras' serialisation of a constraint: nil for none.
func constraintConfig(c Constraint) any {
	if c == nil {
		return nil
	}
	return map[string]any{"module": "keras.constraints", "class_name": c.Name(), "config": c.Config(), "registered_name": nil}
}
