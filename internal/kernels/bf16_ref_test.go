package kernels

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// bf16Vectors are the reference values of tools/keras_reference/bf16_vectors.py
// (numpy and ml_dtypes).
type bf16Vectors struct {
	F32Bits  []uint32 `json:"f32_bits"`
	BF16Bits []uint16 `json:"bf16_bits"`
	F16Bits  []uint16 `json:"f16_bits"`
	Gemm     []struct {
		M, N, K int
		ABits   []uint32 `json:"a_bits"`
		BBits   []uint32 `json:"b_bits"`
		C       []float64
	}
}

func loadBF16Vectors(t *testing.T) *bf16Vectors {
	t.Helper()
	data, err := os.ReadFile("testdata/bf16_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v bf16Vectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("testdata/bf16_vectors.json: %v", err)
	}
	if len(v.F32Bits) == 0 || len(v.BF16Bits) != len(v.F32Bits) || len(v.F16Bits) != len(v.F32Bits) || len(v.Gemm) == 0 {
		t.Fatalf("testdata/bf16_vectors.json: %d inputs, %d bf16, %d f16, %d gemms", len(v.F32Bits), len(v.BF16Bits), len(v.F16Bits), len(v.Gemm))
	}
	return &v
}

// sameHalf compares two 16-bit results; NaNs only by NaN-ness and sign
// (ml_dtypes returns a canonical NaN, numpy may keep a signalling one).
func sameHalf(got, want uint16, expMask uint16) bool {
	isNaN := func(h uint16) bool { return h&expMask == expMask && h&^(expMask|0x8000) != 0 }
	if isNaN(want) {
		return isNaN(got) && got&0x8000 == want&0x8000
	}
	return got == want
}

func TestConversionsMatchMLDtypes(t *testing.T) {
	v := loadBF16Vectors(t)
	src := make([]float32, len(v.F32Bits))
	for i, u := range v.F32Bits {
		src[i] = math.Float32frombits(u)
	}
	bf := make([]uint16, len(src))
	hf := make([]uint16, len(src))
	ConvertFloat32ToBF16(bf, src)
	ConvertFloat32ToF16(hf, src)
	for i, u := range v.F32Bits {
		if got := BF16FromFloat32(src[i]); !sameHalf(got, v.BF16Bits[i], 0x7f80) || !sameHalf(bf[i], v.BF16Bits[i], 0x7f80) {
			t.Errorf("bfloat16(%#08x): scalar %#04x, vector %#04x, ml_dtypes %#04x", u, got, bf[i], v.BF16Bits[i])
		}
		if got := F16FromFloat32(src[i]); !sameHalf(got, v.F16Bits[i], 0x7c00) || !sameHalf(hf[i], v.F16Bits[i], 0x7c00) {
			t.Errorf("float16(%#08x): scalar %#04x, vector %#04x, numpy %#04x", u, got, hf[i], v.F16Bits[i])
		}
	}
}

func TestSgemmBF16MatchesMLDtypes(t *testing.T) {
	v := loadBF16Vectors(t)
	for _, g := range v.Gemm {
		a := make([]float32, len(g.ABits))
		b := make([]float32, len(g.BBits))
		var amax, bmax float64
		for i, u := range g.ABits {
			a[i] = math.Float32frombits(u)
			amax = max(amax, math.Abs(float64(a[i])))
		}
		for i, u := range g.BBits {
			b[i] = math.Float32frombits(u)
			bmax = max(bmax, math.Abs(float64(b[i])))
		}
		for _, kern := range bf16Kernels() {
			c := make([]float32, g.M*g.N)
			sgemmBF16With(kern, 1, false, false, g.M, g.N, g.K, 1, a, g.K, b, g.N, 0, c, g.N)
			tol := float64(g.K+2) * 0x1p-24 * float64(g.K) * amax * bmax * 1.01
			for i, want := range g.C {
				if d := math.Abs(float64(c[i]) - want); d > tol {
					t.Fatalf("%s %dx%dx%d: C[%d] = %v, ml_dtypes reference %v (|diff| %g > %g)", kern.name, g.M, g.N, g.K, i, c[i], want, d, tol)
				}
			}
		}
	}
}
