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

// TestReluOfCastFused: a ReLU layer under mixed_bfloat16 gets the previous
// layer's rounded output; Relu(CastToBFloat16(BiasAdd(x, b))) becomes
// CastToBFloat16(BiasAddRelu(x, b)) (equal values: rounding keeps signs),
// and its gradient is the rounded dy where x + b > 0.
func TestReluOfCastFused(t *testing.T) {
	const n, c = 5, 4
	r := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, n*c)
	wts := make([]float32, n*c)
	for i := range x {
		x[i] = float32(r.NormFloat64())
		wts[i] = float32(r.NormFloat64())
	}
	bias := []float32{0.3, -0.1, 0.2, -0.4}
	xv := ops.NewVariable("x", ops.Shape{n, c}, x, true)
	tr := ops.NewTrace(true, 0, 1)
	y := ops.Relu(ops.CastToBFloat16(ops.BiasAdd(tr.Read(xv), tr.Constant(ops.Shape{c}, bias))))
	op := y.Node().Op().(*ops.Op)
	if op.Kind() != "CastToBFloat16" {
		t.Fatalf("Relu of a cast is a %s op", op.Kind())
	}
	loss := ops.Sum(ops.Mul(y, tr.Constant(ops.Shape{n, c}, wts)), false)
	g, err := ops.Gradients(loss, []*ops.Variable{xv})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{y, g[0]})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Plan().Steps {
		if st.Kind == "Relu" || st.Kind == "BiasAdd" {
			t.Errorf("a %s step runs: the ReLU was not fused into BiasAddRelu", st.Kind)
		}
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		s := x[i] + bias[i%c]
		if want := max(ops.RoundBFloat16(s), 0); vals[0].Data[i] != want {
			t.Errorf("y[%d] = %g, want %g", i, vals[0].Data[i], want)
		}
		want := float32(0)
		if s > 0 {
			want = ops.RoundBFloat16(wts[i])
		}
		if vals[1].Data[i] != want {
			t.Errorf("dx[%d] = %g, want %g", i, vals[1].Data[i], want)
		}
	}
}
