package ops

import "fmt"

// AllReduceSum returns the sum of x over all replicas, computed in the
// graph: every replica's step must reach it (same shapes, same order). With
// one replica it is the identity. Its gradient is the all-reduced sum of
// the replicas' gradients, since every replica's loss depends on the sum.
func AllReduceSum(x Tensor) Tensor {
	tr := sameTrace("AllReduceSum", x)
	return tr.apply(&Op{
		name: "AllReduceSum", out: x.Shape(), attrs: tr.uniqueName("allreduce"),
		fwd: func(o []float32, in [][]float32) {
			copy(o, in[0])
			if tr.rc == nil || tr.rc.NumReplicas() <= 1 {
				return
			}
			if err := tr.rc.AllReduceSum([][]float32{o}); err != nil {
				panic(&Error{Op: "AllReduceSum", Msg: fmt.Sprint(err)})
			}
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{AllReduceSum(dy)} },
	}, x)
}
