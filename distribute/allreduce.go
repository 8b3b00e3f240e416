package distribute

import (
	"errors"
	"fmt"
	"sync"
)

// checkReduceOp returns an error for a ReduceOp other than [Sum] and
// [Mean] (a ReduceOp(99) made by a conversion): Reduce refuses it instead
// of summing silently.
func checkReduceOp(op ReduceOp) error {
	switch op {
	case Sum, Mean:
		return nil
	}
	return fmt.Errorf("distribute: Reduce: unknown ReduceOp %d (want distribute.Sum or distribute.Mean)", int(op))
}

// errAborted is what collectives return on the other replicas when one
// replica fails: they must not wait for it forever.
var errAborted = errors.New("distribute: another replica failed")

// allReducer sums buffers across n replicas deterministically: every element
// is summed in replica order 0..n-1, so each replica receives bitwise the
// same result whatever the timing. The work is parallel over chunks: replica
// r reduces the r-th slice of every buffer. Three barriers separate
// deposit, reduce and copy-out, so a reducer is reused call after call.
type allReducer struct {
	n int

	mu      sync.Mutex
	cond    *sync.Cond
	gen     int // barrier generation
	arrived int
	aborted error

	bufs   [][][]float32 // per replica, the buffers it deposited
	result [][]float32   // per buffer, the sum
}

func newAllReducer(n int) *allReducer {
	a := &allReducer{n: n, bufs: make([][][]float32, n)}
	a.cond = sync.NewCond(&a.mu)
	return a
}

// barrier waits until all n replicas arrive, or the reducer is aborted.
func (a *allReducer) barrier() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.aborted != nil {
		return a.aborted
	}
	gen := a.gen
	a.arrived++
	if a.arrived == a.n {
		a.arrived = 0
		a.gen++
		a.cond.Broadcast()
		return nil
	}
	for gen == a.gen && a.aborted == nil {
		a.cond.Wait()
	}
	if gen == a.gen {
		return a.aborted
	}
	return nil
}

// abort wakes every waiting replica with err.
func (a *allReducer) abort(err error) {
	a.mu.Lock()
	if a.aborted == nil {
		a.aborted = err
	}
	a.cond.Broadcast()
	a.mu.Unlock()
}

// reset readies an aborted reducer for the next step (no replica may be
// inside a collective).
func (a *allReducer) reset() {
	a.mu.Lock()
	a.aborted = nil
	a.arrived = 0
	a.gen++
	a.mu.Unlock()
}

// allReduceSum is called by every replica with buffers of equal sizes; on
// return each buffer holds the sum over replicas.
func (a *allReducer) allReduceSum(replica int, bufs [][]float32) error {
	if a.n == 1 {
		return nil
	}
	a.mu.Lock()
	a.bufs[replica] = bufs
	a.mu.Unlock()
	if err := a.barrier(); err != nil {
		return err
	}
	// Replica 0 checks the sizes and sizes the result once all deposited.
	if replica == 0 {
		var err error
		for r := 1; r < a.n && err == nil; r++ {
			if len(a.bufs[r]) != len(bufs) {
				err = fmt.Errorf("distribute: all-reduce of %d buffers on replica 0 but %d on replica %d", len(bufs), len(a.bufs[r]), r)
				break
			}
			for i := range bufs {
				if len(a.bufs[r][i]) != len(bufs[i]) {
					err = fmt.Errorf("distribute: all-reduce buffer %d has %d values on replica 0 but %d on replica %d", i, len(bufs[i]), len(a.bufs[r][i]), r)
					break
				}
			}
		}
		if err != nil {
			a.abort(err)
			return err
		}
		if len(a.result) != len(bufs) {
			a.result = make([][]float32, len(bufs))
		}
		for i, b := range bufs {
			if cap(a.result[i]) < len(b) {
				a.result[i] = make([]float32, len(b))
			}
			a.result[i] = a.result[i][:len(b)]
		}
	}
	if err := a.barrier(); err != nil {
		return err
	}
	// Reduce this replica's chunk of every buffer, in replica order.
	for i, b := range bufs {
		lo, hi := chunk(len(b), a.n, replica)
		out := a.result[i][lo:hi]
		copy(out, a.bufs[0][i][lo:hi])
		for r := 1; r < a.n; r++ {
			src := a.bufs[r][i][lo:hi]
			for j := range out {
				out[j] += src[j]
			}
		}
	}
	if err := a.barrier(); err != nil {
		return err
	}
	for i, b := range bufs {
		copy(b, a.result[i])
	}
	// Nobody may touch the deposits or the result until all copied out.
	return a.barrier()
}

// chunk returns replica r's share [lo, hi) of n elements split over k.
func chunk(n, k, r int) (lo, hi int) {
	size := (n + k - 1) / k
	lo = min(r*size, n)
	return lo, min(lo+size, n)
}
