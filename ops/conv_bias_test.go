package ops_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestConvBiasFusionBitwise runs convolutions with a bias, a ReLU and a
// max pooling (a Keras Conv2D layer with activation "relu" and the pool
// after it) with the fusion on and off, and requires the output and every
// gradient to be bitwise equal and the fused graph to hold the fused op
// (every path: im2col, tap classes, 1x1, dilated, strided; float32 and
// bfloat16 GEMMs).
func TestConvBiasFusionBitwise(t *testing.T) {
	type convCase struct {
		n, h, w, cin, k, cout, stride, dil int
		padding                            string
	}
	for _, c := range []convCase{
		{6, 13, 13, 8, 3, 16, 1, 1, "valid"},
		{64, 28, 28, 1, 3, 32, 1, 1, "valid"}, // the seed CNN's first convolution
		{8, 8, 8, 16, 3, 24, 1, 1, "same"},    // tap classes
		{8, 4, 4, 16, 3, 32, 2, 1, "same"},
		{5, 6, 6, 12, 1, 20, 1, 1, "same"},
		{4, 9, 9, 3, 3, 8, 1, 2, "same"},
	} {
		for _, precision := range []string{"", ops.PrecisionBFloat16} {
			for _, act := range []string{"none", "relu", "relu+pool"} {
				t.Run(fmt.Sprintf("%+v/%q/%s", c, precision, act), func(t *testing.T) {
					run := func(fused bool) ([][]float32, map[string]bool) {
						defer ops.SetConvBiasFusion(ops.SetConvBiasFusion(fused))
						r := rand.New(rand.NewPCG(5, uint64(c.h*100+c.cout)))
						mk := func(name string, s ops.Shape) *ops.Variable {
							d := make([]float32, s.Size())
							for i := range d {
								d[i] = float32(r.NormFloat64())
							}
							return ops.NewVariable(name, s, d, true)
						}
						vx := mk("x", ops.Shape{c.n, c.h, c.w, c.cin})
						vw := mk("w", ops.Shape{c.k, c.k, c.cin, c.cout})
						vb := mk("b", ops.Shape{c.cout})
						tr := ops.NewTrace(true, 0, 1)
						y := ops.Conv2D(tr.Read(vx), tr.Read(vw), ops.Conv2DAttrs{Strides: [2]int{c.stride, c.stride}, Dilations: [2]int{c.dil, c.dil}, Padding: c.padding, Precision: precision})
						y = ops.BiasAdd(y, tr.Read(vb))
						if act != "none" {
							y = ops.Relu(y)
						}
						if act == "relu+pool" {
							y = ops.MaxPool2D(y, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
						}
						wts := make([]float32, y.Shape().Size())
						for i := range wts {
							wts[i] = float32(r.NormFloat64())
						}
						out, p := runWithGradients(t, tr, y, wts, []*ops.Variable{vx, vw, vb})
						kinds := map[string]bool{}
						for _, st := range p.Plan().Steps {
							kinds[st.Kind] = true
						}
						return out, kinds
					}
					want, plain := run(false)
					got, fused := run(true)
					wantOp := "Conv2DBias"
					if act != "none" {
						wantOp = "Conv2DBiasRelu"
					}
					if !fused[wantOp] || fused["Conv2D"] || fused["BiasAdd"] || fused["BiasAddRelu"] || plain[wantOp] {
						t.Errorf("op kinds fused %v, unfused %v: want %s only when fused", fused, plain, wantOp)
					}
					for i, name := range []string{"y", "dx", "dw", "db"} {
						for j := range want[i] {
							if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
								t.Fatalf("%s[%d]: fused %v, unfused %v", name, j, got[i][j], want[i][j])
							}
						}
					}
				})
			}
		}
	}
}
