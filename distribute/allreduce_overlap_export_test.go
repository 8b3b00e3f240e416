package distribute

// Hooks for allreduce_overlap_test.go.

// OverlapEvent is what SetOverlapEvents' function sees.
type OverlapEvent = overlapEvent

// SetOverlapMode switches s between "on" (buckets all-reduced during the
// backward pass), "after" (the same buckets after it: NoOverlap) and
// "hook" (no overlapper: the optimizer's hook all-reduces everything at
// once, as before buckets existed). Call it between runs.
func SetOverlapMode(s *MultiWorkerMirroredStrategy, mode string) {
	if s.overlap != nil {
		s.overlap.close()
		s.overlap = nil
	}
	s.opts.NoOverlap = mode == "after"
	if mode != "hook" {
		s.overlap = newOverlapper(s)
	}
}

// SetOverlapEvents makes the overlapper call fn at each step of its
// protocol (call it right after SetOverlapMode, before a run).
func SetOverlapEvents(s *MultiWorkerMirroredStrategy, fn func(OverlapEvent)) { s.overlap.event = fn }

// GradientBuckets is gradientBuckets.
var GradientBuckets = gradientBuckets
