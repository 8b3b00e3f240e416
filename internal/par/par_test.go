package par

import (
	"runtime"
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

// TestSlotChunksSlots checks that SlotChunks covers every index once,
// gives each chunk a slot below the limit, and never runs two chunks in
// one slot at the same time, also for concurrent callers.
func TestSlotChunksSlots(t *testing.T) {
	var wg sync.WaitGroup
	for caller := 0; caller < 3; caller++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, n := range []int{0, 1, 5, 64, 1000} {
				for _, chunk := range []int{1, 3, 64} {
					slots := Slots(n, chunk)
					if want := max(1, min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)); slots != want {
						t.Errorf("Slots(%d, %d) = %d, want %d", n, chunk, slots, want)
					}
					busy := make([]atomic.Bool, slots)
					seen := make([]atomic.Int32, n)
					SlotChunks(n, chunk, slots, func(slot, lo, hi int) {
						if slot < 0 || slot >= slots {
							t.Errorf("n=%d chunk=%d: slot %d outside [0, %d)", n, chunk, slot, slots)
							return
						}
						if !busy[slot].CompareAndSwap(false, true) {
							t.Errorf("n=%d chunk=%d: two chunks at once in slot %d", n, chunk, slot)
						}
						for i := lo; i < hi; i++ {
							seen[i].Add(1)
						}
						busy[slot].Store(false)
					})
					for i := range seen {
						if got := seen[i].Load(); got != 1 {
							t.Errorf("n=%d chunk=%d: index %d visited %d times", n, chunk, i, got)
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
}
