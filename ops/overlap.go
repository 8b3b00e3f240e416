package ops

// OverlapContext is a ReplicaContext that can all-reduce a group of
// buffers piece by piece, as each becomes final, on a communication
// goroutine of its own: gradients are summed while the rest of the
// backward pass is computed (PyTorch DDP's and Horovod's overlap). A hook
// begins the group before the replay (Hook.Ready with -1), reports each
// buffer as it is written, and waits for the sums in Run.
//
// The result is bitwise that of AllReduceSum on the same buffers with the
// same context: only when the sums are computed changes, not their order.
type OverlapContext interface {
	ReplicaContext
	// BeginAllReduce starts an overlapped all-reduce of bufs, which the
	// caller must not touch until Wait returns except to write a buffer
	// before reporting it ready. Every replica must begin its groups in
	// the same order, with buffers of the same sizes. It returns nil when
	// the context does not overlap now: the caller uses AllReduceSum.
	BeginAllReduce(bufs [][]float32) OverlappedAllReduce
}

// OverlappedAllReduce is one group begun by [OverlapContext.BeginAllReduce].
type OverlappedAllReduce interface {
	// Ready reports that bufs[i] holds its final value (once per buffer).
	Ready(i int) error
	// Wait reports every buffer not yet reported and returns once every
	// buffer holds its sum over all replicas.
	Wait() error
}
