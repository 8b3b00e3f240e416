package layers

import (
	"fmt"
	"math"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// DiscretizationSettings are the arguments of keras.layers.Discretization:
// either BinBoundaries, or NumBins and then Adapt. The zero Epsilon means
// Keras' 0.01, the zero OutputMode Keras' "int".
type DiscretizationSettings struct {
	// BinBoundaries are the sorted edges: x < b[0] is bin 0, b[i-1] <= x <
	// b[i] bin i, x >= b[last] bin len(b).
	BinBoundaries []float64
	// NumBins is the number of bins Adapt computes boundaries for.
	NumBins int
	// Epsilon is the precision of Adapt's quantile summary.
	Epsilon float64
	// OutputMode is "int" (the bin index), "one_hot", "multi_hot" or
	// "count" of the bin indices (see CategoryEncoding).
	OutputMode string
}

// Discretization is keras.layers.Discretization: the index of the bin of
// each value (TensorFlow's Bucketize, numpy's digitize), as float32 (Keras
// gives int32), or its one_hot / multi_hot / count encoding with
// len(boundaries)+1 tokens. Adapt computes NumBins-quantile boundaries as
// Keras' adapt does (its approximate quantile summary, on the whole data).
// There is no gradient: Keras' outputs are integers.
//
// Python: keras.layers.Discretization(bin_boundaries=[0., 1.], output_mode="int")
// Go:     layers.NewDiscretization(layers.DiscretizationSettings{BinBoundaries: []float64{0, 1}})
type Discretization struct {
	Base
	s DiscretizationSettings
}

// NewDiscretization makes a Discretization layer. Options: WithName,
// WithInputShape.
func NewDiscretization(s DiscretizationSettings, opts ...Option) *Discretization {
	if s.OutputMode == "" {
		s.OutputMode = "int"
	}
	if s.Epsilon == 0 {
		s.Epsilon = 0.01
	}
	s.BinBoundaries = slices.Clone(s.BinBoundaries)
	l := &Discretization{s: s}
	l.init("Discretization", nil, opts)
	switch {
	case l.err != nil:
	case s.NumBins < 0:
		l.err = fmt.Errorf("layers: Discretization %q: num_bins must be >= 0, got %d", l.name, s.NumBins)
	case s.NumBins == 0 && s.BinBoundaries == nil:
		l.err = fmt.Errorf("layers: Discretization %q: set either num_bins or bin_boundaries", l.name)
	case !slices.Contains([]string{"int", "one_hot", "multi_hot", "count"}, s.OutputMode):
		l.err = fmt.Errorf("layers: Discretization %q: output_mode %q is not one of int, one_hot, multi_hot, count", l.name, s.OutputMode)
	case !(s.Epsilon > 0 && s.Epsilon <= 1):
		l.err = fmt.Errorf("layers: Discretization %q: epsilon must be in (0, 1], got %v", l.name, s.Epsilon)
	case !slices.IsSorted(s.BinBoundaries) || slices.ContainsFunc(s.BinBoundaries, math.IsNaN):
		l.err = fmt.Errorf("layers: Discretization %q: bin_boundaries %v are not sorted numbers", l.name, s.BinBoundaries)
	}
	return l
}

// BinBoundaries returns the boundaries (given, or computed by Adapt).
func (l *Discretization) BinBoundaries() []float64 { return slices.Clone(l.s.BinBoundaries) }

// Build implements Layer.
func (l *Discretization) Build(in []ops.Shape) error {
	if err := checkEncodable(in[0], l.s.OutputMode); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Discretization) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	if l.s.BinBoundaries == nil {
		panic(&ops.Error{Op: "Discretization " + l.name, Msg: "no bin boundaries: give bin_boundaries or call Adapt first"})
	}
	if err := checkEncodable(x.Shape(), l.s.OutputMode); err != nil {
		panic(&ops.Error{Op: "Discretization " + l.name, Msg: err.Error()})
	}
	nb := len(l.s.BinBoundaries)
	var idx ops.Tensor
	if nb == 0 {
		idx = ops.Scale(x, 0)
	} else {
		b := make([]float32, nb)
		for i, v := range l.s.BinBoundaries {
			b[i] = float32(v)
		}
		s := x.Shape()
		xr := ops.Reshape(x, append(s.Clone(), 1))
		// The number of boundaries above x, taken from their count.
		above := ops.Sum(ops.Greater(x.Trace().Constant(ops.Shape{nb}, b), xr), false, len(s))
		idx = ops.AddScalar(ops.Neg(above), float32(nb))
	}
	return encodeCategorical(idx, l.s.OutputMode, nb+1)
}

