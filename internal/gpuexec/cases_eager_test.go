package gpuexec_test

import (
	"math/rand/v2"

	"github.com/gokeras/gokeras/ops"
)

// Cases of the ops added for eager training loops (issue 15): AddN,
// Greater and Cast. Greater and Cast have no gradient; the cases compose
// them with a differentiable op so the program has gradient steps too.
func init() {
	halves := func(r *rand.Rand, _ int) float32 { return float32(r.IntN(9)-4) * 0.5 } // ties and integers
	opCases = append(opCases,
		opCase{name: "AddN", shapes: []ops.Shape{{4, 5}, {4, 5}, {4, 5}}, wrt: []int{0, 1, 2},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.AddN(in...) }},
		opCase{name: "Greater", shapes: []ops.Shape{{4, 5}, {5}}, fill: []func(*rand.Rand, int) float32{halves, halves}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Mul(in[0], ops.Greater(in[0], in[1])) }},
		opCase{name: "CastInt32", shapes: []ops.Shape{{6, 7}}, fill: []func(*rand.Rand, int) float32{func(r *rand.Rand, _ int) float32 { return float32(4 * r.NormFloat64()) }}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Mul(in[0], ops.Cast(in[0], "int32")) }},
		opCase{name: "CastBool", shapes: []ops.Shape{{6, 7}}, fill: []func(*rand.Rand, int) float32{halves},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Cast(in[0], "bool") }},
	)
}
