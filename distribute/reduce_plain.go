package distribute

import "fmt"

// reduceNonDistributed is TensorFlow's reduction of a value that is not
// per-replica (cross_device_ops.reduce_non_distributed_value): 0 stays 0;
// Mean of one value is that value; Sum of a value that every one of n > 1
// replicas holds is refused, as TensorFlow refuses it (summing copies of
// one value is not defined), and is the value itself with one replica.
func reduceNonDistributed(op ReduceOp, v float64, replicas int) (float64, error) {
	if err := checkReduceOp(op); err != nil {
		return 0, err
	}
	switch {
	case v == 0, op == Mean, replicas == 1:
		return v, nil
	}
	return 0, fmt.Errorf("distribute: Reduce: a value that is not per-replica (%v) cannot be summed over %d replicas (TensorFlow refuses it too): return it from the step function run by strategy.Run, or use Mean", v, replicas)
}

// ReduceValue reduces a plain number, not a per-replica value, as
// strategy.reduce(op, 3.0, axis=None) does in TensorFlow (the seeds' code
// reduces a Python float so): see reduceNonDistributed's rules.
func (s *MirroredStrategy) ReduceValue(op ReduceOp, v float64) (float64, error) {
	return reduceNonDistributed(op, v, s.NumReplicasInSync())
}

// ReduceValue reduces a plain number, not a per-replica value; see
// [MirroredStrategy.ReduceValue].
func (s *MultiWorkerMirroredStrategy) ReduceValue(op ReduceOp, v float64) (float64, error) {
	return reduceNonDistributed(op, v, s.NumReplicasInSync())
}
