package distribute

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/gokeras/gokeras/internal/mpi"
)

// mpiCollective is the MPI engine of the cross-worker collectives
// (internal/mpi; the real binding needs the mpi build tag). Every call is
// guarded: arrival notes tell which ranks reached it, and a watchdog
// aborts the job when it does not finish within the timeout.
type mpiCollective struct {
	opts   CommunicationOptions
	rk, sz int

	mu      sync.Mutex // one collective at a time from this process
	stream  mpi.Stream // World, or Overlap for the overlapped gradients
	seq     int64
	scratch []float32
	ring    []float32

	// abort and stderr are mpi.Abort and os.Stderr (tests replace them).
	abort  func(code int)
	stderr io.Writer
}

// newMPICollective initialises MPI and returns its collective.
func newMPICollective(opts CommunicationOptions) (*mpiCollective, error) {
	if err := mpi.Init(); err != nil {
		return nil, err
	}
	return &mpiCollective{opts: opts, rk: mpi.Rank(), sz: mpi.Size(), abort: mpi.Abort, stderr: os.Stderr}, nil
}

// overlapStream returns a collective like c on the Overlap stream, for
// the all-reduces a communication goroutine runs during the backward
// pass; nil when MPI cannot run two streams at once (it lacks
// MPI_THREAD_MULTIPLE).
func (c *mpiCollective) overlapStream() *mpiCollective {
	if mpi.ThreadLevel() != "MPI_THREAD_MULTIPLE" {
		return nil
	}
	return &mpiCollective{opts: c.opts, rk: c.rk, sz: c.sz, stream: mpi.Overlap, abort: c.abort, stderr: c.stderr}
}

func (c *mpiCollective) rank() int { return c.rk }
func (c *mpiCollective) size() int { return c.sz }

// guard runs fn, one cross-worker collective, under the watchdog.
func (c *mpiCollective) guard(what string, fn func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	seq := c.seq
	notes, err := mpi.PostNotesOn(c.stream, seq)
	if err != nil {
		return fmt.Errorf("distribute: %s: %w", what, err)
	}
	fired := make(chan struct{})
	timer := time.AfterFunc(c.opts.Timeout, func() {
		defer close(fired)
		var who string
		if mpi.ThreadLevel() != "MPI_THREAD_MULTIPLE" {
			who = "the missing ranks are unknown (MPI lacks MPI_THREAD_MULTIPLE)"
		} else if missing := notes.Missing(); len(missing) > 0 {
			who = fmt.Sprintf("rank(s) %s never reached it (dead, hung, or running different code)", rankList(missing))
		} else {
			who = "every rank reached it; one may have died or hung inside it"
		}
		fmt.Fprintf(c.stderr, "distribute: MultiWorkerMirroredStrategy: rank %d of %d: %s (collective #%d) did not finish within %v: %s; aborting the job\n",
			c.rk, c.sz, what, seq, c.opts.Timeout, who)
		c.abort(1)
	})
	err = fn()
	if !timer.Stop() {
		<-fired // the watchdog aborted the job
		return fmt.Errorf("distribute: %s timed out after %v; the job was aborted", what, c.opts.Timeout)
	}
	if werr := notes.Wait(); err == nil && werr != nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("distribute: %s: %w", what, err)
	}
	return nil
}

func (c *mpiCollective) allReduceSum(bufs [][]float32) error {
	if len(bufs) == 0 {
		return nil
	}
	what := "all-reduce"
	if c.stream == mpi.Overlap {
		what = "overlapped gradient all-reduce"
	}
	return c.guard(what, func() error {
		return packed(bufs, c.opts.BytesPerPack, &c.scratch, true, func(b []float32) error {
			if c.opts.Implementation == RING {
				return c.ringAllReduce(b)
			}
			return mpi.AllreduceSumOn(c.stream, b)
		})
	})
}

// ringAllReduce sums b over the workers with a ring: a reduce-scatter in
// which chunk k is summed along the ring and ends complete on one rank,
// then an all-gather of the complete chunks. Each worker sends and
// receives 2(N-1)/N of the buffer; every chunk is summed once, in ring
// order, so every worker gets bitwise the same result.
func (c *mpiCollective) ringAllReduce(b []float32) error {
	n := c.sz
	if n == 1 {
		return nil
	}
	right, left := (c.rk+1)%n, (c.rk+n-1)%n
	lo0, hi0 := chunk(len(b), n, 0)
	if cap(c.ring) < hi0-lo0 {
		c.ring = make([]float32, hi0-lo0)
	}
	mod := func(k int) int { return ((k % n) + n) % n }
	for s := 0; s < n-1; s++ {
		slo, shi := chunk(len(b), n, mod(c.rk-s))
		rlo, rhi := chunk(len(b), n, mod(c.rk-s-1))
		tmp := c.ring[:rhi-rlo]
		if err := mpi.SendrecvOn(c.stream, b[slo:shi], right, tmp, left); err != nil {
			return err
		}
		dst := b[rlo:rhi]
		for i, v := range tmp {
			dst[i] = v + dst[i]
		}
	}
	for s := 0; s < n-1; s++ {
		slo, shi := chunk(len(b), n, mod(c.rk+1-s))
		rlo, rhi := chunk(len(b), n, mod(c.rk-s))
		if err := mpi.SendrecvOn(c.stream, b[slo:shi], right, b[rlo:rhi], left); err != nil {
			return err
		}
	}
	return nil
}

func (c *mpiCollective) broadcast(bufs [][]float32, root int) error {
	if root < 0 || root >= c.sz {
		return fmt.Errorf("distribute: broadcast from rank %d of %d", root, c.sz)
	}
	return c.guard("broadcast", func() error {
		if c.rk == root {
			return packed(bufs, c.opts.BytesPerPack, &c.scratch, false, func(b []float32) error { return mpi.Bcast(b, root) })
		}
		return packed(bufs, c.opts.BytesPerPack, &c.scratch, true, func(b []float32) error { return mpi.Bcast(b, root) })
	})
}

func (c *mpiCollective) allGatherInt64(send []int64) ([]int64, error) {
	out := make([]int64, len(send)*c.sz)
	err := c.guard("all-gather", func() error { return mpi.AllgatherInt64(send, out) })
	return out, err
}

func (c *mpiCollective) allGather(send []float32) ([]float32, error) {
	out := make([]float32, len(send)*c.sz)
	err := c.guard("all-gather", func() error { return mpi.Allgather(send, out) })
	return out, err
}

func (c *mpiCollective) barrier() error {
	return c.guard("barrier", mpi.Barrier)
}

func (c *mpiCollective) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := mpi.Finalize(); err != nil && !errors.Is(err, mpi.ErrNotBuilt) {
		return err
	}
	return nil
}
