package distribute

// gradientBuckets splits a group of buffers (an optimizer's gradients, in
// variable order) into buckets of consecutive buffers of at most
// bytesPerPack bytes, built from the last buffer back: the backward pass
// computes the last layers' gradients first, so the last bucket is the
// first to be complete. A buffer larger than a bucket is a bucket of its
// own. Buckets are returned in index order; the communication goroutine
// reduces them from the last to the first, on every worker alike.
//
// The same buckets are reduced whether or not they overlap the backward
// pass, so the two give bitwise the same sums: each bucket is one
// collective call on the same values either way.
func gradientBuckets(bufs [][]float32, bytesPerPack int) [][]int {
	var rev [][]int
	var cur []int
	size := 0
	for i := len(bufs) - 1; i >= 0; i-- {
		n := 4 * len(bufs[i])
		if len(cur) > 0 && size+n > bytesPerPack {
			rev = append(rev, cur)
			cur, size = nil, 0
		}
		cur = append(cur, i)
		size += n
	}
	if len(cur) > 0 {
		rev = append(rev, cur)
	}
	out := make([][]int, len(rev))
	for k, b := range rev {
		// Each bucket in increasing index order, buckets likewise.
		idx := make([]int, len(b))
		for j, i := range b {
			idx[len(b)-1-j] = i
		}
		out[len(rev)-1-k] = idx
	}
	return out
}
