//go:build cuda

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/internal/vec"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/cu"
)

// specials are edge values put at the start of inputs long enough.
var specials = []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
	1e30, -1e30, 1e-40, -3, 3, 88.7, -104, 20, -20}

func input(r *rand.Rand, n int) []float32 {
	x := randVals(r, n, -4, 4)
	copy(x, specials)
	return x
}

// unaryRefs builds each unary kind on the CPU, with the constants the
// test passes (c = 1.7 or -1, d = 2).
var unaryRefs = map[string]func(x ops.Tensor) ops.Tensor{
	"Neg":       ops.Neg,
	"Scale":     func(x ops.Tensor) ops.Tensor { return ops.Scale(x, 1.7) },
	"AddScalar": func(x ops.Tensor) ops.Tensor { return ops.AddScalar(x, 1.7) },
	"OneMinus":  ops.OneMinus,
	"Exp":       ops.Exp,
	"Log":       ops.Log,
	"Sqrt":      ops.Sqrt,
	"Rsqrt":     ops.Rsqrt,
	"Tanh":      ops.Tanh,
	"Square":    ops.Square,
	"Abs":       ops.Abs,
	"Sign":      ops.Sign,
	"Clip":      func(x ops.Tensor) ops.Tensor { return ops.Clip(x, -1, 2) },
	"Softplus":  ops.Log1pExp,
	"Relu":      ops.Relu,
	"Sigmoid":   ops.Sigmoid,

	"CastToBFloat16": ops.CastToBFloat16,
}

func unaryConsts(kind string) (c, d float32) {
	switch kind {
	case "Clip", "ClipMask":
		return -1, 2
	}
	return 1.7, 0
}

// unaryFormula is the CPU formula of the kinds made inside other ops'
// gradients or in layers (ClipMask, StepAbove).
func unaryFormula(kind string, x []float32) []float32 {
	c, d := unaryConsts(kind)
	out := make([]float32, len(x))
	for i, v := range x {
		switch kind {
		case "ClipMask":
			if v >= c && v <= d {
				out[i] = 1
			}
		case "StepAbove":
			if v >= c {
				out[i] = 1
			}
		}
	}
	return out
}

func TestUnary(t *testing.T) {
	onGPU(t)
	r := rand.New(rand.NewPCG(1, 1))
	for _, kind := range UnaryKinds() {
		for _, n := range sizes {
			x := input(r, n)
			var want []float32
			if build, ok := unaryRefs[kind]; ok {
				want = cpuOp(t, func(xs []ops.Tensor) ops.Tensor { return build(xs[0]) }, []ops.Shape{{n}}, [][]float32{x})
			} else {
				want = unaryFormula(kind, x)
			}
			xb, ob := f32buf(t, x), outbuf(t, n)
			c, d := unaryConsts(kind)
			check(t, Unary(cu.NoStream, kind, ob.ptr, xb.ptr, n, c, d))
			got := ob.f32(t)
			compare(t, fmt.Sprintf("%s n=%d", kind, n), got, want)
			if n > len(specials) && (kind == "Relu" || kind == "Clip") && !(got[2] != got[2]) {
				t.Errorf("%s(NaN) = %v, want NaN as on the CPU", kind, got[2])
			}
		}
	}
}

// TestRoundBFloat16 checks the bfloat16 rounding bitwise against
// ops.RoundBFloat16 on ties (to even, both ways), the largest values that
// round to the largest finite bfloat16 or overflow, subnormals and NaNs
// with payloads of both signs.
func TestRoundBFloat16(t *testing.T) {
	onGPU(t)
	bits := []uint32{0x3f808000, 0x3f818000, 0x3f808001, 0x3f817fff, 0x7f7f7fff, 0x7f7f8000, 0xff7f8000,
		0x00008000, 0x00018000, 0x80008000, 0x7fc00001, 0xff800001, 0x7f800001, 0x7f800000, 0xff800000}
	r := rand.New(rand.NewPCG(9, 9))
	for len(bits) < 5000 {
		bits = append(bits, r.Uint32())
	}
	x := make([]float32, len(bits))
	for i, b := range bits {
		x[i] = math.Float32frombits(b)
	}
	xb, ob := f32buf(t, x), outbuf(t, len(x))
	check(t, RoundBFloat16(cu.NoStream, ob.ptr, xb.ptr, len(x)))
	for i, g := range ob.f32(t) {
		if w := ops.RoundBFloat16(x[i]); math.Float32bits(g) != math.Float32bits(w) {
			t.Fatalf("RoundBFloat16(%#08x) = %#08x, want %#08x", bits[i], math.Float32bits(g), math.Float32bits(w))
		}
	}
}

