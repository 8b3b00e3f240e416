//go:build !noasm

package vec

import "golang.org/x/sys/cpu"

var useAsm = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL

// The kernel families are gated separately (usePoolAsm etc.); on amd64
// they all follow useAsm.
var usePoolAsm, useAdamAsm, useTransposeAsm = useAsm, useAsm, useAsm

// The assembly kernels (vec_amd64.s) work on n elements, n a multiple of
// 16 (8 for the float64 accumulations); the wrappers in vec.go do the rest.

//go:noescape
func reluAsm(dst, x *float32, n int)

//go:noescape
func reluGradAsm(dst, y, dy *float32, n int)

//go:noescape
func addAsm(dst, a, b *float32, n int)

//go:noescape
func addReluAsm(dst, a, b *float32, n int)

//go:noescape
func subAsm(dst, a, b *float32, n int)

//go:noescape
func mulAsm(dst, a, b *float32, n int)

//go:noescape
func maxAsm(dst, a, b *float32, n int)

//go:noescape
func scaleAsm(dst, x *float32, n int, c float32)

//go:noescape
func addScalarAsm(dst, x *float32, n int, c float32)

//go:noescape
func axpyAsm(dst, x *float32, n int, c float32)

//go:noescape
func squareAsm(dst, x *float32, n int)

//go:noescape
func roundBF16Asm(dst, x *float32, n int)

//go:noescape
func addRoundAsm(dst, a, b *float32, n int)

//go:noescape
func addReluRoundAsm(dst, a, b *float32, n int)

//go:noescape
func scaleShiftRoundAsm(dst, x, s, t *float32, n int)

//go:noescape
func scaleShiftReluRoundAsm(dst, x, s, t *float32, n int)

//go:noescape
func dualAffineRoundAsm(dst, a, p, b, q, r *float32, n int)

//go:noescape
func scaleShiftAsm(dst, x, s, t *float32, n int)

//go:noescape
func scaleShiftReluAsm(dst, x, s, t *float32, n int)

//go:noescape
func dualAffineAsm(dst, a, p, b, q, r *float32, n int)

//go:noescape
func accRowsAsm(acc *float64, x *float32, n int)

//go:noescape
func accRowsSqAsm(sum, sq *float64, x *float32, n int)

//go:noescape
func accCenteredAsm(acc0, acc1 *float64, x, dy, mean *float32, n int)

//go:noescape
func adamAsm(w, grad, m, v *float32, n int, alpha, c1, c2, eps float32)

//go:noescape
func transpose8x8Asm(dst *float32, ldd int, src *float32, lds int)
