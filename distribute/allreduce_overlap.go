package distribute

import (
	"fmt"
	"sync"
	"time"

	"github.com/gokeras/gokeras/ops"
)

// overlapper all-reduces the optimizer's gradients of a
// MultiWorkerMirroredStrategy in buckets while the backward pass goes on,
// as PyTorch DDP and Horovod do: each local replica begins a group
// (ops.OverlapContext.BeginAllReduce) before its replay and reports each
// gradient as the engine computes it; one communication goroutine per
// strategy waits for each bucket to be complete on every local replica,
// sums it in process (in replica order, as the allReducer), then across
// workers (one call per bucket on MPI's Overlap stream, apart from the
// other collectives, which a replay may call meanwhile: a synchronized
// BatchNormalization's), and copies the sum back to every replica.
//
// Groups are taken in the order replicas begin them (the hooks' order,
// the same on every replica and worker) and buckets from the last to the
// first whatever order they complete in, so every worker makes the same
// calls in the same order, and the sums are bitwise those of the same
// buckets reduced after the backward pass (CommunicationOptions.NoOverlap).
type overlapper struct {
	s *MultiWorkerMirroredStrategy

	mu      sync.Mutex
	cond    *sync.Cond
	groups  map[int]*overlapGroup
	next    []int // per local replica, the sequence number of its next group
	head    int   // the group the communication goroutine serves next
	busy    bool  // the goroutine is inside a group
	started bool
	closed  bool
	aborted error

	// event, if set (tests), is called at each step of the protocol: a
	// gradient reported ready, a bucket's reduction starting or done.
	event func(overlapEvent)
	// commTime: time spent reducing buckets; waitTime: time local
	// replica 0 waited for the sums after its backward pass (the part of
	// commTime the backward pass did not hide).
	commTime, waitTime time.Duration
}

// overlapEvent is what the test hook sees.
type overlapEvent struct {
	Kind    string // "ready" (Buffer of Replica), "start" or "done" (Bucket)
	Group   int
	Replica int
	Buffer  int
	Bucket  int
	Buckets int // the group's number of buckets
	Buffers int // the group's number of buffers
}

// overlapGroup is one all-reduce group: the same group of buffers on each
// local replica.
type overlapGroup struct {
	seq      int
	bufs     [][][]float32 // per local replica
	buckets  [][]int
	bucketOf []int
	left     []int // per bucket, reports still missing over all replicas
	deferred bool  // NoOverlap: buckets wait for Wait
	waiting  int   // replicas that have called Wait (deferred groups)
	waited   int   // replicas whose Wait returned
	done     bool
	err      error
}

