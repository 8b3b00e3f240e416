package models

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// GEMM is one Conv2D or Dense call of a model as the matrix products of a
// training step: the forward product is M x N x K (M rows: batch x output
// positions; N: filters or units; K: the kernel's inputs per output, taps
// x input channels for a convolution), and the filter gradient and the
// input gradient are products of the same count of multiply-adds. Passes
// is 3 (forward, input gradient, filter gradient), or 2 where no
// gradient flows past the layer's input (the first layer of both seed
// models: nothing before it trains).
type GEMM struct {
	Layer   string
	M, N, K int64
	Passes  int
}

// FLOPs is 2·M·N·K per pass (a multiply-add is two flops).
func (g GEMM) FLOPs() float64 {
	return 2 * float64(g.M) * float64(g.N) * float64(g.K) * float64(g.Passes)
}

// StepGEMMs lists the GEMMs of one training step of m on batch examples,
// one entry per Conv2D or Dense call, from the model's inputs to its
// outputs. A convolution counts as its im2col product, padding taps
// included ("same" borders multiply zeros; docs/performance.md, "The
// machine and the arithmetic floor", counts them apart). The rest of the
// step (activations, pooling, batch normalisation, the loss, the
// optimizer) is not counted: it is memory-bound, not FMA-bound. A layer
// with trainable weights other than Conv2D, Dense and
// BatchNormalization is an error, as its arithmetic would be missed.
func StepGEMMs(m *keras.Model, batch int) ([]GEMM, error) {
	if batch < 1 {
		return nil, fmt.Errorf("models: StepGEMMs: batch %d must be positive", batch)
	}
	if !m.Built() {
		return nil, fmt.Errorf("models: StepGEMMs: model %q is not built", m.Name())
	}
	// Post-order walk from the outputs: every call after those it reads.
	var order []*layers.CallNode
	seen := map[*layers.CallNode]bool{}
	var visit func(n *layers.CallNode)
	visit = func(n *layers.CallNode) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		for _, in := range n.Inputs {
			visit(in.Node())
		}
		order = append(order, n)
	}
	for _, out := range m.Outputs() {
		visit(out.Node())
	}
	// trains[t]: some layer on the way from the inputs to t has trainable
	// weights, so the step needs the gradient with respect to t.
	trains := map[*layers.KerasTensor]bool{}
	var gs []GEMM
	for _, n := range order {
		needDx := false
		for _, in := range n.Inputs {
			needDx = needDx || trains[in]
		}
		l := n.Layer
		trains[n.Output] = needDx || (!n.IsInput && l.Trainable() && len(l.TrainableWeights()) > 0)
		if n.IsInput {
			continue
		}
		g := GEMM{Layer: l.Name(), Passes: 2}
		if needDx {
			g.Passes = 3
		}
		out := n.Output.Shape()
		var kernel []int
		switch l := l.(type) {
		case *layers.Conv2D:
			if l.Kernel == nil || len(out) != 4 {
				return nil, fmt.Errorf("models: StepGEMMs: Conv2D %q: no kernel or output shape %v", l.Name(), out)
			}
			kernel = l.Kernel.Shape() // kh, kw, in, filters
			g.M = int64(batch) * int64(out[1]) * int64(out[2])
			g.K = int64(kernel[0]) * int64(kernel[1]) * int64(kernel[2])
			g.N = int64(kernel[3])
		case *layers.Dense:
			if l.Kernel == nil || len(out) < 2 {
				return nil, fmt.Errorf("models: StepGEMMs: Dense %q: no kernel or output shape %v", l.Name(), out)
			}
			kernel = l.Kernel.Shape() // in, units
			g.M = int64(batch)
			for _, d := range out[1 : len(out)-1] {
				g.M *= int64(d)
			}
			g.K, g.N = int64(kernel[0]), int64(kernel[1])
		case *layers.BatchNormalization:
			continue
		default:
			if len(l.TrainableWeights()) > 0 {
				return nil, fmt.Errorf("models: StepGEMMs: layer %q (%s) has weights whose arithmetic is not counted", l.Name(), l.ClassName())
			}
			continue
		}
		if g.M <= 0 || g.N <= 0 || g.K <= 0 {
			return nil, fmt.Errorf("models: StepGEMMs: %s %q: unknown dimensions (output %v, kernel %v)", l.ClassName(), l.Name(), out, kernel)
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// StepFLOPs is the sum of the FLOPs of [StepGEMMs]: the arithmetic whose
// time on the machine's fused multiply-add peak is the step's floor.
func StepFLOPs(m *keras.Model, batch int) (float64, error) {
	gs, err := StepGEMMs(m, batch)
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, g := range gs {
		sum += g.FLOPs()
	}
	return sum, nil
}
