package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Bounds on the arguments of the goroutine stages: a prefetch buffer is
// allocated in full when a pass starts, and every worker is a goroutine.
const (
	maxPrefetch = 1 << 16
	maxWorkers  = 1 << 12
)

// Prefetch runs the pipeline before it in a goroutine that stays up to n
// elements ahead of the consumer, so that preparing the next batch overlaps
// with training on the current one. Prefetch(0) returns d unchanged;
// Prefetch(Autotune) chooses the buffer, as tf.data.AUTOTUNE. The
// goroutine stops when the iterator is closed, finishes, or its context is
// cancelled.
func (d *Dataset) Prefetch(n int) *Dataset {
	if n == 0 && d != nil {
		return d
	}
	if n == Autotune {
		n = autotunePrefetch
	}
	var argErr error
	if n < 0 || n > maxPrefetch {
		argErr = fmt.Errorf("buffer size %d, want 0 to %d", n, maxPrefetch)
	}
	return d.derive("Prefetch", d.Cardinality(), argErr, func(parent context.Context) stream {
		ctx, cancel := context.WithCancel(parent)
		s := &prefetchStream{ctx: ctx, cancel: cancel, ch: make(chan result, n)}
		up := d.open(ctx)
		s.wg.Go(func() {
			defer close(s.ch)
			defer up.close()
			for i := 0; ; i++ {
				it, err := safeNext(up, "Prefetch", i)
				if err == io.EOF {
					return
				}
				select {
				case s.ch <- result{it, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		})
		return s
	})
}

type result struct {
	it  item
	err error
}

type prefetchStream struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan result
	wg     sync.WaitGroup
}

func (s *prefetchStream) next() (item, error) {
	select {
	case r, ok := <-s.ch:
		if !ok {
			return item{}, endOrCancelled(s.ctx)
		}
		return r.it, r.err
	case <-s.ctx.Done():
		return item{}, s.ctx.Err()
	}
}

func (s *prefetchStream) close() {
	s.cancel()
	s.wg.Wait()
}

// endOrCancelled tells a producer that finished from one that was stopped:
// a closed channel means the end only if nobody cancelled the pass.
func endOrCancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return io.EOF
}

// MapParallel is Map with fn running on workers goroutines (GOMAXPROCS if
// workers <= 0; at most maxWorkers). Elements come out in input order, as
// with tf.data's deterministic map. At most about 2*workers elements are
// in flight. The first error from fn, in input order, ends the iteration;
// so does a panic in fn, as a *PanicError.
func (d *Dataset) MapParallel(fn func(Element) (Element, error), workers int) *Dataset {
	var argErr error
	switch {
	case fn == nil:
		argErr = errors.New("nil function")
	case workers > maxWorkers:
		argErr = fmt.Errorf("%d workers, want at most %d", workers, maxWorkers)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return d.derive("MapParallel", d.Cardinality(), argErr, func(parent context.Context) stream {
		ctx, cancel := context.WithCancel(parent)
		s := &mapParallelStream{ctx: ctx, cancel: cancel, futures: make(chan chan result, workers)}
		up := d.open(ctx)
		jobs := make(chan job)

		// The feeder reads the input in order and, for each element, queues
		// a one-slot future in s.futures before handing the element to a
		// worker. The consumer reads futures in queue order, which is what
		// keeps the output in input order whatever the workers' timing.
		s.wg.Go(func() {
			defer close(s.futures)
			defer close(jobs)
			defer up.close()
			for i := 0; ; i++ {
				it, err := safeNext(up, "MapParallel", i)
				if err == io.EOF {
					return
				}
				fut := make(chan result, 1)
				if err != nil {
					fut <- result{err: err}
				}
				select {
				case s.futures <- fut:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
				select {
				case jobs <- job{i, it, fut}:
				case <-ctx.Done():
					return
				}
			}
		})
		for range workers {
			s.wg.Go(func() {
				for j := range jobs {
					e, err := callMap(fn, j.it.element(), "MapParallel", j.i)
					j.fut <- result{item{elem: e}, err} // never blocks: one slot, one send
				}
			})
		}
		return s
	})
}

type job struct {
	i   int
	it  item
	fut chan result
}

type mapParallelStream struct {
	ctx     context.Context
	cancel  context.CancelFunc
	futures chan chan result
	wg      sync.WaitGroup
}

func (s *mapParallelStream) next() (item, error) {
	var fut chan result
	select {
	case f, ok := <-s.futures:
		if !ok {
			return item{}, endOrCancelled(s.ctx)
		}
		fut = f
	case <-s.ctx.Done():
		return item{}, s.ctx.Err()
	}
	select {
	case r := <-fut:
		return r.it, r.err
	case <-s.ctx.Done():
		return item{}, s.ctx.Err()
	}
}

func (s *mapParallelStream) close() {
	s.cancel()
	s.wg.Wait()
}
