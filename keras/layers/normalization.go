package layers

import (
	"fmt"
	"math"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// normalizationEpsilon is Keras' backend.epsilon(), the floor of the
// standard deviation Normalization divides by.
const normalizationEpsilon = 1e-7

// NormalizationSettings are the arguments of keras.layers.Normalization.
// The zero value is Keras' default: axis -1, mean and variance learned by
// Adapt (or loaded), invert off.
type NormalizationSettings struct {
	// Axis lists the axes that keep their own mean and variance (Keras'
	// axis); nil means -1, the last axis. The batch axis cannot be kept.
	Axis []int
	// AxisNone is Keras' axis=None: one mean and variance for all values.
	AxisNone bool
	// Mean and Variance, when given, are fixed (Keras' mean= and
	// variance=): one value each, or one per element of the kept axes
	// (row-major). Then the layer has no weights and Adapt is refused.
	Mean, Variance []float64
	// Invert maps normalized values back: mean + x * sqrt(variance).
	Invert bool
}

// Normalization is keras.layers.Normalization: (x - mean) /
// max(sqrt(variance), 1e-7), or mean + x * max(sqrt(variance), 1e-7)
// inverted, with one mean and variance per position of the kept axes.
// Without a given mean and variance the layer has Keras' three
// non-trainable weights mean, variance (the kept axes' shape) and count (a
// scalar Keras keeps for old files and leaves at 0), set by Adapt or by
// loading a saved model.
//
// Python: keras.layers.Normalization(axis=-1, mean=None, variance=None, invert=False)
// Go:     layers.NewNormalization(layers.NormalizationSettings{})
type Normalization struct {
	Base
	s              NormalizationSettings
	keep           []int // kept axes, sorted, non-negative
	bshape         ops.Shape
	Mean, Variance *ops.Variable
	Count          *ops.Variable
	inShape        ops.Shape
}

// NewNormalization makes a Normalization layer. Options: WithName,
// WithInputShape.
func NewNormalization(s NormalizationSettings, opts ...Option) *Normalization {
	l := &Normalization{s: s}
	l.s.Axis = slices.Clone(s.Axis)
	l.s.Mean, l.s.Variance = slices.Clone(s.Mean), slices.Clone(s.Variance)
	if l.s.Axis == nil && !s.AxisNone {
		l.s.Axis = []int{-1}
	}
	if s.AxisNone {
		l.s.Axis = nil
	}
	l.init("Normalization", nil, opts)
	if l.err == nil && (s.Mean == nil) != (s.Variance == nil) {
		l.err = fmt.Errorf("layers: Normalization %q: give both mean and variance or neither (mean %v, variance %v)", l.name, s.Mean, s.Variance)
	}
	if l.err == nil && s.Mean != nil {
		for _, v := range s.Variance {
			if !(v >= 0) {
				l.err = fmt.Errorf("layers: Normalization %q: variance %v is not a non-negative number", l.name, v)
				break
			}
		}
	}
	return l
}

// Build implements Layer.
func (l *Normalization) Build(in []ops.Shape) error {
	s := in[0]
	nd := len(s)
	keep := make([]int, 0, len(l.s.Axis))
	for _, a := range l.s.Axis {
		if a < -nd || a >= nd {
			return fmt.Errorf("axis %d out of range for an input of rank %d (shape %v)", a, nd, s)
		}
		if a < 0 {
			a += nd
		}
		if s[a] <= 0 {
			return fmt.Errorf("kept axis %d of input shape %v must have a known size", a, s)
		}
		if !slices.Contains(keep, a) {
			keep = append(keep, a)
		}
	}
	slices.Sort(keep)
	l.keep = keep
	l.bshape = make(ops.Shape, nd)
	var kept ops.Shape
	for d := range nd {
		l.bshape[d] = 1
		if slices.Contains(keep, d) {
			l.bshape[d] = s[d]
			kept = append(kept, s[d])
		}
	}
	if kept == nil {
		kept = ops.Shape{}
	}
	l.inShape = s.Clone()
	if l.s.Mean != nil {
		n := kept.Size()
		for _, v := range [][]float64{l.s.Mean, l.s.Variance} {
			if len(v) != 1 && len(v) != n {
				return fmt.Errorf("mean and variance need 1 or %d values (kept axes %v of shape %v), got %d", n, keep, s, len(v))
			}
		}
	} else {
		l.Mean = l.AddWeight("mean", kept, Zeros(), false, nil)
		l.Variance = l.AddWeight("variance", kept, Ones(), false, nil)
		l.Count = l.AddWeight("count", ops.Shape{}, Zeros(), false, nil)
	}
	l.built = true
	return nil
}

// IntegerWeights lists the weights Keras keeps as integers: count, an
// int64 in Keras' weight files (gokeras holds it in a float32 variable,
// exact up to 2^24; it only weighs later adapt calls, never the output).
// Nil for a layer with a given mean and variance (no weights).
func (l *Normalization) IntegerWeights() []*ops.Variable {
	if l.Count == nil {
		return nil
	}
	return []*ops.Variable{l.Count}
}

// Call implements Layer.
func (l *Normalization) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	tr := x.Trace()
	if len(x.Shape()) != len(l.bshape) {
		panic(&ops.Error{Op: "Normalization " + l.name, Msg: fmt.Sprintf("built for rank %d, got shape %v", len(l.bshape), x.Shape())})
	}
	var mean, std ops.Tensor
	if l.s.Mean != nil {
		n := l.bshape.Size()
		m, sd := make([]float32, n), make([]float32, n)
		for i := range n {
			m[i] = float32(pick(l.s.Mean, i))
			sd[i] = float32(math.Max(math.Sqrt(float64(float32(pick(l.s.Variance, i)))), normalizationEpsilon))
		}
		mean, std = tr.Constant(l.bshape, m), tr.Constant(l.bshape, sd)
	} else {
		mean = ops.Reshape(tr.Read(l.Mean), l.bshape)
		v := ops.Reshape(tr.Read(l.Variance), l.bshape)
		eps := make([]float32, l.bshape.Size())
		for i := range eps {
			eps[i] = normalizationEpsilon
		}
		std = ops.Maximum(ops.Sqrt(v), tr.Constant(l.bshape, eps))
	}
	if l.s.Invert {
		return ops.Add(mean, ops.Mul(x, std))
	}
	return ops.Div(ops.Sub(x, mean), std)
}

