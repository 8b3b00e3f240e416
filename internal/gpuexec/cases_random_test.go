package gpuexec_test

import "github.com/gokeras/gokeras/ops"

// Random ops that draw from a seed generator's state (keras.random).
func init() {
	opCases = append(opCases,
		opCase{name: "RandomNormal", shapes: []ops.Shape{{4, 3}}, wrt: []int{0}, training: true,
			build: func(tr *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.Mul(in[0], ops.RandomNormal(tr, ops.Shape{4, 3}, 0.5, 2, ops.NewSeedGenerator("normal", 7)))
			}},
		opCase{name: "RandomUniform", shapes: []ops.Shape{{4, 3}}, wrt: []int{0}, training: true,
			build: func(tr *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.Mul(in[0], ops.RandomUniform(tr, ops.Shape{4, 3}, -1, 3, ops.NewSeedGenerator("uniform", 7)))
			}},
		opCase{name: "SeededDropout", shapes: []ops.Shape{{6, 7}}, wrt: []int{0}, training: true,
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.SeededDropout(in[0], 0.3, ops.NewSeedGenerator("dropout", 7))
			}},
	)
}
