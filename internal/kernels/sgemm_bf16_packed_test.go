package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// packPanelsForTest packs a row-major k x n B (ld n) the way a caller of
// SgemmBF16PackedB does, pair row by pair row with InterleaveBF16Panels,
// leaving garbage in the padding columns of the last panel.
func packPanelsForTest(t *testing.T, b []float32, k, n int) []uint32 {
	kp, ok := BF16PackedKPairs(k)
	if !ok {
		t.Skip("no hardware bfloat16 kernel")
	}
	const w = BF16PanelWidth
	np := ceilDiv(n, w)
	bp := make([]uint32, np*w*kp)
	for i := range bp {
		bp[i] = 0x7fc07fc0 // NaN pairs: reach no output if the layout is right
	}
	for q := 0; q < kp; q++ {
		lo := make([]float32, np*w)
		var hi []float32
		if 2*q < k {
			copy(lo, b[2*q*n:][:n])
		}
		if 2*q+1 < k {
			hi = make([]float32, np*w)
			copy(hi, b[(2*q+1)*n:][:n])
		}
		InterleaveBF16Panels(bp[q*w:], w*kp, lo, hi)
		if np*w > n { // garbage past n
			for j := n; j < np*w; j++ {
				bp[(j/w)*w*kp+q*w+j%w] = 0x7fc07fc0
			}
		}
	}
	return bp
}

// TestSgemmBF16PackedBEqualsSgemmBF16: within one k block (k up to the
// kernel's block depth) the packed entry point computes SgemmBF16's
// sums in SgemmBF16's order, so the results are bitwise equal; deeper
// (and where SgemmBF16 swaps the problem or, below bf16AMXMinK, runs
// Sgemm) they agree within float32
// summation error (checked against float64).
func TestSgemmBF16PackedBEqualsSgemmBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	for _, s := range []struct{ m, n, k int }{{64, 576, 512}, {64, 576, 513}, {33, 40, 95}, {128, 64, 1000}, {7, 32, 3}, {40, 96, 3000}} {
		for _, transA := range []bool{true, false} {
			for _, beta := range []float32{0, 1} {
				for _, serial := range []bool{true, false} {
					lda := s.k
					if transA {
						lda = s.m
					}
					a, b := rnd(s.m*s.k), rnd(s.k*s.n)
					c0 := rnd(s.m * s.n)
					want, got := slices.Clone(c0), slices.Clone(c0)
					SgemmBF16(transA, false, s.m, s.n, s.k, 1, a, lda, b, s.n, beta, want, s.n)
					SgemmBF16PackedB(serial, transA, s.m, s.n, s.k, a, lda, packPanelsForTest(t, b, s.k, s.n), beta, got, s.n)
					// Deeper than a block, or where SgemmBF16 swaps the
					// problem (transposed A, n < m), the orders differ.
					deep := s.k > bf16BlockKCOf(activeBF16) || activeBF16.amx && (transA && s.n < s.m || s.k < bf16AMXMinK)
					for i := range got {
						if !deep {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%+v transA=%v beta=%v serial=%v: C[%d] = %v, SgemmBF16 %v", s, transA, beta, serial, i, got[i], want[i])
							}
							continue
						}
						ii, jj := i/s.n, i%s.n
						var ref, mag float64
						for p := 0; p < s.k; p++ {
							ai := ii*lda + p
							if transA {
								ai = p*lda + ii
							}
							av := a[ai]
							x := bf16Value(av) * bf16Value(b[p*s.n+jj])
							ref, mag = ref+x, mag+math.Abs(x)
						}
						if beta != 0 {
							ref += float64(c0[i])
							mag += math.Abs(float64(c0[i]))
						}
						if d := math.Abs(float64(got[i]) - ref); !(d <= float64(s.k+3)*0x1p-24*mag) {
							t.Fatalf("%+v transA=%v beta=%v: C[%d] = %v, float64 %v", s, transA, beta, i, got[i], ref)
						}
					}
				}
			}
		}
	}
}

// bf16BlockKCOf is the k depth of one block of SgemmBF16 on kern.
func bf16BlockKCOf(kern *bf16KernelImpl) int {
	if kern.kc > 0 {
		return kern.kc
	}
	return bf16BlockKC
}