func newOverlapper(s *MultiWorkerMirroredStrategy) *overlapper {
	o := &overlapper{s: s, groups: map[int]*overlapGroup{}, next: make([]int, s.nLocal)}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// begin is replica r's BeginAllReduce.
func (o *overlapper) begin(r int, bufs [][]float32) (*overlapHandle, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.aborted != nil {
		return nil, o.aborted
	}
	if o.closed {
		return nil, fmt.Errorf("distribute: MultiWorkerMirroredStrategy: all-reduce after Close")
	}
	seq := o.next[r]
	o.next[r]++
	g := o.groups[seq]
	if g == nil {
		g = &overlapGroup{seq: seq, bufs: make([][][]float32, o.s.nLocal), deferred: o.s.opts.NoOverlap}
		g.buckets = gradientBuckets(bufs, o.s.opts.BytesPerPack)
		g.bucketOf = make([]int, len(bufs))
		g.left = make([]int, len(g.buckets))
		for b, idx := range g.buckets {
			for _, i := range idx {
				g.bucketOf[i] = b
			}
			g.left[b] = len(idx) * o.s.nLocal
		}
		o.groups[seq] = g
		if !o.started {
			o.started = true
			go o.loop()
		}
		o.cond.Broadcast()
	} else {
		ref := g.bufs[0]
		for _, b := range g.bufs {
			if b != nil {
				ref = b
			}
		}
		if ref != nil {
			if len(ref) != len(bufs) {
				return nil, fmt.Errorf("distribute: overlapped all-reduce #%d of %d buffers on local replica %d but %d on another", seq, len(bufs), r, len(ref))
			}
			for i := range bufs {
				if len(bufs[i]) != len(ref[i]) {
					return nil, fmt.Errorf("distribute: overlapped all-reduce #%d: buffer %d has %d values on local replica %d but %d on another", seq, i, len(bufs[i]), r, len(ref[i]))
				}
			}
		}
	}
	g.bufs[r] = bufs
	return &overlapHandle{o: o, g: g, r: r, have: make([]bool, len(bufs))}, nil
}

// overlapHandle is one replica's part of a group.
type overlapHandle struct {
	o    *overlapper
	g    *overlapGroup
	r    int
	have []bool
	err  error
}

// Ready implements ops.OverlappedAllReduce.
func (h *overlapHandle) Ready(i int) error {
	if h.err != nil {
		return h.err
	}
	if i < 0 || i >= len(h.have) {
		return fmt.Errorf("distribute: overlapped all-reduce: buffer %d of %d", i, len(h.have))
	}
	if h.have[i] {
		return nil
	}
	h.have[i] = true
	o := h.o
	if o.event != nil {
		o.event(overlapEvent{Kind: "ready", Group: h.g.seq, Replica: h.r, Buffer: i, Buckets: len(h.g.buckets), Buffers: len(h.have)})
	}
	o.mu.Lock()
	b := h.g.bucketOf[i]
	h.g.left[b]--
	if h.g.left[b] == 0 {
		o.cond.Broadcast()
	}
	o.mu.Unlock()
	return nil
}

// Wait implements ops.OverlappedAllReduce.
func (h *overlapHandle) Wait() error {
	if h.err != nil {
		return h.err
	}
	for i := range h.have {
		if err := h.Ready(i); err != nil {
			return err
		}
	}
	o, g := h.o, h.g
	t0 := time.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	if h.r == 0 {
		defer func() { o.waitTime += time.Since(t0) }()
	}
	g.waiting++
	o.cond.Broadcast()
	for !g.done && o.aborted == nil {
		o.cond.Wait()
	}
	h.err = g.err
	if !g.done {
		h.err = o.aborted
	}
	g.waited++
	if g.waited == o.s.nLocal {
		delete(o.groups, g.seq)
	}
	if h.err != nil {
		return h.err
	}
	h.err = errGroupDone
	return nil
}

var errGroupDone = fmt.Errorf("distribute: overlapped all-reduce used after Wait")

// loop is the communication goroutine: groups in order, buckets from the
// last to the first.
func (o *overlapper) loop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for {
		for o.groups[o.head] == nil && !o.closed {
			o.cond.Wait()
		}
		if o.closed {
			return
		}
		g := o.groups[o.head]
		o.busy = true
		var err error
		for b := len(g.buckets) - 1; b >= 0 && err == nil; b-- {
			for (g.left[b] > 0 || (g.deferred && g.waiting < o.s.nLocal)) && o.aborted == nil {
				o.cond.Wait()
			}
			if o.aborted != nil {
				err = o.aborted
				break
			}
			o.mu.Unlock()
			err = o.reduce(g, b)
			o.mu.Lock()
		}
		if err == nil {
			err = o.aborted
		}
		g.err, g.done = err, true
		o.busy = false
		o.head++
		o.cond.Broadcast()
	}
}

// reduce sums bucket b of g over the local replicas (into replica 0's
// buffers, in replica order: bitwise the allReducer's sum), then across
// workers, then copies the sum to the other replicas.
func (o *overlapper) reduce(g *overlapGroup, b int) error {
	if o.event != nil {
		o.event(overlapEvent{Kind: "start", Group: g.seq, Bucket: b, Buckets: len(g.buckets), Buffers: len(g.bucketOf)})
	}
	t0 := time.Now()
	idx := g.buckets[b]
	n := len(g.bufs)
	for _, i := range idx {
		out := g.bufs[0][i]
		for r := 1; r < n; r++ {
			src := g.bufs[r][i]
			for j := range out {
				out[j] += src[j]
			}
		}
	}
	s := o.s
	if s.workers > 1 && !s.skipCrossWorker {
		bufs := make([][]float32, len(idx))
		for k, i := range idx {
			bufs[k] = g.bufs[0][i]
		}
		if err := s.ovColl.allReduceSum(bufs); err != nil {
			return err
		}
	}
	for _, i := range idx {
		for r := 1; r < n; r++ {
			copy(g.bufs[r][i], g.bufs[0][i])
		}
	}
	o.mu.Lock()
	o.commTime += time.Since(t0)
	o.mu.Unlock()
	if o.event != nil {
		o.event(overlapEvent{Kind: "done", Group: g.seq, Bucket: b, Buckets: len(g.buckets), Buffers: len(g.bucketOf)})
	}
	return nil
}

