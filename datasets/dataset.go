package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"slices"

	"gorgonia.org/tensor"
)

// Cardinality values that are not a count, as in tf.data.
const (
	Infinite = -1 // the dataset never ends (e.g. after Repeat(-1))
	Unknown  = -2 // the number of elements cannot be known without iterating
)

// Element is one element of a dataset: a tuple of tensors such as (x, y).
type Element []*tensor.Dense

// Dataset is an immutable description of a stream of Elements, in the
// manner of tf.data.Dataset. Transformations return new Datasets and leave
// the receiver unchanged; each Iterate starts a fresh pass.
//
// Elements produced by FromTensorSlices (and passed on unchanged by Shuffle,
// Take, Skip, Repeat, Cache, Prefetch) share memory with the sliced tensors, so they
// are cheap; they must be treated as read-only. Batch always returns new
// tensors.
//
// Invalid arguments to a transformation (Batch(0), ...) do not panic: the
// resulting Dataset reports the error from its iterator's Err.
type Dataset struct {
	card int
	err  error
	// open starts one pass. Stages that run goroutines stop them when ctx
	// is cancelled and wait for them in close.
	open func(ctx context.Context) stream
	// attrs are Keras' attributes of a dataset made from a folder
	// (attributes.go); transformations drop them, as tf.data's do.
	attrs *attributes
}

// item is what flows between stages. A row of a FromTensorSlices source
// travels as (src, row) and becomes tensors only when something needs them:
// Shuffle's buffer then holds 16-byte items instead of tensors, and Batch
// copies rows straight from the source memory, so a shuffled, batched
// epoch allocates per batch, not per example.
type item struct {
	elem Element
	src  *tensorSlices
	row  int
}

func (it item) element() Element {
	if it.src != nil {
		return it.src.element(it.row)
	}
	return it.elem
}

// stream is one pass over a dataset. next returns io.EOF at the end. A
// stream is used by one goroutine at a time; close is called once, after
// the last next has returned.
type stream interface {
	next() (item, error)
	close()
}

// errDataset builds a Dataset whose iteration fails at once with err.
func errDataset(err error) *Dataset {
	return &Dataset{card: Unknown, err: err, open: func(context.Context) stream { return errStream{err} }}
}

type errStream struct{ err error }

func (s errStream) next() (item, error) { return item{}, s.err }
func (errStream) close()                {}

// derive builds a transformation of d, propagating d's own error.
func (d *Dataset) derive(name string, card int, argErr error, open func(ctx context.Context) stream) *Dataset {
	switch {
	case d == nil:
		return errDataset(fmt.Errorf("datasets: %s on a nil *Dataset", name))
	case d.err != nil:
		return d
	case argErr != nil:
		return errDataset(fmt.Errorf("datasets: %s: %w", name, argErr))
	}
	return &Dataset{card: card, open: open}
}

// Cardinality returns the number of elements, or Infinite, or Unknown (also
// for a Dataset that will fail with an error), following tf.data's rules.
func (d *Dataset) Cardinality() int {
	if d == nil || d.err != nil {
		return Unknown
	}
	return d.card
}

// tensorSlices is the source built by FromTensorSlices.
type tensorSlices struct {
	n        int
	dtypes   []tensor.Dtype
	rowShape []tensor.Shape
	raw      [][]byte                  // each tensor's bytes
	rowBytes []int                     // bytes per row of each tensor
	makeRow  []func(int) *tensor.Dense // builds the view of one row
}

// FromTensorSlices makes a dataset whose i-th element is (ts[0][i],
// ts[1][i], ...), slicing each tensor along dimension 0 like
// tf.data.Dataset.from_tensor_slices. All tensors must have the same size in
// dimension 0. The elements are views sharing the tensors' memory (a 1-D
// tensor yields scalars, shape ()), so the tensors must not be modified
// while the dataset is in use.
func FromTensorSlices(ts ...*tensor.Dense) (*Dataset, error) {
	if len(ts) == 0 {
		return nil, errors.New("datasets: FromTensorSlices: no tensors")
	}
	src := &tensorSlices{}
	shapes := make([]string, len(ts))
	for i, t := range ts {
		if t == nil {
			return nil, fmt.Errorf("datasets: FromTensorSlices: tensor %d is nil", i)
		}
		shapes[i] = fmt.Sprint(t.Shape())
	}
	for i, t := range ts {
		if t.Dims() == 0 {
			return nil, fmt.Errorf("datasets: FromTensorSlices: tensor %d is a scalar; it has no dimension 0 to slice", i)
		}
		n := t.Shape()[0]
		if i > 0 && n != src.n {
			return nil, fmt.Errorf("datasets: FromTensorSlices: tensors disagree in dimension 0: shapes %v", shapes)
		}
		src.n = n
		if !t.IsNativelyAccessible() {
			return nil, fmt.Errorf("datasets: FromTensorSlices: tensor %d's memory is not accessible from Go", i)
		}
		t = contiguous(t)
		rowShape := tensor.Shape(slices.Clone([]int(t.Shape()[1:])))
		rowLen := rowShape.TotalSize()
		src.dtypes = append(src.dtypes, t.Dtype())
		src.rowShape = append(src.rowShape, rowShape)
		src.raw = append(src.raw, denseBytes(t))
		src.rowBytes = append(src.rowBytes, rowLen*int(t.Dtype().Size()))
		src.makeRow = append(src.makeRow, rowMaker(denseSlice(t), rowShape, rowLen))
	}
	return &Dataset{card: src.n, open: func(context.Context) stream { return &slicesStream{src: src} }}, nil
}