// Adapt computes NumBins-quantile boundaries from data (any shape; every
// value counts), as Keras' adapt on one array: a summary of every
// 1/epsilon-th sorted value, compressed by linear interpolation of the
// cumulative weights, then compressed to NumBins bins.
func (l *Discretization) Adapt(shape ops.Shape, data []float32) error {
	if l.err != nil {
		return l.err
	}
	if l.s.NumBins == 0 {
		return fmt.Errorf("layers: Discretization %q: Adapt needs num_bins (the layer has bin_boundaries)", l.name)
	}
	if shape.Size() != len(data) || len(data) == 0 {
		return fmt.Errorf("layers: Discretization %q: Adapt: %d values for shape %v", l.name, len(data), shape)
	}
	v := slices.Clone(data)
	if slices.ContainsFunc(v, func(f float32) bool { return f != f }) {
		return fmt.Errorf("layers: Discretization %q: Adapt: the data holds NaN", l.name)
	}
	slices.Sort(v)
	// Summary: every step-th value (from the step-th), weight step.
	step := max(float64(len(v))/(1/l.s.Epsilon), 1)
	var vals, weights []float64
	for i := int(step - 1); i < len(v); i += int(step) {
		vals = append(vals, float64(v[i]))
		weights = append(weights, float64(float32(step)))
	}
	vals, weights = compressSummary(vals, weights, l.s.Epsilon)
	vals, _ = compressSummary(vals, weights, 1/float64(l.s.NumBins))
	l.s.BinBoundaries = vals[:len(vals)-1]
	return nil
}

// compressSummary interpolates the values at the cumulative weight
// fractions eps, 2eps, ... (when there are at least 1/eps values), with
// the weights between them, rounded to float32 as Keras' summary is.
func compressSummary(vals, weights []float64, eps float64) ([]float64, []float64) {
	if float64(len(vals))*eps < 1 {
		return vals, weights
	}
	// Keras sums the float32 weights in float32 and divides in float32.
	cum := make([]float64, len(weights))
	var s float32
	for i, w := range weights {
		s += float32(w)
		cum[i] = float64(s)
	}
	frac := make([]float64, len(cum))
	for i := range cum {
		frac[i] = float64(float32(cum[i]) / s)
	}
	n := int(math.Ceil(1 / eps))
	nv, nw := make([]float64, n), make([]float64, n)
	prev := 0.0
	for i := range n {
		p := eps + float64(i)*eps
		nv[i] = float64(float32(interp(p, frac, vals)))
		c := interp(p, frac, cum)
		nw[i] = float64(float32(c - prev))
		prev = c
	}
	return nv, nw
}

// interp is numpy's interp for one point: the linear interpolation of
// (xp, fp) at x, clamped to the ends.
func interp(x float64, xp, fp []float64) float64 {
	n := len(xp)
	if x > xp[n-1] {
		return fp[n-1]
	}
	if x < xp[0] {
		return fp[0]
	}
	// j: the last index with xp[j] <= x.
	j := sort64(xp, x)
	if j == n-1 || xp[j] == x {
		return fp[j]
	}
	slope := (fp[j+1] - fp[j]) / (xp[j+1] - xp[j])
	return slope*(x-xp[j]) + fp[j]
}

func sort64(xp []float64, x float64) int {
	i, _ := slices.BinarySearchFunc(xp, x, func(e, t float64) int {
		if e <= t {
			return -1
		}
		return 1
	})
	return i - 1
}

// GetConfig implements Layer.
func (l *Discretization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["bin_boundaries"] = nil
	if l.s.BinBoundaries != nil {
		b := make([]any, len(l.s.BinBoundaries))
		for i, v := range l.s.BinBoundaries {
			b[i] = v
		}
		m["bin_boundaries"] = b
	}
	m["num_bins"] = nil
	if l.s.NumBins > 0 {
		m["num_bins"] = l.s.NumBins
	}
	m["epsilon"] = l.s.Epsilon
	m["output_mode"] = l.s.OutputMode
	m["sparse"] = false
	return m
}
