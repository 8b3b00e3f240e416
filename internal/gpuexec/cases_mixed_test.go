package gpuexec_test

import (
	"math/rand/v2"

	"github.com/gokeras/gokeras/ops"
)

// wide fills with values over float16's range and below its normals, so
// the casts overflow, go subnormal and round.
func wide(r *rand.Rand, i int) float32 {
	switch i % 5 {
	case 0:
		return float32(r.NormFloat64() * 1e5)
	case 1:
		return float32(r.NormFloat64() * 1e-6)
	}
	return float32(r.NormFloat64())
}

// Mixed precision's casts (issue 16).
func init() {
	opCases = append(opCases,
		unaryCase("CastToBFloat16", wide, ops.CastToBFloat16),
		unaryCase("CastToFloat16", wide, ops.CastToFloat16),
		// a cast of exact values: a view, a copy as the output
		unaryCase("CastToBFloat16Exact", wide, func(x ops.Tensor) ops.Tensor { return ops.CastToBFloat16(ops.Relu(ops.CastToBFloat16(x))) }),
		// the cast fused into its input's op (ops/cast_fused.go): the op
		// on the GPU, the rounding on the host
		binaryCase("AddReluRoundingBF16", ops.Shape{4, 5}, ops.Shape{4, 5}, func(a, b ops.Tensor) ops.Tensor {
			return ops.CastToBFloat16(ops.AddRelu(a, b))
		}, normal),
	)
}
