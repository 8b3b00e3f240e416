package keras

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// batches is one pass over the data: Next returns the next batch's values
// (model inputs, then labels when present).
type batches interface {
	Next() ([]ops.Value, bool)
	Err() error
	Close()
}

// source is data Fit, Evaluate and Predict can make passes over.
type source interface {
	// Steps is the number of batches per pass, or <= 0 if unknown.
	Steps() int
	Pass(ctx context.Context, epoch int) batches
	// Samples is the number of examples, or <= 0 if unknown.
	Samples() int
}

// tensorSource batches in-memory arrays, shuffling each epoch as Keras'
// fit does with shuffle=True.
type tensorSource struct {
	arrays  []ops.Value // each (n, ...)
	n       int
	batch   int
	shuffle bool
	seed    uint64
}

func newTensorSource(what string, arrays []*tensor.Dense, batch int, shuffle bool, seed uint64) (*tensorSource, error) {
	s := &tensorSource{batch: batch, shuffle: shuffle, seed: seed}
	for i, a := range arrays {
		if a == nil {
			continue
		}
		if sh := a.Shape(); len(sh) > 0 && sh[0] == 0 {
			return nil, fmt.Errorf("%s: the data is empty (array %d has shape %v: 0 examples)", what, i, sh)
		}
		v, err := valueOf(a)
		if err != nil {
			return nil, fmt.Errorf("%s: array %d: %w", what, i, err)
		}
		if len(v.Shape) == 0 {
			return nil, fmt.Errorf("%s: array %d is a scalar; want one row per example", what, i)
		}
		if i == 0 {
			s.n = v.Shape[0]
		} else if v.Shape[0] != s.n {
			return nil, fmt.Errorf("%s: x has %d examples but y has %d (shapes %v and %v)", what, s.n, v.Shape[0], s.arrays[0].Shape, v.Shape)
		}
		s.arrays = append(s.arrays, v)
	}
	if s.n == 0 {
		return nil, fmt.Errorf("%s: the data is empty (0 examples)", what)
	}
	if batch <= 0 {
		s.batch = 32
	}
	return s, nil
}

func (s *tensorSource) Steps() int   { return (s.n + s.batch - 1) / s.batch }
func (s *tensorSource) Samples() int { return s.n }

// split returns the first (1-frac) and the last frac of the examples, as
// Keras' validation_split takes the last examples before shuffling.
func (s *tensorSource) split(frac float64) (*tensorSource, *tensorSource, error) {
	nVal := int(float64(s.n) * frac)
	if nVal <= 0 || nVal >= s.n {
		return nil, nil, fmt.Errorf("validation_split %v leaves %d of %d examples for validation", frac, nVal, s.n)
	}
	cut := func(lo, hi int) *tensorSource {
		t := *s
		t.arrays = nil
		t.n = hi - lo
		for _, a := range s.arrays {
			row := a.Shape[1:].Size()
			sh := append(ops.Shape{hi - lo}, a.Shape[1:]...)
			t.arrays = append(t.arrays, ops.Value{Shape: sh, Data: a.Data[lo*row : hi*row]})
		}
		return &t
	}
	return cut(0, s.n-nVal), cut(s.n-nVal, s.n), nil
}

func (s *tensorSource) Pass(_ context.Context, epoch int) batches {
	p := &tensorPass{s: s}
	if s.shuffle {
		r := rand.New(rand.NewPCG(s.seed, uint64(epoch)))
		p.perm = r.Perm(s.n)
	}
	return p
}

type tensorPass struct {
	s    *tensorSource
	perm []int
	pos  int
	bufs [][]float32 // gather buffers, reused batch to batch
}

func (p *tensorPass) Next() ([]ops.Value, bool) {
	s := p.s
	if p.pos >= s.n {
		return nil, false
	}
	lo, hi := p.pos, min(p.pos+s.batch, s.n)
	p.pos = hi
	out := make([]ops.Value, len(s.arrays))
	for i, a := range s.arrays {
		row := a.Shape[1:].Size()
		sh := append(ops.Shape{hi - lo}, a.Shape[1:]...)
		if p.perm == nil {
			out[i] = ops.Value{Shape: sh, Data: a.Data[lo*row : hi*row]}
			continue
		}
		if p.bufs == nil {
			p.bufs = make([][]float32, len(s.arrays))
		}
		// A fresh buffer per batch: the previous batch may still be in use
		// by a step running ahead of the input pipeline.
		buf := make([]float32, (hi-lo)*row)
		for j, k := range p.perm[lo:hi] {
			copy(buf[j*row:(j+1)*row], a.Data[k*row:(k+1)*row])
		}
		out[i] = ops.Value{Shape: sh, Data: buf}
	}
	return out, true
}

func (p *tensorPass) Err() error { return nil }
func (p *tensorPass) Close()     {}

// datasetSource adapts a datasets.Dataset: each element is one batch.
type datasetSource struct {
	ds *datasets.Dataset
}

func (s datasetSource) Steps() int {
	if c := s.ds.Cardinality(); c >= 0 {
		return c
	}
	return 0
}

func (s datasetSource) Samples() int { return 0 }

// needSteps is Keras' error for an infinitely repeating dataset given
// without the number of steps to take from it, which would never end.
func needSteps(what string, src source, steps int, stepsName string) error {
	if ds, ok := src.(datasetSource); ok && steps <= 0 && ds.ds.Cardinality() == datasets.Infinite {
		return fmt.Errorf("%s: the dataset repeats forever (Cardinality Infinite); give %s, the number of batches to take from it", what, stepsName)
	}
	return nil
}

func (s datasetSource) Pass(ctx context.Context, epoch int) batches {
	// The epoch fixes the dataset's shuffle order, so a resumed run
	// (BackupAndRestore) sees the orders of an uninterrupted one.
	return &datasetPass{it: s.ds.Iterate(datasets.WithEpoch(ctx, epoch))}
}

