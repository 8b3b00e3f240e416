// Package par is the persistent worker pool that runs the loops of package
// ops and the executor in parallel.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A persistent worker pool for the ops' loops. Starting goroutines per call
// (and waking parked threads) costs tens of microseconds on a virtualised
// machine, more than many elementwise ops take, so GOMAXPROCS-1 workers
// live for the process: after a job they spin (yielding with Gosched, so
// they never hold a P another goroutine wants) for poolSpin, then park.
// A job's chunks are claimed from an atomic counter by the caller and any
// worker that is awake, so a worker that is slow to wake never delays a
// call: the caller runs whatever nobody claimed. Concurrent callers (the
// replicas of a mirrored step) share the workers the same way, and so do
// the GEMMs of internal/kernels.
//
// poolSpin: runtime.Gosched yields to goroutines, not to other processes,
// so a spinning worker takes its core from whatever else runs there. On
// the Intel machine of issue 19's quiet measurements a parked worker took
// 110-170µs to wake, and the ops that split a batch into one block per
// core then ran both blocks on the caller: with 200µs here and 50µs in the
// GEMMs' former pool, the ResNet step at 2 threads went between 59 and
// 127 ms from run to run; with 2 ms it stayed at 59 ms (docs/performance.md,
// "One block per core"). 2 ms spans the serial stretches inside a step;
// an idle program spins once.

var poolSpin = 2 * time.Millisecond

type parJob struct {
	body    func(slot, lo, hi int)
	n       int
	chunk   int
	nchunks int64
	next    atomic.Int64 // next chunk to claim
	done    atomic.Int64 // chunks finished
}

// run claims and runs chunks until none are left; slot identifies the
// goroutine (0 the caller, i for the pool's i-th worker).
func (j *parJob) run(slot int) {
	for {
		c := j.next.Add(1) - 1
		if c >= j.nchunks {
			return
		}
		lo := int(c) * j.chunk
		j.body(slot, lo, min(lo+j.chunk, j.n))
		j.done.Add(1)
	}
}

type parWorker struct {
	slot   int // 1 + its index in parPool.workers
	job    atomic.Pointer[parJob]
	parked atomic.Bool
	wake   chan struct{}
}

var parPool struct {
	mu      sync.Mutex
	workers []*parWorker
}

func (w *parWorker) loop() {
	last := time.Now()
	for spins := 0; ; spins++ {
		if j := w.job.Load(); j != nil {
			j.run(w.slot)
			w.job.Store(nil)
			last, spins = time.Now(), 0
			continue
		}
		if spins%64 != 63 || time.Since(last) < poolSpin {
			runtime.Gosched()
			continue
		}
		// Park. The caller stores job before testing parked and we set
		// parked before re-testing job, so one of us sees the other.
		w.parked.Store(true)
		if w.job.Load() != nil && w.parked.CompareAndSwap(true, false) {
			continue
		}
		<-w.wake
		w.parked.Store(false)
		last, spins = time.Now(), 0
	}
}

// offer hands j to up to n idle workers, starting workers as needed.
func offer(j *parJob, n int) {
	parPool.mu.Lock()
	for len(parPool.workers) < n {
		w := &parWorker{slot: len(parPool.workers) + 1, wake: make(chan struct{}, 1)}
		parPool.workers = append(parPool.workers, w)
		go w.loop()
	}
	ws := parPool.workers[:n]
	parPool.mu.Unlock()
	for _, w := range ws {
		if w.job.CompareAndSwap(nil, j) && w.parked.CompareAndSwap(true, false) {
			w.wake <- struct{}{}
		}
	}
}

// Chunks runs body over [0, n) in chunks of chunk items (the last
// may be shorter) on the caller and the pool, and returns when all ran.
func Chunks(n, chunk int, body func(lo, hi int)) {
	SlotChunks(n, chunk, runtime.GOMAXPROCS(0), func(_, lo, hi int) { body(lo, hi) })
}

// Slots returns how many goroutines a SlotChunks call over n items in
// chunks of chunk may use: its slots are in [0, Slots(n, chunk)).
func Slots(n, chunk int) int {
	return max(1, min(runtime.GOMAXPROCS(0), (n+chunk-1)/max(chunk, 1)))
}

// SlotChunks is Chunks on at most slots goroutines, whose body also gets
// the slot of the goroutine running the chunk, in [0, slots): no two
// chunks run at the same time in one slot, so a slot's scratch memory
// may be reused from chunk to chunk (the ops' blocks of images each use
// their slot's buffers; size them with Slots). Which chunks share a slot
// varies from call to call, so results must not depend on it.
func SlotChunks(n, chunk, slots int, body func(slot, lo, hi int)) {
	p := min(runtime.GOMAXPROCS(0), slots)
	if p <= 1 || n <= chunk {
		body(0, 0, n)
		return
	}
	j := &parJob{body: body, n: n, chunk: chunk, nchunks: int64((n + chunk - 1) / chunk)}
	offer(j, min(p-1, int(j.nchunks)-1))
	j.run(0)
	for spins := 0; j.done.Load() < j.nchunks; spins++ {
		if spins > 16 {
			runtime.Gosched()
		}
	}
}

// For splits [0, n) into contiguous chunks and runs body on them
// concurrently (a few chunks per CPU, claimed dynamically). Small n runs
// inline.
func For(n int, body func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p <= 1 || n < 2 {
		body(0, n)
		return
	}
	Chunks(n, (n+2*p-1)/(2*p), body)
}

// Elementwise loops are split only above MinElems elements (smaller
// ones are done before a worker would be woken), in chunks of a multiple
// of 16 elements (whole AVX-512 vectors).
const MinElems = 1 << 15

// Elems runs body over [0, n) elements, in parallel when n is
// large enough to pay for it.
func Elems(n int, body func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p <= 1 || n < MinElems {
		body(0, n)
		return
	}
	chunks := min(2*p, n/(MinElems/2))
	chunk := (n/chunks + 15) &^ 15
	Chunks(n, chunk, body)
}

// Rows runs body over [0, rows) rows of rowLen elements, in
// parallel when the rows hold enough elements to pay for it.
func Rows(rows, rowLen int, body func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p <= 1 || rows < 2 || rows*rowLen < MinElems {
		body(0, rows)
		return
	}
	chunks := min(2*p, rows, rows*rowLen/(MinElems/2))
	Chunks(rows, (rows+chunks-1)/chunks, body)
}
