package kernels

import (
	"runtime"
	"unsafe"
)

// Portable pure-Go micro-kernel: the twin of the assembly kernels, used by
// -tags noasm builds, on non-amd64 targets and on CPUs without AVX2+FMA.

const genericMR, genericNR = 4, 4

// The Go kernel is slow enough that packing A is always worth it.
var kernelGeneric = &kernelImpl{name: "go-4x4", mr: genericMR, nr: genericNR, fn: sgemmKernelGeneric, packA: true}

// sgemmKernelGeneric computes one full 4x4 tile of C from a 4 x k sliver of
// A (element (i,p) at a[i*rsa+p*csa]) and a k x 4 sliver of B (b[p*ldb+j]):
// C = alpha*A*B + beta*C (C is not read when beta == 0).
func sgemmKernelGeneric(k int, a *float32, rsa, csa int, b *float32, ldb int, c *float32, ldc int, alpha, beta float32) {
	var acc [16]float32
	if rsa == 1 && csa == genericMR && ldb == genericNR {
		if onePass4x4 {
			acc = dot4x4PackedOnePass(unsafe.Slice(a, k*genericMR), unsafe.Slice(b, k*genericNR))
		} else {
			acc = dot4x4Packed(unsafe.Slice(a, k*genericMR), unsafe.Slice(b, k*genericNR))
		}
	} else {
		acc = dot4x4Strided(k, unsafe.Slice(a, 3*rsa+(k-1)*csa+1), rsa, csa, unsafe.Slice(b, (k-1)*ldb+4), ldb)
	}
	cs := unsafe.Slice(c, 3*ldc+4)
	for i := 0; i < 4; i++ {
		row := cs[i*ldc : i*ldc+4]
		v := acc[i*4 : i*4+4]
		if beta == 0 {
			row[0], row[1], row[2], row[3] = alpha*v[0], alpha*v[1], alpha*v[2], alpha*v[3]
			continue
		}
		row[0] = alpha*v[0] + beta*row[0]
		row[1] = alpha*v[1] + beta*row[1]
		row[2] = alpha*v[2] + beta*row[2]
		row[3] = alpha*v[3] + beta*row[3]
	}
}

// dot4x4Packed accumulates a packed 4 x k sliver of A (a[p*4+i]) times a
// packed k x 4 sliver of B, row-major 4x4 result. It works on two rows at a
// time so that the 8 accumulators stay in registers.
func dot4x4Packed(as, bs []float32) (acc [16]float32) {
	for h := 0; h < 4; h += 2 {
		var c00, c01, c02, c03 float32
		var c10, c11, c12, c13 float32
		a, b := as[h:], bs
		for len(a) >= 2 && len(b) >= 4 {
			b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
			a0, a1 := a[0], a[1]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			c03 += a0 * b3
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
			c13 += a1 * b3
			if len(a) < 4 {
				break
			}
			a, b = a[4:], b[4:]
		}
		acc[h*4+0], acc[h*4+1], acc[h*4+2], acc[h*4+3] = c00, c01, c02, c03
		acc[h*4+4], acc[h*4+5], acc[h*4+6], acc[h*4+7] = c10, c11, c12, c13
	}
	return acc
}

// onePass4x4 selects dot4x4PackedOnePass on architectures with 32
// floating-point registers, where go build -gcflags=-S shows its 16
// accumulators, 4 B and 1 A values in registers with no spill in the loop
// (arm64, riscv64); on amd64 (16 XMM registers) and 386 it spills far more
// than dot4x4Packed's two passes of 8 accumulators. The sums are the same
// in the same order either way, so the results are bitwise equal
// (TestDot4x4OnePassEqualsTwoPass).
const onePass4x4 = runtime.GOARCH == "arm64" || runtime.GOARCH == "riscv64" || runtime.GOARCH == "loong64" ||
	runtime.GOARCH == "ppc64" || runtime.GOARCH == "ppc64le" || runtime.GOARCH == "mips64" || runtime.GOARCH == "mips64le"

// dot4x4PackedOnePass is dot4x4Packed with all 16 accumulators live: one
// pass over A and B (half the loads).
func dot4x4PackedOnePass(as, bs []float32) [16]float32 {
	var c00, c01, c02, c03 float32
	var c10, c11, c12, c13 float32
	var c20, c21, c22, c23 float32
	var c30, c31, c32, c33 float32
	for len(as) >= 4 && len(bs) >= 4 {
		a, b := as[:4], bs[:4]
		b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
		a0 := a[0]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		a1 := a[1]
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a2 := a[2]
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		a3 := a[3]
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
		as, bs = as[4:], bs[4:]
	}
	return [16]float32{c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33}
}

// dot4x4Strided is dot4x4Packed for slivers with arbitrary strides.
func dot4x4Strided(k int, as []float32, rsa, csa int, bs []float32, ldb int) [16]float32 {
	var c00, c01, c02, c03 float32
	var c10, c11, c12, c13 float32
	var c20, c21, c22, c23 float32
	var c30, c31, c32, c33 float32
	r1, r2, r3 := rsa, 2*rsa, 3*rsa
	for p := 0; p < k; p++ {
		o := p * csa
		bp := bs[p*ldb : p*ldb+4]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		a0 := as[o]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		a1 := as[o+r1]
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a2 := as[o+r2]
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		a3 := as[o+r3]
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	return [16]float32{c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33}
}

func saxpyGeneric(alpha float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

func sdotGeneric(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}
