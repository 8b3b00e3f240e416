package vec

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// specialVals returns n float32 values mixing ordinary ones with NaNs
// (quiet and signalling, both signs), ±Inf, ±0, subnormals and values
// next to bfloat16 rounding ties.
func specialVals(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	specials := []uint32{0x7fc00000, 0xffc00001, 0x7f800001, 0xff812345, 0x7f800000, 0xff800000,
		0, 0x80000000, 0x00000001, 0x807fffff, 0x3f808000, 0x3f818000, 0x7f7fffff, 0x7f7f8000}
	for i := range x {
		switch i % 5 {
		case 0:
			x[i] = math.Float32frombits(specials[r.IntN(len(specials))])
		case 1:
			x[i] = math.Float32frombits(r.Uint32())
		default:
			x[i] = float32(r.NormFloat64())
		}
	}
	return x
}

// TestAsmMatchesGoTwinBitwise runs every elementwise kernel twice on the
// same data: on the whole slice (a multiple of 16 values: all in
// assembly) and one value at a time (length-1 slices: all in the Go tail
// loop), and requires the same bits. On arm64 the Go compiler fuses
// x*y + z into one FMADD, as the NEON kernels do with FMLA; amd64's
// AVX-512 kernels fuse where the GOAMD64=v1 Go loops do not, so they are
// held to the tolerance tests (TestElementwise) there instead. Which of
// two NaN operands an arithmetic result carries depends on the operand
// order the compiler picks (the kernels follow Go 1.26's); for those
// kernels any NaN matches a NaN. Relu, ReluGrad, Max and RoundBF16 select
// or round bits and must keep every NaN exactly.
func TestAsmMatchesGoTwinBitwise(t *testing.T) {
	if runtime.GOARCH != "arm64" || !useAsm {
		t.Skip("bitwise twins hold on arm64 (the Go loops fuse as the NEON kernels do)")
	}
	r := rand.New(rand.NewPCG(21, 22))
	const n = 16 * 37
	src := make([][]float32, 5)
	for i := range src {
		src[i] = specialVals(r, n)
	}
	one := func(s []float32, i int) []float32 { return s[i : i+1] }
	ks := []struct {
		name string
		run  func(dst []float32, s [][]float32)
	}{
		{"Relu", func(d []float32, s [][]float32) { Relu(d, s[0]) }},
		{"ReluGrad", func(d []float32, s [][]float32) { ReluGrad(d, s[0], s[1]) }},
		{"Add", func(d []float32, s [][]float32) { Add(d, s[0], s[1]) }},
		{"AddRelu", func(d []float32, s [][]float32) { AddRelu(d, s[0], s[1]) }},
		{"Sub", func(d []float32, s [][]float32) { Sub(d, s[0], s[1]) }},
		{"Mul", func(d []float32, s [][]float32) { Mul(d, s[0], s[1]) }},
		{"Max", func(d []float32, s [][]float32) { Max(d, s[0], s[1]) }},
		{"Scale", func(d []float32, s [][]float32) { Scale(d, s[0], -1.7) }},
		{"AddScalar", func(d []float32, s [][]float32) { AddScalar(d, s[0], 0.3) }},
		{"Axpy", func(d []float32, s [][]float32) { copy(d, s[1]); Axpy(d, s[0], 1.3) }},
		{"Square", func(d []float32, s [][]float32) { Square(d, s[0]) }},
		{"ScaleShift", func(d []float32, s [][]float32) { ScaleShift(d, s[0], s[1], s[2]) }},
		{"ScaleShiftRelu", func(d []float32, s [][]float32) { ScaleShiftRelu(d, s[0], s[1], s[2]) }},
		{"DualAffine", func(d []float32, s [][]float32) { DualAffine(d, s[0], s[1], s[2], s[3], s[4]) }},
		{"RoundBF16", func(d []float32, s [][]float32) { RoundBF16(d, s[0]) }},
		{"AddRoundBF16", func(d []float32, s [][]float32) { AddRoundBF16(d, s[0], s[1]) }},
		{"AddReluRoundBF16", func(d []float32, s [][]float32) { AddReluRoundBF16(d, s[0], s[1]) }},
		{"ScaleShiftRoundBF16", func(d []float32, s [][]float32) { ScaleShiftRoundBF16(d, s[0], s[1], s[2]) }},
		{"ScaleShiftReluRoundBF16", func(d []float32, s [][]float32) { ScaleShiftReluRoundBF16(d, s[0], s[1], s[2]) }},
		{"DualAffineRoundBF16", func(d []float32, s [][]float32) { DualAffineRoundBF16(d, s[0], s[1], s[2], s[3], s[4]) }},
	}
	exactNaN := map[string]bool{"Relu": true, "ReluGrad": true, "Max": true, "RoundBF16": true}
	for _, k := range ks {
		got := make([]float32, n)
		k.run(got, src)
		want := make([]float32, n)
		s1 := make([][]float32, len(src))
		for i := range want {
			for j := range src {
				s1[j] = one(src[j], i)
			}
			k.run(one(want, i), s1)
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				if got[i] != got[i] && want[i] != want[i] && !exactNaN[k.name] {
					continue
				}
				args := make([]uint32, len(src))
				for j := range src {
					args[j] = math.Float32bits(src[j][i])
				}
				t.Fatalf("%s [%d]: asm %#08x, Go %#08x (inputs %#08x)", k.name, i, math.Float32bits(got[i]), math.Float32bits(want[i]), args)
			}
		}
	}

	// Adam: whole slices against one value at a time (NaNs any NaN).
	{
		w, g, m, v := specialVals(r, n), specialVals(r, n), specialVals(r, n), specialVals(r, n)
		for i := range v {
			v[i] *= v[i]
		}
		w1, m1, v1 := append([]float32(nil), w...), append([]float32(nil), m...), append([]float32(nil), v...)
		const alpha, c1, c2, eps = 0.00123, 0.1, 0.001, 1e-7
		Adam(w, g, m, v, alpha, c1, c2, eps)
		for i := range w1 {
			Adam(w1[i:i+1], g[i:i+1], m1[i:i+1], v1[i:i+1], alpha, c1, c2, eps)
		}
		for i := range w {
			for _, p := range [][2]float32{{w[i], w1[i]}, {m[i], m1[i]}, {v[i], v1[i]}} {
				if math.Float32bits(p[0]) != math.Float32bits(p[1]) && !(p[0] != p[0] && p[1] != p[1]) {
					t.Fatalf("Adam [%d]: asm %v, Go %v (w, m, v)", i, []float32{w[i], m[i], v[i]}, []float32{w1[i], m1[i], v1[i]})
				}
			}
		}
	}

	// The float64 column accumulations, 8 columns per assembly step.
	const c = 8 * 5
	rows := n / c
	x, dy, mean := src[0][:rows*c], src[1][:rows*c], src[2][:c]
	for i := range x { // finite inputs: the sums' NaN payloads are not the point here
		if x[i] != x[i] || math.IsInf(float64(x[i]), 0) {
			x[i] = 1.5
		}
		if dy[i] != dy[i] || math.IsInf(float64(dy[i]), 0) {
			dy[i] = -0.5
		}
	}
	for i := range mean {
		if mean[i] != mean[i] || math.IsInf(float64(mean[i]), 0) {
			mean[i] = 0.25
		}
	}
	s, q, a0, a1, a := make([]float64, c), make([]float64, c), make([]float64, c), make([]float64, c), make([]float64, c)
	ws, wq, w0, w1, w := make([]float64, c), make([]float64, c), make([]float64, c), make([]float64, c), make([]float64, c)
	AccRowsSq(s, q, x)
	AccCentered(a0, a1, x, dy, mean)
	AccRows(a, x)
	for rr := 0; rr < rows; rr++ {
		for j := 0; j < c; j++ { // one column at a time: the Go loops
			o := rr*c + j
			AccRowsSq(ws[j:j+1], wq[j:j+1], x[o:o+1])
			AccCentered(w0[j:j+1], w1[j:j+1], x[o:o+1], dy[o:o+1], mean[j:j+1])
			AccRow(w[j:j+1], x[o:o+1])
		}
	}
	for j := 0; j < c; j++ {
		for _, p := range [][2]float64{{s[j], ws[j]}, {q[j], wq[j]}, {a0[j], w0[j]}, {a1[j], w1[j]}, {a[j], w[j]}} {
			if math.Float64bits(p[0]) != math.Float64bits(p[1]) {
				t.Fatalf("accumulation column %d: asm %v, Go %v", j, p[0], p[1])
			}
		}
	}
}
