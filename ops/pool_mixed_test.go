package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestMaxPoolOfReluMixed: under mixed_bfloat16 a convolution layer's
// BiasAddRelu output is cast, pooled and the pooled value cast again (an
// exact cast, a view); the backward pass still fuses the ReLU mask into
// the pooling's scatter and sums the bias gradient over the pooled
// gradient (PooledChannelSum), as in float32, instead of a ReluGrad and
// a BiasAddGrad over the whole activation. The gradients are the
// rounded output gradient at each window's maximum where the rounded
// ReLU output is positive.
func TestMaxPoolOfReluMixed(t *testing.T) {
	const n, h, w, c = 2, 6, 6, 3
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, n*h*w*c)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	bias := []float32{0.1, -0.2, 0.05}
	wts := make([]float32, n*(h/2)*(w/2)*c)
	for i := range wts {
		wts[i] = float32(r.NormFloat64())
	}
	xv := ops.NewVariable("x", ops.Shape{n, h, w, c}, x, true)
	bv := ops.NewVariable("b", ops.Shape{c}, bias, true)
	tr := ops.NewTrace(true, 0, 1)
	y := ops.CastToBFloat16(ops.Relu(ops.BiasAdd(tr.Read(xv), tr.Read(bv))))
	p := ops.CastToBFloat16(ops.MaxPool2D(y, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"}))
	loss := ops.Sum(ops.Mul(p, tr.Constant(p.Shape(), wts)), false)
	g, err := ops.Gradients(loss, []*ops.Variable{xv, bv})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := engine.Compile(tr, []ops.Tensor{g[0], g[1]})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, st := range prog.Plan().Steps {
		kinds[st.Kind] = true
	}
	if kinds["ReluGrad"] || kinds["BiasAddGrad"] || !kinds["PooledChannelSum"] {
		t.Errorf("backward steps %v: want the ReLU mask in the scatter and PooledChannelSum", kinds)
	}
	vals, err := prog.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dx := make([]float32, len(x))
	db := make([]float64, c)
	for b := 0; b < n; b++ {
		for oy := 0; oy < h/2; oy++ {
			for ox := 0; ox < w/2; ox++ {
				for ch := 0; ch < c; ch++ {
					best, bi := float32(math.Inf(-1)), -1
					for ky := 0; ky < 2; ky++ {
						for kx := 0; kx < 2; kx++ {
							i := ((b*h+2*oy+ky)*w+2*ox+kx)*c + ch
							if v := ops.RoundBFloat16(max(x[i]+bias[ch], 0)); v > best {
								best, bi = v, i
							}
						}
					}
					if best > 0 {
						gw := ops.RoundBFloat16(wts[((b*h/2+oy)*w/2+ox)*c+ch])
						dx[bi] = gw
						db[ch] += float64(gw)
					}
				}
			}
		}
	}
	for i, v := range vals[0].Data {
		if v != dx[i] {
			t.Fatalf("dx[%d] = %g, want %g", i, v, dx[i])
		}
	}
	for ch, v := range vals[1].Data {
		if want := ops.RoundBFloat16(float32(db[ch])); math.Abs(float64(v-want)) > 1e-2*math.Abs(float64(want)) {
			t.Errorf("db[%d] = %g, want about %g", ch, v, want)
		}
	}
}
