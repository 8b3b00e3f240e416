package gpuexec_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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
		// GEMMs in bfloat16 precision (a layer computing in bfloat16): the
		// GPU rounds copies of the operands; on bfloat16 values, as a
		// mixed_bfloat16 layer's casts make them, the CPU's bfloat16 and
		// float32 kernels and the GPU agree but for the order of the sums.
		// Forward only: a gradient's operands are not bfloat16 values, and
		// the CPU rounds those or not by shape (ops/gemm.go).
		opCase{name: "MatMulBFloat16", shapes: []ops.Shape{{33, 40}, {40, 9}}, fill: []func(*rand.Rand, int) float32{bf16Normal, bf16Normal},
			build: func(tr *ops.Trace, in []ops.Tensor) ops.Tensor {
				defer tr.CastReads("bfloat16")()
				return ops.MatMul(in[0], in[1], false, false)
			}},
		opCase{name: "Conv2DBFloat16", shapes: []ops.Shape{{2, 6, 6, 8}, {3, 3, 8, 5}}, fill: []func(*rand.Rand, int) float32{bf16Normal, bf16Normal},
			build: func(tr *ops.Trace, in []ops.Tensor) ops.Tensor {
				defer tr.CastReads("bfloat16")()
				return ops.Conv2D(in[0], in[1], conv)
			}},
	)
}

// bf16Normal is a normal value rounded to bfloat16.
func bf16Normal(r *rand.Rand, _ int) float32 { return ops.RoundBFloat16(float32(r.NormFloat64())) }

// TestBFloat16CasesHaveBFloat16GEMMs: the bfloat16 GEMM cases trace their
// MatMul and Conv2D with the bfloat16 precision the GPU builders honour.
func TestBFloat16CasesHaveBFloat16GEMMs(t *testing.T) {
	for _, c := range opCases {
		if c.name != "MatMulBFloat16" && c.name != "Conv2DBFloat16" {
			continue
		}
		p, err := buildCase(c, 1)
		if err != nil {
			t.Fatalf("case %s: %v", c.name, err)
		}
		found := false
		for _, st := range p.Plan().Steps {
			if st.Kind == "MatMul" || st.Kind == "Conv2D" {
				found = true
				if a := fmt.Sprintf("%+v", st.Op.Attrs()); !strings.Contains(a, "Precision:"+ops.PrecisionBFloat16) {
					t.Errorf("case %s: %s has attributes %s, want bfloat16 precision", c.name, st.Kind, a)
				}
			}
		}
		if !found {
			t.Errorf("case %s: no GEMM step", c.name)
		}
	}
}
