package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"gorgonia.org/tensor"
)

// Shuffle randomly shuffles the elements with tf.data's algorithm: it fills
// a buffer with bufferSize elements and repeatedly emits a random one,
// refilling its slot from the input. A buffer at least as large as the
// dataset gives a uniform permutation; a smaller one only mixes nearby
// elements but starts faster and holds less.
//
// Like tf.data's reshuffle_each_iteration, every pass (every Iterate, and
// every repetition under Repeat) uses a different order. The order of the
// k-th pass is a function of seed and k only, so a program that iterates in
// the same way sees the same orders on every run.
//
// The seed is optional, as in tf.data: Shuffle(n) draws one at random when
// it is called, so the orders differ from run to run; Shuffle(n, seed)
// repeats them. More than one seed is an error.
func (d *Dataset) Shuffle(bufferSize int, seed ...int64) *Dataset {
	var argErr error
	if bufferSize <= 0 {
		argErr = fmt.Errorf("buffer size %d, want > 0", bufferSize)
	}
	if len(seed) > 1 {
		argErr = fmt.Errorf("%d seeds %v, want at most one", len(seed), seed)
	}
	s := rand.Int64()
	if len(seed) == 1 {
		s = seed[0]
	}
	return d.shuffle(bufferSize, s, argErr)
}

func (d *Dataset) shuffle(bufferSize int, seed int64, argErr error) *Dataset {
	var passes atomic.Uint64
	return d.derive("Shuffle", d.Cardinality(), argErr, func(ctx context.Context) stream {
		pass, ok := passFromContext(ctx)
		if !ok {
			pass = passes.Add(1) - 1
		}
		// Both PCG words depend on the pass so that passes of the same
		// seed, and seeds of the same pass, give unrelated orders.
		rng := rand.New(rand.NewPCG(uint64(seed)^0x9e3779b97f4a7c15*(pass+1), pass))
		capHint := bufferSize
		if c := d.card; c >= 0 && c < capHint {
			capHint = c
		}
		return &shuffleStream{up: d.open(ctx), rng: rng, size: bufferSize, buf: make([]item, 0, min(capHint, 1<<16))}
	})
}

type shuffleStream struct {
	up     stream
	rng    *rand.Rand
	size   int
	buf    []item
	upDone bool
}

func (s *shuffleStream) next() (item, error) {
	for !s.upDone && len(s.buf) < s.size {
		it, err := s.up.next()
		if err == io.EOF {
			s.upDone = true
			break
		}
		if err != nil {
			return item{}, err
		}
		s.buf = append(s.buf, it)
	}
	if len(s.buf) == 0 {
		return item{}, io.EOF
	}
	i := s.rng.IntN(len(s.buf))
	it := s.buf[i]
	last := len(s.buf) - 1
	s.buf[i] = s.buf[last]
	s.buf[last] = item{} // let the tensors be collected
	s.buf = s.buf[:last]
	return it, nil
}

func (s *shuffleStream) close() { s.up.close() }

// Batch combines n consecutive elements into one, stacking each component
// along a new dimension 0: elements ((28, 28), ()) become ((n, 28, 28),
// (n,)). The last batch has fewer elements unless dropRemainder is true, in
// which case it is dropped. Every component of a batch is one new
// contiguous tensor filled with one copy per row; all elements must agree
// in dtype and shape, component by component.
//
// dropRemainder is optional, false when left out as in tf.data: Batch(32)
// keeps a last partial batch, Batch(32, true) drops it. More than one
// value is an error.
func (d *Dataset) Batch(n int, drop ...bool) *Dataset {
	var argErr error
	if n <= 0 {
		argErr = fmt.Errorf("batch size %d, want > 0", n)
	}
	if len(drop) > 1 {
		argErr = fmt.Errorf("%d drop_remainder values %v, want at most one", len(drop), drop)
	}
	dropRemainder := len(drop) == 1 && drop[0]
	card := d.Cardinality()
	if card >= 0 && n > 0 {
		rest := card % n
		if card /= n; rest > 0 && !dropRemainder {
			card++
		}
	}
	return d.derive("Batch", card, argErr, func(ctx context.Context) stream {
		// The buffer grows as elements arrive: n may be far larger than
		// the dataset (tf.data allows it).
		return &batchStream{up: d.open(ctx), n: n, drop: dropRemainder, items: make([]item, 0, min(n, 1024))}
	})
}

