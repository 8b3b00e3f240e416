package ops_test

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Arrays become eager tensors with ConvertToTensor; ops on them compute at
// once and Float32s reads the values (Keras' x.numpy()).
func ExampleConvertToTensor() {
	x := ops.ConvertToTensor(tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{-1.5, 0, 2.7, 3, 0.2, -4})))
	mask := ops.Cast(ops.Greater(x, ops.Zeros(ops.Shape{3})), "float32")
	total := ops.AddN(x, ops.Ones(ops.Shape{2, 3}), mask)
	fmt.Println(mask.Float32s())
	fmt.Println(ops.Cast(x, "int32").Float32s())
	fmt.Println(total.Shape(), total.Float32s())
	fmt.Printf("%.1f\n", ops.Sum(total, false).Float32())
	// Output:
	// [0 0 1 1 1 0]
	// [-1 0 2 3 0 -4]
	// (2, 3) [-0.5 1 4.7 5 2.2 -3]
	// 9.4
}