func pick(v []float64, i int) float64 {
	if len(v) == 1 {
		return v[0]
	}
	return v[i]
}

// Adapt sets the mean and the (biased) variance from data of the given
// shape (its first axis the batch), each over every axis but the kept ones,
// as Keras' adapt on one array. It builds the layer from the data's shape
// when it is not built yet.
func (l *Normalization) Adapt(shape ops.Shape, data []float32) error {
	if l.err != nil {
		return l.err
	}
	if l.s.Mean != nil {
		return fmt.Errorf("layers: Normalization %q: Adapt with a fixed mean and variance", l.name)
	}
	if len(shape) == 0 || shape.Size() != len(data) || shape[0] <= 0 {
		return fmt.Errorf("layers: Normalization %q: Adapt: %d values for shape %v", l.name, len(data), shape)
	}
	if !l.built {
		bs := append(ops.Shape{-1}, shape[1:]...)
		if err := l.Build([]ops.Shape{bs}); err != nil {
			return fmt.Errorf("layers: Normalization %q: Adapt: %w", l.name, err)
		}
	}
	if len(shape) != len(l.bshape) {
		return fmt.Errorf("layers: Normalization %q: Adapt: data of shape %v, layer built for rank %d", l.name, shape, len(l.bshape))
	}
	for _, d := range l.keep {
		if shape[d] != l.bshape[d] {
			return fmt.Errorf("layers: Normalization %q: Adapt: data of shape %v, kept axis %d has size %d", l.name, shape, d, l.bshape[d])
		}
	}
	k := l.Mean.Shape().Size()
	sum, sq := make([]float64, k), make([]float64, k)
	idx := make([]int, len(shape))
	pos := func() int { // index into the kept values of the current element
		p := 0
		for _, d := range l.keep {
			p = p*shape[d] + idx[d]
		}
		return p
	}
	for _, v := range data {
		sum[pos()] += float64(v)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	n := float64(len(data) / k)
	for i := range sum {
		sum[i] /= n
	}
	clear(idx)
	for _, v := range data {
		d := float64(v) - sum[pos()]
		sq[pos()] += d * d
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	m, va := make([]float32, k), make([]float32, k)
	for i := range sum {
		m[i], va[i] = float32(sum[i]), float32(sq[i]/n)
	}
	if err := l.Mean.Assign(m); err != nil {
		return err
	}
	return l.Variance.Assign(va)
}

// GetConfig implements Layer.
func (l *Normalization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["axis"] = intsAny(l.s.Axis)
	if l.s.Axis == nil {
		m["axis"] = []any{}
	}
	m["invert"] = l.s.Invert
	m["mean"], m["variance"] = nil, nil
	if l.s.Mean != nil {
		m["mean"], m["variance"] = floatsAny(l.s.Mean), floatsAny(l.s.Variance)
	}
	return m
}

func floatsAny(v []float64) any {
	if len(v) == 1 {
		return v[0]
	}
	out := make([]any, len(v))
	for i, f := range v {
		out[i] = f
	}
	return out
}
