package distribute

// TensorFlow 2.0's spellings, which the seeds and older tutorials use.

// ExperimentalRunV2 is TensorFlow 2.0's name of [MirroredStrategy.Run].
//
// Deprecated: use Run, as TensorFlow 2.2 renamed it.
func (s *MirroredStrategy) ExperimentalRunV2(fn any, batch *DistributedValues) ([]PerReplica, error) {
	return s.Run(fn, batch)
}

// ExperimentalRunV2 is TensorFlow 2.0's name of
// [MultiWorkerMirroredStrategy.Run].
//
// Deprecated: use Run, as TensorFlow 2.2 renamed it.
func (s *MultiWorkerMirroredStrategy) ExperimentalRunV2(fn any, batch *DistributedValues) ([]PerReplica, error) {
	return s.Run(fn, batch)
}

// ExperimentalBarrier is TensorFlow's experimental_barrier: it returns
// once every worker has called it.
//
// Deprecated: use Barrier.
func (s *MultiWorkerMirroredStrategy) ExperimentalBarrier() error { return s.Barrier() }