type datasetPass struct {
	it  *datasets.Iterator
	err error
}

func (p *datasetPass) Next() ([]ops.Value, bool) {
	el, ok := p.it.Next()
	if !ok {
		return nil, false
	}
	out := make([]ops.Value, len(el))
	for i, t := range el {
		v, err := valueOf(t)
		if err != nil {
			p.err = fmt.Errorf("dataset element %d: %w", i, err)
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

func (p *datasetPass) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.it.Err()
}

func (p *datasetPass) Close() { p.it.Close() }

// toSource turns Fit's, Evaluate's or Predict's x (and y, and the sample
// weights sw) into a source whose batches are the model's inputs, then
// the labels, then the sample weights when given (see multi_io.go for the
// forms each may take). x may also be a dataset (y and sw nil), or a
// Keras tuple with y and sw nil: {x, y} or {x, y, sample_weight} as
// []*tensor.Dense or [2]/[3]*tensor.Dense for a single-input model, or
// []any{x, y} / []any{x, y, sample_weight} of any of the forms.
func (m *Model) toSource(what string, x, y, sw any, batch int, shuffle bool, seed uint64) (source, error) {
	if isNil(y) {
		y = nil
	}
	if isNil(sw) {
		sw = nil
	}
	noYSW := func(kind string) error {
		if y != nil {
			return fmt.Errorf("%s: y must be nil when x is a %s (it yields (x, y))", what, kind)
		}
		if sw != nil {
			return fmt.Errorf("%s: SampleWeight must be nil when x is a %s (it yields (x, y, sample_weight))", what, kind)
		}
		return nil
	}
	switch xv := x.(type) {
	case nil:
		return nil, fmt.Errorf("%s: no data", what)
	case *datasets.Dataset:
		if xv == nil {
			return nil, fmt.Errorf("%s: nil dataset", what)
		}
		if err := noYSW("dataset"); err != nil {
			return nil, err
		}
		return datasetSource{xv}, nil
	case NamedDataset:
		if err := noYSW("dataset"); err != nil {
			return nil, err
		}
		return m.namedSource(what, xv)
	case *NamedDataset:
		if xv == nil {
			return nil, fmt.Errorf("%s: nil dataset", what)
		}
		if err := noYSW("dataset"); err != nil {
			return nil, err
		}
		return m.namedSource(what, *xv)
	case []any:
		if err := noYSW("tuple"); err != nil {
			return nil, err
		}
		switch len(xv) {
		case 2:
			return m.toSource(what, xv[0], xv[1], nil, batch, shuffle, seed)
		case 3:
			if isNil(xv[1]) || isNil(xv[2]) {
				return nil, fmt.Errorf("%s: {x, y, sample_weight} with a nil y or sample_weight", what)
			}
			return m.toSource(what, xv[0], xv[1], xv[2], batch, shuffle, seed)
		}
		return nil, fmt.Errorf("%s: a tuple must be {x, y} or {x, y, sample_weight}; got %d components", what, len(xv))
	case [2]*tensor.Dense:
		if y == nil {
			return m.toSource(what, xv[0], xv[1], sw, batch, shuffle, seed)
		}
	case [3]*tensor.Dense:
		if y == nil && sw == nil {
			return m.toSource(what, []any{xv[0], xv[1], xv[2]}, nil, nil, batch, shuffle, seed)
		}
	case []*tensor.Dense:
		// Keras' (x, y) and (x, y, sample_weight) tuples, for a model
		// with one input; with several, x is the inputs.
		if y == nil && m.nInputs() == 1 {
			switch len(xv) {
			case 2:
				return m.toSource(what, xv[0], xv[1], sw, batch, shuffle, seed)
			case 3:
				if sw == nil {
					return m.toSource(what, []any{xv[0], xv[1], xv[2]}, nil, nil, batch, shuffle, seed)
				}
			}
		}
	}
	switch x.(type) {
	case *tensor.Dense, []*tensor.Dense, map[string]*tensor.Dense:
	default:
		return nil, fmt.Errorf("%s: data must be a *tensor.Dense, a []*tensor.Dense or map[string]*tensor.Dense of the inputs (with y), "+
			"a *datasets.Dataset, a NamedDataset, {x, y} or {x, y, sample_weight}; got %T", what, x)
	}
	if isNil(x) {
		return nil, fmt.Errorf("%s: nil x", what)
	}
	arrs, err := m.arrays(what, x, y, sw)
	if err != nil {
		return nil, err
	}
	return newTensorSource(what, arrs, batch, shuffle, seed)
}

// rowsOf is the number of examples of array data x ({x, y} pairs
// included), or 0 when unknown.
func rowsOf(x any) int {
	var d *tensor.Dense
	switch x := x.(type) {
	case *tensor.Dense:
		d = x
	case []*tensor.Dense:
		if len(x) > 0 {
			d = x[0]
		}
	case [2]*tensor.Dense:
		d = x[0]
	case [3]*tensor.Dense:
		d = x[0]
	}
	if d == nil || len(d.Shape()) == 0 {
		return 0
	}
	return d.Shape()[0]
}

// valueOf is ops.ValueOf for arrays from the caller: a nil array or one
// with no elements is an error rather than a panic.
func valueOf(d *tensor.Dense) (ops.Value, error) {
	if d == nil {
		return ops.Value{}, errors.New("nil array")
	}
	for _, n := range d.Shape() {
		if n == 0 {
			return ops.Value{}, fmt.Errorf("the array is empty (shape %v)", d.Shape())
		}
	}
	return ops.ValueOf(d)
}

var errEmpty = errors.New("the data is empty: no batch was produced")
