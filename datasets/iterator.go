package datasets

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// Iterator is one pass over a Dataset, like the Go database/sql Rows:
//
//	it := ds.Iterate(ctx)
//	defer it.Close()
//	for e, ok := it.Next(); ok; e, ok = it.Next() {
//		...
//	}
//	if err := it.Err(); err != nil {
//		...
//	}
//
// Next must be called from one goroutine at a time. Close may be called from
// any goroutine, also while Next is blocked, and more than once.
type Iterator struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex // held by Next while it pulls, so Close never races it
	s        stream
	err      error
	ended    bool        // Next returns false from now on
	released bool        // s is closed
	closing  atomic.Bool // Close was called: the cancellation is not an error
}

// Iterate starts a new pass over d. The pass stops, with ctx.Err() from
// Err, when ctx is cancelled. Close the iterator when done with it; an
// iterator that reached the end or failed releases its goroutines by itself,
// but Close is still the safe habit (e.g. after a break).
func (d *Dataset) Iterate(ctx context.Context) *Iterator {
	if ctx == nil {
		ctx = context.Background()
	}
	if d == nil {
		d = errDataset(errors.New("datasets: Iterate on a nil *Dataset"))
	}
	ctx, cancel := context.WithCancel(ctx)
	return &Iterator{ctx: ctx, cancel: cancel, s: d.open(ctx)}
}

// Next returns the next element, or false at the end of the pass or on an
// error (see Err).
func (it *Iterator) Next() (Element, bool) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.ended {
		return nil, false
	}
	if err := it.ctx.Err(); err != nil {
		it.finish(err)
		return nil, false
	}
	x, err := it.s.next()
	if err != nil {
		it.finish(err)
		return nil, false
	}
	return x.element(), true
}

// finish records why the pass ended and releases its resources. It is
// called with it.mu held. When Close caused the end, Close releases the
// resources itself, so that Next returns without waiting for goroutines.
func (it *Iterator) finish(err error) {
	it.ended = true
	if it.closing.Load() {
		return
	}
	if err != io.EOF && it.err == nil {
		it.err = err
	}
	it.release()
}

func (it *Iterator) release() {
	if !it.released {
		it.released = true
		it.cancel()
		it.s.close()
	}
}

// Err returns the error that ended the pass, or nil if it ended normally,
// has not ended, or was ended by Close.
func (it *Iterator) Err() error {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.err
}

// Close stops the pass and waits for its goroutines to exit. It unblocks a
// Next that is waiting for a goroutine stage (Prefetch, MapParallel); a Next
// busy in a synchronous stage such as Map finishes its element first.
func (it *Iterator) Close() {
	// Cancel before taking the lock: a Next blocked on a channel holds the
	// lock and only returns once the pass is cancelled.
	it.closing.Store(true)
	it.cancel()
	it.mu.Lock()
	defer it.mu.Unlock()
	it.ended = true
	it.release()
}
