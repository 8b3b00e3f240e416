package ops

import "github.com/gokeras/gokeras/internal/vec"

// A convolution followed by its bias (and a ReLU), as every Keras Conv2D
// layer with use_bias computes it, runs as one op, Conv2DBias: the bias
// and ReLU are applied to each block of output rows right after its GEMM,
// while the block is in the core's cache, instead of by a BiasAdd (or
// BiasAddRelu) op reading and writing the whole output again (the seed
// CNN's first convolution writes 1.4M floats; docs/performance.md, "One
// block per core"). BiasAdd fuses itself into a Conv2D that produced its
// input, and Relu into that Conv2DBias (fuseRelu); the results are
// bitwise those of the separate ops, which apply the same float32
// additions and the same ReLU in the same order. The unfused Conv2D stays
// in the graph; executors skip it when nothing else reads it.

// epilogue is the bias (nil: none) and ReLU of a Conv2DBias, and the
// rounding to bfloat16 of a convolution that rounds its output
// (cast_fused.go; width is then the output's channels). rep holds the
// bias repeated over several rows: the epilogue adds it to that many
// rows per call, where a call per row (32 channels in the CNN) cost more
// than the additions.
type epilogue struct {
	bias  []float32
	relu  bool
	rep   []float32
	round bool
	width int
}

// epilogueRepFloats is the length of an epilogue's repeated bias (about).
const epilogueRepFloats = 2048

// newEpilogue returns the epilogue adding bias (and the ReLU), repeating
// the bias into buf (grown as needed; the op keeps it between calls).
func newEpilogue(bias []float32, relu bool, buf *[]float32) epilogue {
	c := len(bias)
	k := max(1, epilogueRepFloats/c)
	if cap(*buf) < k*c {
		*buf = make([]float32, k*c)
	}
	rep := (*buf)[:k*c]
	for i := 0; i < k; i++ {
		copy(rep[i*c:(i+1)*c], bias)
	}
	return epilogue{bias: bias, relu: relu, rep: rep, width: c}
}

// roundingEpilogue is the epilogue of a convolution without a bias that
// rounds its c-channel output to bfloat16.
func roundingEpilogue(c int) epilogue { return epilogue{round: true, width: c} }

func (e epilogue) active() bool { return e.bias != nil || e.round }

// epilogueBlockFloats bounds the output floats a convolution computes
// before its epilogue runs over them (they stay in a core's cache).
const epilogueBlockFloats = 64 << 10

// apply adds the bias to rows [r0, r1) of y (and applies the ReLU, then
// the rounding), on the calling goroutine when serial.
func (e epilogue) apply(y []float32, r0, r1 int, serial bool) {
	if !e.active() {
		return
	}
	c := e.width
	if e.bias == nil { // rounding only
		rowsOn(serial, r1-r0, c, func(lo, hi int) {
			for r := r0 + lo; r < r0+hi; r += roundRowBlock(c) {
				rows := y[r*c : min(r+roundRowBlock(c), r0+hi)*c]
				roundBFloat16Slice(rows, rows)
			}
		})
		return
	}
	k := len(e.rep) / c
	rowsOn(serial, r1-r0, c, func(lo, hi int) {
		for r := r0 + lo; r < r0+hi; r += k {
			rows := y[r*c : min(r+k, r0+hi)*c]
			switch {
			case e.relu && e.round:
				vec.AddReluRoundBF16(rows, rows, e.rep[:len(rows)])
			case e.relu:
				vec.AddRelu(rows, rows, e.rep[:len(rows)])
			case e.round:
				vec.AddRoundBF16(rows, rows, e.rep[:len(rows)])
			default:
				vec.Add(rows, rows, e.rep[:len(rows)])
			}
		}
	})
}

// noConvBiasFusion turns the fusion off (tests compare the two).
var noConvBiasFusion = false

// fuseConvBias returns Conv2DBias(x's inputs, b) when x is the output of
// a Conv2D op, for BiasAdd(x, b).
func fuseConvBias(x, b Tensor) (Tensor, bool) {
	if noConvBiasFusion || x.n == nil {
		return Tensor{}, false
	}
	op, ok := x.n.Op().(*Op)
	if !ok || op.name != "Conv2D" {
		return Tensor{}, false
	}
	ch := Children(x.tr.g, x.n)
	return conv2D(x.tr.wrap(ch[0]), x.tr.wrap(ch[1]), b, false, false, op.attrs.(Conv2DAttrs)), true
}

// fuseConvBiasRelu returns the Conv2DBias y with the ReLU in its epilogue
// (rounding its output still if y's op did), for Relu(y).
func fuseConvBiasRelu(y Tensor, op *Op) Tensor {
	ch := Children(y.tr.g, y.n)
	return conv2D(y.tr.wrap(ch[0]), y.tr.wrap(ch[1]), y.tr.wrap(ch[2]), true, op.bf16, op.attrs.(Conv2DAttrs))
}

// biasEpilogueGrad returns the gradient of a bias epilogue's input (dy
// masked by the ReLU's output y > 0, when relu) and of its bias, as
// BiasAdd's and BiasAddRelu's gradients do.
func biasEpilogueGrad(y, dy Tensor, relu bool) (g, db Tensor) {
	if !relu {
		return dy, biasAddGrad(dy)
	}
	g = reluGrad(y, dy)
	if pdy, pooled, _, ok := maxPoolOfRelu(y, dy); ok {
		// The bias gradient sums the masked pooled gradient, a
		// quarter (or less) of g.
		return g, pooledChannelSum(pdy, pooled)
	}
	return g, biasAddGrad(g)
}
