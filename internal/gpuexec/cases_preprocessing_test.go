package gpuexec_test

import (
	"math/rand/v2"

	"github.com/gokeras/gokeras/ops"
)

// The preprocessing layers' op kinds (keras.layers.Hashing, IntegerLookup,
// RandomZoom,
// RandomRotation).
// HashBucket has no gradient; the product with a float input gives the
// case one. The random transforms' gradients are
// their kinds with a Grad suffix; bilinear interpolation has kinds of its own.
func init() {
	opCases = append(opCases,
		opCase{name: "HashBucket", shapes: []ops.Shape{{6, 7}, {6, 7}},
			fill: []func(*rand.Rand, int) float32{normal, intsBelow(100000)}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.Mul(in[0], ops.HashBucket(in[1], ops.HashBucketAttrs{NumBins: 13}))
			}},
		opCase{name: "HashBucketSaltMask", shapes: []ops.Shape{{6, 7}, {6, 7}},
			fill: []func(*rand.Rand, int) float32{normal, intsBelow(5)}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				a := ops.HashBucketAttrs{NumBins: 7, Strong: true, Salt: [2]uint64{133, 137}, HasMask: true, Mask: 0}
				return ops.Mul(in[0], ops.HashBucket(in[1], a))
			}},
		opCase{name: "FloorModScalar", shapes: []ops.Shape{{6, 7}, {6, 7}},
			fill: []func(*rand.Rand, int) float32{normal, func(r *rand.Rand, _ int) float32 { return float32(r.IntN(2001) - 1000) }}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.Mul(in[0], ops.FloorModScalar(in[1], 7))
			}},
		opCase{name: "RandomZoom", shapes: []ops.Shape{{3, 5, 6, 2}}, wrt: []int{0}, training: true,
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.SeededRandomZoom(in[0], [2]float32{-0.4, 0.6}, [2]float32{0.3, 0.3}, false, "reflect", 0, "nearest",
					ops.NewSeedGenerator("zoom", 7))
			}},
		opCase{name: "RandomRotation", shapes: []ops.Shape{{3, 5, 6, 2}}, wrt: []int{0}, training: true,
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.SeededRandomRotation(in[0], [2]float32{-0.3, 0.4}, "wrap", 0, "nearest", ops.NewSeedGenerator("rotation", 7))
			}},
		opCase{name: "RandomZoomBilinear", shapes: []ops.Shape{{3, 5, 6, 2}}, wrt: []int{0}, training: true,
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.SeededRandomZoom(in[0], [2]float32{-0.4, 0.6}, [2]float32{0.3, 0.3}, true, "constant", 0.5, "bilinear",
					ops.NewSeedGenerator("zoom", 7))
			}},
		opCase{name: "RandomRotationBilinear", shapes: []ops.Shape{{3, 5, 6, 2}}, wrt: []int{0}, training: true,
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.SeededRandomRotation(in[0], [2]float32{-0.3, 0.4}, "reflect", 0, "bilinear", ops.NewSeedGenerator("rotation", 7))
			}},
	)
}
