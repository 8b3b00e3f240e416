package kernels

import "github.com/gokeras/gokeras/internal/par"

// runParticipants runs body on up to n goroutines at once, the caller and
// workers of internal/par's pool, and returns when every one that started
// has returned. A job's body claims its items from the job's atomic
// counter until none are left, so a worker that wakes late (or never)
// only changes who does the work.
//
// The GEMMs had a worker pool of their own; beside internal/par's, two
// sets of workers spun for a core on a 2-core machine, and the seed
// CNN's dense layers (threaded GEMMs of 26 MFLOP) took longer inside a
// step on two threads than on one (docs/performance.md, "One block per
// core"). One pool serves both now; its workers spin 2 ms before
// parking (internal/par).
func runParticipants(n int, body func()) {
	if n <= 1 {
		body()
		return
	}
	par.SlotChunks(n, 1, n, func(_, _, _ int) { body() })
}
