package distribute_test

import (
	"context"
	"fmt"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// strategy.Run takes a plain Go function of the replica's inputs (traced
// once per replica and shape for you), and a distributed dataset ranges in
// a for loop. Each of the 2 replicas sums its half of the global batch.
func ExampleMirroredStrategy_Run_plainFunction() {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		panic(err)
	}
	strategy, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1")
	if err != nil {
		panic(err)
	}
	x := tensor.New(tensor.WithShape(8, 1), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6, 7, 8}))
	ds, err := datasets.FromTensorSlices(x)
	if err != nil {
		panic(err)
	}
	dist := strategy.ExperimentalDistributeDataset(ds.Batch(4))
	step := func(in []ops.Tensor) (ops.Tensor, error) {
		return ops.Sum(in[0], false), nil
	}
	for batch := range dist.All(context.Background()) {
		perReplica, err := strategy.Run(step, batch)
		if err != nil {
			panic(err)
		}
		total, err := strategy.Reduce(distribute.Sum, perReplica[0], distribute.AxisNone)
		if err != nil {
			panic(err)
		}
		fmt.Println(perReplica[0][0].Float32(), perReplica[0][1].Float32(), total.Float32())
	}
	if err := dist.Err(); err != nil {
		panic(err)
	}
	// Output:
	// 3 7 10
	// 11 15 26
}