// abort wakes every replica and the goroutine with err (a replica failed).
func (o *overlapper) abort(err error) {
	o.mu.Lock()
	if o.aborted == nil {
		o.aborted = err
	}
	o.cond.Broadcast()
	o.mu.Unlock()
}

// reset readies an aborted overlapper for the next step, once the
// goroutine has left its group: pending groups are dropped and every
// replica starts at the same sequence number.
func (o *overlapper) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.aborted == nil {
		o.aborted = errAborted
		o.cond.Broadcast()
	}
	for o.busy {
		o.cond.Wait()
	}
	top := o.head
	for _, n := range o.next {
		top = max(top, n)
	}
	for k := range o.groups {
		delete(o.groups, k)
	}
	for r := range o.next {
		o.next[r] = top
	}
	o.head = top
	o.aborted = nil
}

// close stops the goroutine.
func (o *overlapper) close() {
	o.mu.Lock()
	o.closed = true
	o.cond.Broadcast()
	o.mu.Unlock()
}

// takeTimes returns commTime and waitTime and zeroes them.
func (o *overlapper) takeTimes() (comm, wait time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	comm, wait = o.commTime, o.waitTime
	o.commTime, o.waitTime = 0, 0
	return comm, wait
}

// BeginAllReduce implements ops.OverlapContext for a local replica: nil
// (the caller all-reduces after the backward pass, as before) when the
// strategy does not overlap.
func (c workerReplicaCtx) BeginAllReduce(bufs [][]float32) ops.OverlappedAllReduce {
	o := c.s.overlap
	if o == nil {
		return nil
	}
	h, err := o.begin(c.id, bufs)
	if err != nil {
		return failedAllReduce{err}
	}
	return h
}

// failedAllReduce is a group that could not begin.
type failedAllReduce struct{ err error }

func (f failedAllReduce) Ready(int) error { return f.err }
func (f failedAllReduce) Wait() error     { return f.err }

var _ ops.OverlapContext = workerReplicaCtx{}

func (s *MultiWorkerMirroredStrategy) abortOverlap() {
	if s.overlap != nil {
		s.overlap.abort(errAborted)
	}
}

// CommunicationStats says where a worker's time went in the gradient
// all-reduces since the last call (see
// [MultiWorkerMirroredStrategy.TakeCommunicationStats]).
type CommunicationStats struct {
	// Reduce is the time spent summing buckets (in process and across
	// workers, the transfer included), overlapped or not.
	Reduce time.Duration
	// Exposed is the time local replica 0's optimizer waited for the sums
	// after its backward pass: the communication the backward pass did
	// not hide, which a step pays for.
	Exposed time.Duration
	// Overlapped reports whether the gradients were all-reduced during
	// the backward pass.
	Overlapped bool
}

// TakeCommunicationStats returns the all-reduce times since the last call
// and starts counting again: dividing Exposed by the steps' wall time
// gives the communication share of a step. With NoOverlap, Exposed is
// Reduce plus the wait for the slowest replica. A job of one replica, or
// an MPI without MPI_THREAD_MULTIPLE (which all-reduces in the hook, as
// before), reports zero.
func (s *MultiWorkerMirroredStrategy) TakeCommunicationStats() CommunicationStats {
	if s.overlap == nil {
		return CommunicationStats{}
	}
	comm, wait := s.overlap.takeTimes()
	return CommunicationStats{Reduce: comm, Exposed: wait, Overlapped: !s.opts.NoOverlap}
}
