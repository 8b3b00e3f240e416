package par

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestChunksCoverOnce checks that every index is visited exactly once, for
// concurrent callers and nested calls, across sizes that run inline and
// split.
func TestChunksCoverOnce(t *testing.T) {
	var wg sync.WaitGroup
	for caller := 0; caller < 4; caller++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, n := range []int{0, 1, 2, 17, 1000, MinElems - 1, MinElems, 3*MinElems + 5} {
				seen := make([]atomic.Int32, n)
				Elems(n, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
				})
				For(n, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
				})
				Rows(n, 64, func(lo, hi int) {
					// nested: a loop inside a chunk
					For(hi-lo, func(a, b int) {
						for i := lo + a; i < lo+b; i++ {
							seen[i].Add(1)
						}
					})
				})
				for i := range seen {
					if got := seen[i].Load(); got != 3 {
						t.Errorf("n=%d: index %d visited %d times, want 3", n, i, got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