// TestUnaryInPlace checks out == x.
func TestUnaryInPlace(t *testing.T) {
	onGPU(t)
	x := input(rand.New(rand.NewPCG(2, 2)), 1000)
	want := cpuOp(t, func(xs []ops.Tensor) ops.Tensor { return ops.Tanh(xs[0]) }, []ops.Shape{{1000}}, [][]float32{x})
	b := f32buf(t, x)
	check(t, Tanh(cu.NoStream, b.ptr, b.ptr, 1000))
	compare(t, "Tanh in place", b.f32(t), want)
}

func TestBinary(t *testing.T) {
	onGPU(t)
	r := rand.New(rand.NewPCG(3, 3))
	refs := map[string]func(a, b ops.Tensor) ops.Tensor{
		"Add": ops.Add, "Sub": ops.Sub, "Mul": ops.Mul, "Div": ops.Div, "Maximum": ops.Maximum, "AddRelu": ops.AddRelu,
	}
	for _, kind := range BinaryKinds() {
		for _, n := range sizes {
			a, b := input(r, n), randVals(r, n, -3, 3)
			if n > 3 {
				b[0], b[1], b[2] = 0, float32(math.NaN()), a[3] // ties and NaN on the other side
			}
			var want []float32
			switch kind {
			case "GreaterEqual":
				want = make([]float32, n)
				for i := range want {
					if a[i] >= b[i] {
						want[i] = 1
					}
				}
			case "ReluGrad":
				want = make([]float32, n)
				vec.ReluGrad(want, a, b)
			default:
				want = cpuOp(t, func(xs []ops.Tensor) ops.Tensor { return refs[kind](xs[0], xs[1]) },
					[]ops.Shape{{n}, {n}}, [][]float32{a, b})
			}
			ab, bb, ob := f32buf(t, a), f32buf(t, b), outbuf(t, n)
			check(t, Binary(cu.NoStream, kind, ob.ptr, ab.ptr, bb.ptr, n))
			got := ob.f32(t)
			if kind == "AddRelu" {
				// The CPU's AVX-512 bulk gives 0 for a NaN sum where
				// its Go loop (and the GPU) give NaN: compare finite sums.
				for i := range got {
					if s := a[i] + b[i]; s != s {
						got[i], want[i] = 0, 0
					}
				}
			}
			compare(t, fmt.Sprintf("%s n=%d", kind, n), got, want)
			bitwise(t, fmt.Sprintf("%s n=%d", kind, n), got, want)
		}
	}
}

func TestBroadcast(t *testing.T) {
	onGPU(t)
	r := rand.New(rand.NewPCG(4, 4))
	shapes := [][3]ops.Shape{
		{{7, 5}, {5}, {7, 5}},
		{{5}, {7, 5}, {7, 5}},
		{{4, 3, 33}, {4, 3, 1}, {4, 3, 33}},
		{{1}, {300}, {300}},
		{{300}, {}, {300}},
		{{3, 1, 5}, {1, 4, 1}, {3, 4, 5}},
		{{2, 1, 3, 1, 2}, {2, 2, 1, 3, 2}, {2, 2, 3, 3, 2}},
		{{0, 5}, {5}, {0, 5}},
		{{64, 8, 8, 16}, {16}, {64, 8, 8, 16}},
	}
	refs := map[string]func(a, b ops.Tensor) ops.Tensor{
		"Add": ops.Add, "Sub": ops.Sub, "Mul": ops.Mul, "Div": ops.Div, "Maximum": ops.Maximum,
	}
	for _, sh := range shapes {
		a, b := input(r, sh[0].Size()), randVals(r, sh[1].Size(), -2, 2)
		for kind, ref := range refs {
			want := cpuOp(t, func(xs []ops.Tensor) ops.Tensor { return ref(xs[0], xs[1]) }, sh[:2], [][]float32{a, b})
			ab, bb, ob := f32buf(t, a), f32buf(t, b), outbuf(t, sh[2].Size())
			check(t, BinaryBroadcast(cu.NoStream, kind, ob.ptr, ab.ptr, bb.ptr, sh[0], sh[1], sh[2]))
			got := ob.f32(t)
			compare(t, fmt.Sprintf("%s %v %v", kind, sh[0], sh[1]), got, want)
			bitwise(t, fmt.Sprintf("%s %v %v", kind, sh[0], sh[1]), got, want)
		}
		// BroadcastTo of each operand.
		for k := 0; k < 2; k++ {
			v := [][]float32{a, b}[k]
			if sh[k].Equal(sh[2]) {
				continue
			}
			want := cpuOp(t, func(xs []ops.Tensor) ops.Tensor { return ops.BroadcastTo(xs[0], sh[2]) }, []ops.Shape{sh[k]}, [][]float32{v})
			xb, ob := f32buf(t, v), outbuf(t, sh[2].Size())
			check(t, BroadcastTo(cu.NoStream, ob.ptr, xb.ptr, sh[k], sh[2]))
			bitwise(t, fmt.Sprintf("BroadcastTo %v -> %v", sh[k], sh[2]), ob.f32(t), want)
		}
	}
	ab := f32buf(t, make([]float32, 12))
	if err := BinaryBroadcast(cu.NoStream, "Add", ab.ptr, ab.ptr, ab.ptr, []int{3, 4}, []int{3}, []int{3, 4}); err == nil {
		t.Error("incompatible shapes: no error")
	}
}