type batchStream struct {
	up    stream
	n     int
	drop  bool
	items []item
	count int // batches produced, for error messages
}

func (s *batchStream) next() (item, error) {
	s.items = s.items[:0]
	for len(s.items) < s.n {
		it, err := s.up.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return item{}, err
		}
		s.items = append(s.items, it)
	}
	if len(s.items) == 0 || (s.drop && len(s.items) < s.n) {
		return item{}, io.EOF
	}
	e, err := stack(s.items)
	clear(s.items) // do not keep the inputs alive until the next batch
	if err != nil {
		return item{}, fmt.Errorf("datasets: Batch: batch %d: %w", s.count, err)
	}
	s.count++
	return item{elem: e}, nil
}

func (s *batchStream) close() { s.up.close() }

// component returns the dtype, shape and bytes of component j of an item
// without building tensors for rows of a FromTensorSlices source.
func component(it item, j int) (tensor.Dtype, tensor.Shape, []byte, error) {
	if s := it.src; s != nil {
		if j >= len(s.raw) {
			return tensor.Dtype{}, nil, nil, fmt.Errorf("element has %d components, want more than %d", len(s.raw), j)
		}
		rb := s.rowBytes[j]
		return s.dtypes[j], s.rowShape[j], s.raw[j][it.row*rb : (it.row+1)*rb], nil
	}
	if j >= len(it.elem) {
		return tensor.Dtype{}, nil, nil, fmt.Errorf("element has %d components, want more than %d", len(it.elem), j)
	}
	t := it.elem[j]
	if t == nil {
		return tensor.Dtype{}, nil, nil, fmt.Errorf("component %d is nil", j)
	}
	if !t.IsNativelyAccessible() {
		return tensor.Dtype{}, nil, nil, fmt.Errorf("component %d's memory is not accessible from Go", j)
	}
	t = contiguous(t)
	return t.Dtype(), t.Shape(), denseBytes(t), nil
}

func arity(it item) int {
	if it.src != nil {
		return len(it.src.raw)
	}
	return len(it.elem)
}

// stack builds one batch from items: a single allocation per component,
// then one copy per row.
func stack(items []item) (Element, error) {
	k := arity(items[0])
	for i, it := range items {
		if a := arity(it); a != k {
			return nil, fmt.Errorf("element %d has %d components, element 0 has %d", i, a, k)
		}
	}
	out := make(Element, k)
	for j := range k {
		dt, shape, row0, err := component(items[0], j)
		if err != nil {
			return nil, fmt.Errorf("element 0: %w", err)
		}
		shape = slices.Clone(shape) // shapes of views may be shared
		t := newDense(dt, append([]int{len(items)}, shape...))
		dst := denseBytes(t)
		copy(dst, row0)
		rb := len(row0)
		for i := 1; i < len(items); i++ {
			dti, si, row, err := component(items[i], j)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			if dti != dt || !si.Eq(shape) {
				return nil, fmt.Errorf("component %d of element %d is %v %v, element 0 has %v %v", j, i, dti, si, dt, shape)
			}
			copy(dst[i*rb:], row)
		}
		out[j] = t
	}
	return out, nil
}

// Map applies fn to every element, in order, in the iterating goroutine.
// An error from fn ends the iteration and is reported by Iterator.Err. fn
// must not modify its input in place (it may share memory with the source
// tensors); it should return new tensors. See MapParallel to use several
// goroutines.
func (d *Dataset) Map(fn func(Element) (Element, error)) *Dataset {
	var argErr error
	if fn == nil {
		argErr = errors.New("nil function")
	}
	return d.derive("Map", d.Cardinality(), argErr, func(ctx context.Context) stream {
		return &mapStream{up: d.open(ctx), fn: fn}
	})
}

type mapStream struct {
	up stream
	fn func(Element) (Element, error)
	i  int
}

