package gpuexec_test

import "github.com/gokeras/gokeras/ops"

// Conformance cases of the conv and shape ops of keras.layers'
// Conv2DTranspose, Permute and UpSampling2D: Transpose is an op kind of
// its own; the transposed convolution runs as the convolution's gradient
// kinds, whose GPU kernels must then agree on its geometry.
func init() {
	opCases = append(opCases,
		unaryCase("Transpose", normal, func(x ops.Tensor) ops.Tensor { return ops.Transpose(x, []int{1, 0}) }),
		opCase{name: "Transpose4D", shapes: []ops.Shape{{2, 3, 4, 5}}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.Transpose(in[0], []int{2, 0, 1, 3}) }},
		opCase{name: "Conv2DTransposeSameStrided", shapes: []ops.Shape{{2, 5, 4, 3}, {3, 3, 4, 3}}, wrt: []int{0, 1},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.Conv2DTranspose(in[0], in[1], ops.Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "same"})
			}},
		opCase{name: "Conv2DTransposeValidOutputPadding", shapes: []ops.Shape{{1, 4, 3, 2}, {2, 3, 3, 2}}, wrt: []int{0, 1},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				return ops.Conv2DTranspose(in[0], in[1], ops.Conv2DTransposeAttrs{Strides: [2]int{3, 2}, Padding: "valid", OutputPadding: []int{1, 1}})
			}},
		opCase{name: "UpSample2DNearest", shapes: []ops.Shape{{2, 3, 4, 2}}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.UpSample2D(in[0], [2]int{2, 3}, "nearest") }},
		opCase{name: "UpSample2DBilinear", shapes: []ops.Shape{{2, 3, 4, 2}}, wrt: []int{0},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.UpSample2D(in[0], [2]int{2, 2}, "bilinear") }},
	)
}