// rowMaker returns a function building row i of data as a tensor that
// shares data's memory. The common dtypes avoid reflection.
func rowMaker(data any, shape tensor.Shape, rowLen int) func(int) *tensor.Dense {
	switch s := data.(type) {
	case []float32:
		return typedRowMaker(s, shape, rowLen)
	case []float64:
		return typedRowMaker(s, shape, rowLen)
	case []uint8:
		return typedRowMaker(s, shape, rowLen)
	case []int32:
		return typedRowMaker(s, shape, rowLen)
	case []int64:
		return typedRowMaker(s, shape, rowLen)
	case []int:
		return typedRowMaker(s, shape, rowLen)
	}
	v := reflect.ValueOf(data)
	return func(i int) *tensor.Dense {
		lo, hi := i*rowLen, (i+1)*rowLen
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v.Slice3(lo, hi, hi).Interface()))
	}
}

func typedRowMaker[T any](s []T, shape tensor.Shape, rowLen int) func(int) *tensor.Dense {
	return func(i int) *tensor.Dense {
		lo, hi := i*rowLen, (i+1)*rowLen
		// The capped slice keeps an append on the row from overwriting the next row.
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(s[lo:hi:hi]))
	}
}

func (s *tensorSlices) element(row int) Element {
	e := make(Element, len(s.makeRow))
	for j, mk := range s.makeRow {
		e[j] = mk(row)
	}
	return e
}

type slicesStream struct {
	src *tensorSlices
	i   int
}

func (s *slicesStream) next() (item, error) {
	if s.i >= s.src.n {
		return item{}, io.EOF
	}
	s.i++
	return item{src: s.src, row: s.i - 1}, nil
}

func (s *slicesStream) close() {}

// FromGenerator makes a dataset from a function that calls yield for each
// element, like a Go 1.23 iterator that can fail. fn runs again from the
// start for each pass; it must return when yield returns false (the
// consumer stopped). An error it returns ends the pass and is reported by
// Iterator.Err. cardinality is the number of elements fn yields, or
// Infinite or Unknown.
func FromGenerator(fn func(yield func(Element) bool) error, cardinality int) *Dataset {
	if fn == nil {
		return errDataset(errors.New("datasets: FromGenerator: nil function"))
	}
	if cardinality < Unknown {
		cardinality = Unknown
	}
	return &Dataset{card: cardinality, open: func(context.Context) stream {
		g := &generatorStream{}
		// iter.Pull runs fn as a coroutine: no goroutine to leak, and
		// stop makes yield return false so fn can finish. A panic in fn
		// would come out of pull, in whatever goroutine iterates (a
		// Prefetch's): it becomes the pass's error instead.
		g.pull, g.stop = iter.Pull(func(yield func(Element) bool) {
			defer catchPanic(&g.err, "generator", func() string { return fmt.Sprintf("after %d elements", g.n) })
			g.err = fn(yield)
		})
		return g
	}}
}

type generatorStream struct {
	pull func() (Element, bool)
	stop func()
	err  error
	n    int
}

func (g *generatorStream) next() (item, error) {
	e, ok := g.pull()
	if !ok {
		if _, panicked := g.err.(*PanicError); panicked {
			return item{}, g.err
		}
		if g.err != nil {
			return item{}, fmt.Errorf("datasets: generator failed after %d elements: %w", g.n, g.err)
		}
		return item{}, io.EOF
	}
	g.n++
	return item{elem: e}, nil
}

func (g *generatorStream) close() { g.stop() }
