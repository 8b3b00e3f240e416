package gpuexec_test

import (
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// The attention ops on the device: BatchMatMul (every transpose
// combination, rank 3 and 4; its gradient is BatchMatMul again), as the
// attention layers use it for scores and weighted values, and the layers
// themselves: MultiHeadAttention with a causal mask (seeded weights, so
// that the CPU and device builds are the same graph) and Attention with
// concat scores.
func init() {
	bmm := func(name string, a, b ops.Shape, ta, tb bool) opCase {
		return opCase{name: name, shapes: []ops.Shape{a, b}, wrt: []int{0, 1},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.BatchMatMul(in[0], in[1], ta, tb) }}
	}
	opCases = append(opCases,
		bmm("BatchMatMulNN", ops.Shape{4, 5, 6}, ops.Shape{4, 6, 3}, false, false),
		bmm("BatchMatMulNT", ops.Shape{2, 3, 5, 8}, ops.Shape{2, 3, 7, 8}, false, true),
		bmm("BatchMatMulTN", ops.Shape{3, 6, 5}, ops.Shape{3, 6, 4}, true, false),
		bmm("BatchMatMulTT", ops.Shape{3, 6, 5}, ops.Shape{3, 4, 6}, true, true),
		opCase{name: "MultiHeadAttentionCausal", shapes: []ops.Shape{{2, 5, 6}}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				l := layers.NewMultiHeadAttention(2, 3, layers.WithSeed(7))
				l.UseCausalMask = true
				if _, err := layers.OutputShape(l, []ops.Shape{{-1, 5, 6}, {-1, 5, 6}}); err != nil {
					panic(err)
				}
				return l.Call([]ops.Tensor{in[0], in[0]}, false)
			}},
		opCase{name: "AttentionConcat", shapes: []ops.Shape{{2, 3, 4}, {2, 5, 4}}, wrt: []int{0, 1},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				l := layers.NewAttention(layers.WithScoreMode("concat"), layers.WithUseScale(true))
				if _, err := layers.OutputShape(l, []ops.Shape{{-1, 3, 4}, {-1, 5, 4}}); err != nil {
					panic(err)
				}
				return l.Call(in, false)
			}},
	)
}
