package ops_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestCastPrecisionVectors compares the conversions with ml_dtypes'
// bfloat16 and numpy's float16 (tools/keras_reference/mixed_vectors.py):
// halfway cases, subnormals, overflow, NaN and random bit patterns.
func TestCastPrecisionVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/cast_precision.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		F32  []uint32 `json:"float32_bits"`
		BF16 []uint16 `json:"bfloat16_bits"`
		F16  []uint16 `json:"float16_bits"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.F32) < 500 || len(v.BF16) != len(v.F32) || len(v.F16) != len(v.F32) {
		t.Fatalf("vectors: %d float32, %d bfloat16, %d float16", len(v.F32), len(v.BF16), len(v.F16))
	}
	for i, b := range v.F32 {
		x := math.Float32frombits(b)
		gotB, gotH := ops.Float32ToBFloat16Bits(x), ops.Float32ToFloat16Bits(x)
		if x != x { // NaN: any quiet NaN of the same sign
			if bf := ops.BFloat16BitsToFloat32(gotB); bf == bf || gotB>>15 != v.BF16[i]>>15 {
				t.Errorf("bfloat16(%#08x NaN) = %#04x, want a NaN like %#04x", b, gotB, v.BF16[i])
			}
			if hf := ops.Float16BitsToFloat32(gotH); hf == hf || gotH>>15 != v.F16[i]>>15 {
				t.Errorf("float16(%#08x NaN) = %#04x, want a NaN like %#04x", b, gotH, v.F16[i])
			}
			continue
		}
		if gotB != v.BF16[i] {
			t.Errorf("bfloat16(%g = %#08x) = %#04x, ml_dtypes %#04x", x, b, gotB, v.BF16[i])
		}
		if gotH != v.F16[i] {
			t.Errorf("float16(%g = %#08x) = %#04x, numpy %#04x", x, b, gotH, v.F16[i])
		}
	}
}

// TestCastPrecisionRoundTrip: every bfloat16 and float16 bit pattern
// survives float32 and back; rounding is idempotent.
func TestCastPrecisionRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		b := ops.BFloat16BitsToFloat32(uint16(h))
		if b == b {
			if got := ops.Float32ToBFloat16Bits(b); got != uint16(h) {
				t.Fatalf("bfloat16 %#04x -> %g -> %#04x", h, b, got)
			}
		} else if r := ops.RoundBFloat16(b); r == r {
			t.Fatalf("bfloat16 NaN %#04x rounds to %g", h, r)
		}
		f := ops.Float16BitsToFloat32(uint16(h))
		if f == f {
			if got := ops.Float32ToFloat16Bits(f); got != uint16(h) {
				t.Fatalf("float16 %#04x -> %g -> %#04x", h, f, got)
			}
			if float64(f) != float64(f) || (uint16(h)&0x7c00 != 0x7c00 && math.Abs(float64(f)) > 65504) {
				t.Fatalf("float16 %#04x -> %g out of range", h, f)
			}
		} else if r := ops.RoundFloat16(f); r == r {
			t.Fatalf("float16 NaN %#04x rounds to %g", h, r)
		}
	}
	// Independent check of float16 rounding: nearest by exhaustive search
	// over a neighbourhood, in float64.
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		x := float32(r.NormFloat64() * math.Pow(10, r.Float64()*8-6))
		got := float64(ops.RoundFloat16(x))
		ulp := math.Max(math.Pow(2, math.Floor(math.Log2(math.Abs(float64(x))))-10), math.Pow(2, -24))
		if d := math.Abs(got - float64(x)); d > ulp/2 {
			t.Fatalf("RoundFloat16(%g) = %g, off by %g > half ulp %g", x, got, d, ulp/2)
		}
		gb := float64(ops.RoundBFloat16(x))
		ulpb := math.Pow(2, math.Floor(math.Log2(math.Abs(float64(x))))-7)
		if d := math.Abs(gb - float64(x)); d > ulpb/2 {
			t.Fatalf("RoundBFloat16(%g) = %g, off by %g > half ulp %g", x, gb, d, ulpb/2)
		}
	}
	if got := ops.RoundFloat16(65520); !math.IsInf(float64(got), 1) {
		t.Errorf("RoundFloat16(65520) = %g, want +inf", got)
	}
	if got := ops.RoundFloat16(65519); got != 65504 {
		t.Errorf("RoundFloat16(65519) = %g, want 65504", got)
	}
}

// TestCastPrecisionOps runs the ops in a trace: the forward rounds as the
// scalar helpers do; the gradient of sum(R·cast(x)) is cast(R), and equals
// finite differences taken with a step much larger than the rounding.
func TestCastPrecisionOps(t *testing.T) {
	for _, c := range []struct {
		name  string
		op    func(ops.Tensor) ops.Tensor
		round func(float32) float32
	}{
		{"CastToBFloat16", ops.CastToBFloat16, ops.RoundBFloat16},
		{"CastToFloat16", ops.CastToFloat16, ops.RoundFloat16},
	} {
		r := rand.New(rand.NewPCG(5, 6))
		const n = 40
		x := make([]float32, n)
		w := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
			w[i] = float32(r.NormFloat64())
		}
		v := ops.NewVariable("x", ops.Shape{4, 10}, x, true)
		tr := ops.NewTrace(true, 0, 1)
		y := c.op(tr.Read(v))
		loss := ops.Sum(ops.Mul(y, tr.Constant(ops.Shape{4, 10}, w)), false)
		g, err := ops.Gradients(loss, []*ops.Variable{v})
		if err != nil {
			t.Fatal(err)
		}
		p, err := engine.Compile(tr, []ops.Tensor{y, g[0], loss})
		if err != nil {
			t.Fatal(err)
		}
		run := func() []ops.Value {
			vals, err := p.Run(engine.Single{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return vals
		}
		vals := run()
		for i := range x {
			if vals[0].Data[i] != c.round(x[i]) {
				t.Errorf("%s: y[%d] = %g, want %g", c.name, i, vals[0].Data[i], c.round(x[i]))
			}
			if vals[1].Data[i] != c.round(w[i]) {
				t.Errorf("%s: dx[%d] = %g, want cast(dy) %g", c.name, i, vals[1].Data[i], c.round(w[i]))
			}
		}
		grad := append([]float32(nil), vals[1].Data...)
		const h = 0.125
		data := v.Data(0)
		for i := range data {
			orig := data[i]
			data[i] = orig + h
			lp := float64(run()[2].Data[0])
			data[i] = orig - h
			lm := float64(run()[2].Data[0])
			data[i] = orig
			num := (lp - lm) / (2 * h)
			if math.Abs(num-float64(grad[i])) > 0.05*math.Max(1, math.Abs(num)) {
				t.Errorf("%s: d/dx[%d] = %g, finite difference %g", c.name, i, grad[i], num)
			}
		}
	}
}

func TestCastToComputeDType(t *testing.T) {
	tr := ops.NewTrace(false, 0, 0)
	x := tr.Input("x", ops.Shape{2})
	for _, d := range []string{"", "float32", "float64"} {
		if y := ops.CastToComputeDType(x, d); y != x {
			t.Errorf("CastToComputeDType(%q) made a new tensor", d)
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("CastToComputeDType(int8) did not fail")
			} else if _, ok := r.(*ops.Error); !ok {
				t.Errorf("CastToComputeDType(int8) panicked with %T", r)
			}
		}()
		ops.CastToComputeDType(x, "int8")
	}()
}

func BenchmarkRoundBFloat16(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i) * 1.37
	}
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		for i, v := range x {
			x[i] = ops.RoundBFloat16(v + 1)
		}
	}
}

// TestCastPrecisionIdempotent: casting a cast's output again adds no op.
func TestCastPrecisionIdempotent(t *testing.T) {
	tr := ops.NewTrace(false, 0, 0)
	x := tr.Input("x", ops.Shape{3})
	for _, f := range []func(ops.Tensor) ops.Tensor{ops.CastToBFloat16, ops.CastToFloat16} {
		y := f(x)
		if y == x {
			t.Fatal("the first cast returned its input")
		}
		if z := f(y); z != y {
			t.Error("a second cast of the same kind made a new op")
		}
	}
	if z := ops.CastToFloat16(ops.CastToBFloat16(x)); ops.CastToBFloat16(z) == z {
		t.Error("a bfloat16 cast of a float16 cast was skipped")
	}
}

// TestRoundBFloat16Slice: the op's kernel equals RoundBFloat16 on every
// bit pattern class (checked on the vectors' and random patterns).
func TestRoundBFloat16Slice(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	x := make([]float32, 1<<16)
	for i := range x {
		x[i] = math.Float32frombits(r.Uint32())
	}
	x[0], x[1] = float32(math.Inf(1)), float32(math.NaN())
	tr := ops.NewTrace(false, 0, 0)
	in := tr.Input("x", ops.Shape{len(x)})
	p, err := engine.Compile(tr, []ops.Tensor{ops.CastToBFloat16(in)})
	if err != nil {
		t.Fatal(err)
	}
	vals, err := p.Run(engine.Single{}, []ops.Value{{Shape: ops.Shape{len(x)}, Data: x}})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		want := ops.RoundBFloat16(v)
		if math.Float32bits(vals[0].Data[i]) != math.Float32bits(want) {
			t.Fatalf("CastToBFloat16(%#08x) = %#08x, RoundBFloat16 %#08x", math.Float32bits(v), math.Float32bits(vals[0].Data[i]), math.Float32bits(want))
		}
	}
}

// TestCastExactBFloat16 casts values that are bfloat16 already (a ReLU,
// a Reshape and a max pooling of a cast): the cast is a view, no step
// runs for it, and its gradient still rounds dy as a cast's does. A cast
// of a sum of casts (not exact) stays a cast.
func TestCastExactBFloat16(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 64
	x := make([]float32, n)
	w := make([]float32, n/4)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for i := range w {
		w[i] = float32(r.NormFloat64())
	}
	v := ops.NewVariable("x", ops.Shape{1, 8, 8, 1}, x, true)
	tr := ops.NewTrace(true, 0, 1)
	c := ops.CastToBFloat16(tr.Read(v))
	pooled := ops.MaxPool2D(ops.Relu(c), ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
	y := ops.CastToBFloat16(ops.Reshape(pooled, ops.Shape{n / 4}))
	if k := y.Node().Op().(*ops.Op).Kind(); k != "CastToBFloat16Exact" {
		t.Fatalf("cast of a pooled ReLU of a cast is a %s op", k)
	}
	if s := ops.CastToBFloat16(ops.Add(c, c)); s.Node().Op().(*ops.Op).Kind() != "CastToBFloat16" {
		t.Error("the cast of a sum was taken for exact")
	}
	loss := ops.Sum(ops.Mul(y, tr.Constant(ops.Shape{n / 4}, w)), false)
	g, err := ops.Gradients(loss, []*ops.Variable{v})
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{loss, g[0]})
	if err != nil {
		t.Fatal(err)
	}
	// (The gradient, a cast of an exact ReluGrad, is an output: a copy.)
	pl := p.Plan()
	for _, st := range pl.Steps {
		if st.Kind == "CastToBFloat16Exact" && !slices.Contains(pl.Outputs, st.Out) {
			t.Error("the exact cast runs as a step instead of a view")
		}
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The reference: each pooled window's maximum of the rounded ReLU gets
	// the rounded weight, the others zero.
	want := make([]float32, n)
	var loss64 float64
	for oy := 0; oy < 4; oy++ {
		for ox := 0; ox < 4; ox++ {
			best, bi := float32(math.Inf(-1)), -1
			for ky := 0; ky < 2; ky++ {
				for kx := 0; kx < 2; kx++ {
					i := (2*oy+ky)*8 + 2*ox + kx
					if r := max(ops.RoundBFloat16(x[i]), 0); r > best {
						best, bi = r, i
					}
				}
			}
			if best > 0 {
				want[bi] = ops.RoundBFloat16(w[oy*4+ox])
			}
			loss64 += float64(best) * float64(w[oy*4+ox])
		}
	}
	if d := math.Abs(float64(vals[0].Data[0]) - loss64); d > 1e-5*math.Max(1, math.Abs(loss64)) {
		t.Errorf("loss %g, want %g", vals[0].Data[0], loss64)
	}
	for i, got := range vals[1].Data {
		if got != want[i] {
			t.Errorf("dx[%d] = %g, want %g", i, got, want[i])
		}
	}
}