func TestBiasAdd(t *testing.T) {
	onGPU(t)
	r := rand.New(rand.NewPCG(5, 5))
	for _, rc := range [][2]int{{0, 3}, {1, 1}, {7, 5}, {257, 64}, {4096, 10}} {
		rows, c := rc[0], rc[1]
		x, b := input(r, rows*c), randVals(r, c, -1, 1)
		for _, relu := range []bool{false, true} {
			want := cpuOp(t, func(xs []ops.Tensor) ops.Tensor {
				if relu {
					return ops.BiasAddRelu(xs[0], xs[1])
				}
				return ops.BiasAdd(xs[0], xs[1])
			}, []ops.Shape{{rows, c}, {c}}, [][]float32{x, b})
			xb, bb, ob := f32buf(t, x), f32buf(t, b), outbuf(t, rows*c)
			f := BiasAdd
			if relu {
				f = BiasAddRelu
			}
			check(t, f(cu.NoStream, ob.ptr, xb.ptr, bb.ptr, rows, c))
			got := ob.f32(t)
			for i := range got { // NaN sums: see TestBinary's AddRelu
				if s := x[i] + b[i%c]; relu && s != s {
					got[i], want[i] = 0, 0
				}
			}
			bitwise(t, fmt.Sprintf("BiasAdd relu=%v %dx%d", relu, rows, c), got, want)
		}
	}
}

func TestFillAndStatus(t *testing.T) {
	onGPU(t)
	for _, n := range sizes {
		b := outbuf(t, n)
		check(t, Fill(cu.NoStream, b.ptr, n, -2.5))
		for i, v := range b.f32(t) {
			if v != -2.5 {
				t.Fatalf("Fill n=%d: [%d] = %v", n, i, v)
			}
		}
	}
	if got := statusBuf(t).i64(t)[0]; got != StatusOK {
		t.Errorf("reset status = %d, want StatusOK", got)
	}
	if err := Add(cu.NoStream, 0, 0, 0, -1); err == nil {
		t.Error("negative size: no error")
	}
	if err := Add(cu.NoStream, 0, 0, 0, 5); err == nil {
		t.Error("null pointers: no error")
	}
}

// TestSecondContext checks that the module cache is per context.
func TestSecondContext(t *testing.T) {
	onGPU(t)
	dev, err := cu.GetDevice(0)
	check(t, err)
	ctx, err := dev.MakeContext(cu.SchedAuto)
	check(t, err)
	defer func() {
		check(t, Unload())
		check(t, ctx.Destroy())
		check(t, cu.SetCurrentContext(gpuCtx.ctx))
	}()
	a := []float32{1, 2, 3}
	ab, ob := f32buf(t, a), outbuf(t, 3)
	check(t, Add(cu.NoStream, ob.ptr, ab.ptr, ab.ptr, 3))
	bitwise(t, "Add in a second context", ob.f32(t), []float32{2, 4, 6})
}
