package ops

import (
	"runtime"
	"sync"
)

// parallelFor splits [0, n) into contiguous chunks, one per CPU, and runs
// body on each concurrently. Small n runs inline.
func parallelFor(n int, body func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p <= 1 || n < 2 {
		body(0, n)
		return
	}
	p = min(p, n)
	var wg sync.WaitGroup
	chunk := (n + p - 1) / p
	for lo := chunk; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			body(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	body(0, min(chunk, n))
	wg.Wait()
}
