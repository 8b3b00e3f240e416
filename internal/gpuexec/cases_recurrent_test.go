package gpuexec_test

import (
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// The recurrent layers on the device: LSTM and GRU of 16 timesteps or
// more run as ops.LSTMSequence / ops.GRUSequence and their gradients (the
// op kinds they add; CPU kernels, which the device executor falls back
// to), shorter ones and SimpleRNN as their time loop unrolled into MatMul,
// Slice, Concat, Reverse, the activations and the elementwise ops. The cases cover masks, go_backwards, both GRU variants
// and Bidirectional, with seeded weights so that the CPU and device builds
// are the same graph.
func init() {
	mask := []float32{1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1}
	recurrentCase := func(name string, mk func() layers.Layer, masked bool) opCase {
		return opCase{name: name, shapes: []ops.Shape{{3, 5, 4}}, wrt: []int{0},
			build: func(tr *ops.Trace, in []ops.Tensor) ops.Tensor {
				l := mk()
				if _, err := layers.OutputShape(l, []ops.Shape{{-1, 5, 4}}); err != nil {
					panic(err)
				}
				if masked {
					layers.SetMask(in[0], tr.Constant(ops.Shape{3, 5}, mask))
				}
				return l.Call(in, false)
			}}
	}
	opCases = append(opCases,
		opCase{name: "LSTMSequence", shapes: []ops.Shape{{2, 3, 8}, {2, 8}, {2, 2}, {2, 2}}, wrt: []int{0, 1, 2, 3},
			build: func(tr *ops.Trace, in []ops.Tensor) ops.Tensor {
				p := ops.LSTMSequence(in[0], in[1], in[2], in[3], tr.Constant(ops.Shape{2, 3}, []float32{1, 0, 1, 1, 1, 0}))
				return ops.Slice(p, []int{0, 0, 8}, []int{2, 3, 4}) // c and h
			}},
		opCase{name: "GRUSequence", shapes: []ops.Shape{{2, 3, 6}, {2, 6}, {6}, {2, 2}}, wrt: []int{0, 1, 2, 3},
			build: func(tr *ops.Trace, in []ops.Tensor) ops.Tensor {
				p := ops.GRUSequence(in[0], in[1], in[2], in[3], tr.Constant(ops.Shape{2, 3}, []float32{1, 1, 0, 1, 0, 1}))
				return ops.Slice(p, []int{0, 0, 8}, []int{2, 3, 2}) // h
			}},
		recurrentCase("LSTMSequenceMasked", func() layers.Layer {
			return layers.NewLSTM(6, layers.WithSeed(3), layers.WithReturnSequences(true))
		}, true),
		recurrentCase("GRUBackwards", func() layers.Layer {
			return layers.NewGRU(5, layers.WithSeed(4), layers.WithGoBackwards(true))
		}, false),
		recurrentCase("GRUResetBefore", func() layers.Layer {
			return layers.NewGRU(5, layers.WithSeed(5), layers.WithResetAfter(false), layers.WithReturnSequences(true))
		}, false),
		recurrentCase("BidirectionalSimpleRNNMasked", func() layers.Layer {
			return layers.NewBidirectional(layers.NewSimpleRNN(4, layers.WithSeed(6), layers.WithReturnSequences(true)), layers.WithMergeMode("sum"))
		}, true),
	)
}