// TestInterleaveBF16PanelsMatchesGo: the assembly and the Go twin agree
// bit for bit on special values, and hi == nil pairs with zeros.
func TestInterleaveBF16PanelsMatchesGo(t *testing.T) {
	edge := edgeFloat32Bits()
	const w, panels, stride = BF16PanelWidth, 3, 80
	lo, hi := make([]float32, w*panels), make([]float32, w*panels)
	for i := range lo {
		lo[i] = math.Float32frombits(edge[i%len(edge)])
		hi[i] = math.Float32frombits(edge[(7*i+3)%len(edge)])
	}
	want := make([]uint32, (panels-1)*stride+w)
	interleavePanelsGeneric(want, stride, lo, hi)
	got := make([]uint32, len(want))
	InterleaveBF16Panels(got, stride, lo, hi)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("word %d: %#x, Go twin %#x", i, got[i], want[i])
		}
	}
	for c := range lo {
		if p := want[c/w*stride+c%w]; uint16(p) != bf16RoundFTZ(math.Float32bits(lo[c])) || uint16(p>>16) != bf16RoundFTZ(math.Float32bits(hi[c])) {
			t.Fatalf("column %d: pair %#x of %v, %v", c, p, lo[c], hi[c])
		}
	}
	InterleaveBF16Panels(got, stride, lo, nil)
	for c := range lo {
		if p := got[c/w*stride+c%w]; p>>16 != 0 || uint16(p) != bf16RoundFTZ(math.Float32bits(lo[c])) {
			t.Fatalf("hi nil, column %d: pair %#x", c, p)
		}
	}
}

// TestSgemmBF16PackedABEqualsSgemmBF16: with both operands packed by the
// caller (A as rows of pairs, rows past m garbage), the AMX kernel's
// sums are SgemmBF16's, bit for bit, within one k block.
func TestSgemmBF16PackedABEqualsSgemmBF16(t *testing.T) {
	if !BF16PackedA() {
		t.Skip("no AMX kernel")
	}
	r := rand.New(rand.NewPCG(7, 8))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	for _, s := range []struct{ m, n, k int }{{512, 64, 576}, {100, 40, 64}, {33, 96, 1000}, {1, 32, 32}} {
		for _, beta := range []float32{0, 1} {
			for _, serial := range []bool{true, false} {
				a, b, c0 := rnd(s.m*s.k), rnd(s.k*s.n), rnd(s.m*s.n)
				kp, _ := BF16PackedKPairs(s.k)
				lda := kp + 3
				ap := make([]uint32, ceilDiv(s.m, 32)*32*lda)
				for i := range ap {
					ap[i] = 0x7fc07fc0 // garbage past m and between rows
				}
				for i := 0; i < s.m; i++ {
					row := ap[i*lda : i*lda+kp]
					clear(row)
					ConvertBF16Pairs(row, a[i*s.k:(i+1)*s.k])
				}
				want, got := slices.Clone(c0), slices.Clone(c0)
				SgemmBF16(false, false, s.m, s.n, s.k, 1, a, s.k, b, s.n, beta, want, s.n)
				SgemmBF16PackedAB(serial, s.m, s.n, s.k, ap, lda, packPanelsForTest(t, b, s.k, s.n), beta, got, s.n)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%+v beta=%v serial=%v: C[%d] = %v, SgemmBF16 %v", s, beta, serial, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestConvertBF16RunsMatchesPairs: the run-wise conversion (assembly for
// runs of 32k values) equals ConvertBF16Pairs run by run, special values
// included.
func TestConvertBF16RunsMatchesPairs(t *testing.T) {
	edge := edgeFloat32Bits()
	for _, run := range []int{64, 96, 6} {
		const runs, stride = 3, 200
		src := make([]float32, (runs-1)*stride+run)
		for i := range src {
			src[i] = math.Float32frombits(edge[(5*i+1)%len(edge)])
		}
		got := make([]uint32, runs*run/2+1)
		want := make([]uint32, len(got))
		got[len(got)-1], want[len(want)-1] = 7, 7
		ConvertBF16Runs(got, src, runs, run, stride)
		for r := 0; r < runs; r++ {
			cvtPairsGeneric(want[r*run/2:], src[r*stride:][:run])
		}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: %#x, pair by pair %#x", run, got, want)
		}
	}
}

// TestPackTransRowsPaths: the transposing packing of a transposed A
// (transposed in float32 by blocks, then converted) equals the
// word-by-word one (without assembly), for contiguous and strided
// blocks, special values included.
func TestPackTransRowsPaths(t *testing.T) {
	if !useBF16Asm {
		t.Skip("no AVX512_BF16")
	}
	edge := edgeFloat32Bits()
	for _, c := range []struct{ ld, p0, i0, kc, mc int }{{64, 0, 0, 605, 64}, {100, 3, 5, 97, 40}, {32, 1, 0, 64, 32}} {
		s := make([]float32, (c.p0+c.kc)*c.ld)
		for i := range s {
			s[i] = math.Float32frombits(edge[(7*i+2)%len(edge)])
		}
		kp := ceilDiv(ceilDiv(c.kc, 2), 16) * 16
		rows := ceilDiv(c.mc, 32) * 32
		fast, slow := make([]uint32, rows*kp), make([]uint32, rows*kp)
		for i := range fast {
			fast[i], slow[i] = 1, 1
		}
		packTransRows(new(bf16Workspace), fast, s, c.ld, c.p0, c.i0, c.kc, c.mc, kp)
		useBF16Asm = false
		packTransRows(new(bf16Workspace), slow, s, c.ld, c.p0, c.i0, c.kc, c.mc, kp)
		useBF16Asm = true
		if !slices.Equal(fast, slow) {
			t.Fatalf("%+v: the two packings differ", c)
		}
	}
}
