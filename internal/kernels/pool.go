package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Worker pool. Waking a parked goroutine's OS thread can take ~100µs on a
// virtualised machine, longer than many GEMMs, so workers busy-wait (yielding
// with runtime.Gosched) for spinWait after their last job before parking.
// Jobs hand out work dynamically, so a late worker never delays a call.
//
// spinWait: runtime.Gosched yields to goroutines, not to other processes,
// so a spinning worker takes its core from whatever else runs there. It
// was 50µs (measured as fast as 1 ms on a loaded AMD machine,
// docs/performance_tf.md); on the Intel machine of issue 19's quiet
// measurements a worker parked between two parallel ops of a step took
// 110-170µs to wake, and the ops that split a batch into one block per
// core then ran both blocks on the caller: the ResNet step at 2 threads
// went between 59 and 127 ms from run to run with 50µs, and stayed at
// 59 ms with 2 ms (docs/performance.md, "One block per core"). 2 ms
// spans the serial stretches inside a step; an idle program spins once.
var spinWait = 2 * time.Millisecond

type worker struct {
	task   atomic.Pointer[gemmJob]
	parked atomic.Bool
	wake   chan struct{}
}

var pool struct {
	mu      sync.Mutex
	workers []*worker
}

// dispatch offers job j to up to n idle workers (starting them if needed).
// Busy workers (another goroutine's concurrent Sgemm) are skipped.
func dispatch(j *gemmJob, n int) {
	pool.mu.Lock()
	for len(pool.workers) < n {
		w := &worker{wake: make(chan struct{}, 1)}
		pool.workers = append(pool.workers, w)
		go w.loop()
	}
	ws := pool.workers[:n]
	pool.mu.Unlock()
	for _, w := range ws {
		if w.task.CompareAndSwap(nil, j) && w.parked.CompareAndSwap(true, false) {
			w.wake <- struct{}{}
		}
	}
}

func (w *worker) loop() {
	last := time.Now()
	for spins := 0; ; spins++ {
		if j := w.task.Load(); j != nil {
			ws := getWorkspace()
			j.run(ws)
			wsPool.Put(ws)
			w.task.Store(nil)
			last, spins = time.Now(), 0
			continue
		}
		if spins%64 != 63 || time.Since(last) < spinWait {
			runtime.Gosched()
			continue
		}
		// Park. The dispatcher stores task before testing parked, and we
		// set parked before re-testing task, so one of us sees the other.
		w.parked.Store(true)
		if w.task.Load() != nil && w.parked.CompareAndSwap(true, false) {
			continue
		}
		<-w.wake
		w.parked.Store(false)
		last, spins = time.Now(), 0
	}
}