func (s *mapStream) next() (item, error) {
	it, err := s.up.next()
	if err != nil {
		return item{}, err
	}
	e, err := callMap(s.fn, it.element(), "Map", s.i)
	if err != nil {
		return item{}, err
	}
	s.i++
	return item{elem: e}, nil
}

func (s *mapStream) close() { s.up.close() }

func mapError(i int, err error) error {
	return fmt.Errorf("datasets: map function failed on element %d: %w", i, err)
}

// Take keeps the first n elements (all of them if n < 0, as in tf.data).
func (d *Dataset) Take(n int) *Dataset {
	card := d.Cardinality()
	switch {
	case n < 0:
	case n == 0:
		card = 0
	case card == Infinite:
		card = n
	case card >= 0:
		card = min(card, n)
	}
	return d.derive("Take", card, nil, func(ctx context.Context) stream {
		return &takeStream{up: d.open(ctx), left: n}
	})
}

type takeStream struct {
	up   stream
	left int // < 0: unlimited
}

func (s *takeStream) next() (item, error) {
	if s.left == 0 {
		return item{}, io.EOF
	}
	it, err := s.up.next()
	if err == nil && s.left > 0 {
		s.left--
	}
	return it, err
}

func (s *takeStream) close() { s.up.close() }

// Skip drops the first n elements (all of them if n < 0, as in tf.data).
func (d *Dataset) Skip(n int) *Dataset {
	card := d.Cardinality()
	switch {
	case card < 0: // Infinite or Unknown stay so
	case n < 0:
		card = 0
	default:
		card = max(0, card-n)
	}
	return d.derive("Skip", card, nil, func(ctx context.Context) stream {
		return &skipStream{ctx: ctx, up: d.open(ctx), left: n}
	})
}

type skipStream struct {
	ctx  context.Context
	up   stream
	left int // < 0: skip everything
}

func (s *skipStream) next() (item, error) {
	for i := 0; s.left != 0; i++ {
		// Skipping all of an infinite dataset never ends; checking the
		// context now and then lets Iterator.Close or a deadline stop it.
		if i%1024 == 1023 {
			if err := s.ctx.Err(); err != nil {
				return item{}, err
			}
		}
		if _, err := s.up.next(); err != nil {
			return item{}, err
		}
		if s.left > 0 {
			s.left--
		}
	}
	return s.up.next()
}

func (s *skipStream) close() { s.up.close() }

// Repeat repeats the dataset count times, forever without a count (as
// tf.data's repeat()) or with count < 0. Each repetition is a new pass over
// d, so a Shuffle before Repeat gives each repetition a different order.
// Repeating a dataset that turns out to be empty ends instead of looping
// forever. More than one count is an error.
func (d *Dataset) Repeat(counts ...int) *Dataset {
	count := -1
	switch len(counts) {
	case 0:
	case 1:
		count = counts[0]
	default:
		return d.derive("Repeat", Unknown, fmt.Errorf("%d counts, want at most one", len(counts)), nil)
	}
	card := d.Cardinality()
	switch {
	case count < 0:
		if card != 0 {
			card = Infinite
		}
	case count == 0:
		card = 0
	case card > math.MaxInt/count:
		card = math.MaxInt // more than any loop will take, rather than an overflow
	case card >= 0:
		card *= count
	}
	return d.derive("Repeat", card, nil, func(ctx context.Context) stream {
		return &repeatStream{ctx: ctx, d: d, count: count}
	})
}

type repeatStream struct {
	ctx   context.Context
	d     *Dataset
	count int
	done  int    // finished repetitions
	cur   stream // nil between repetitions
	got   bool   // the current repetition produced an element
}

func (s *repeatStream) next() (item, error) {
	for {
		if s.cur == nil {
			if s.count >= 0 && s.done >= s.count {
				return item{}, io.EOF
			}
			s.cur, s.got = s.d.open(s.ctx), false
		}
		it, err := s.cur.next()
		if err != io.EOF {
			s.got = s.got || err == nil
			return it, err
		}
		s.cur.close()
		s.cur = nil
		s.done++
		if !s.got {
			return item{}, io.EOF
		}
	}
}

func (s *repeatStream) close() {
	if s.cur != nil {
		s.cur.close()
		s.cur = nil
	}
}
