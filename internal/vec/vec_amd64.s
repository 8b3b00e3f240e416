//go:build !noasm

#include "textflag.h"

// AVX-512 kernels over n elements, n a multiple of 16 (8 for the float64
// accumulations); the Go wrappers in vec.go handle the tails. See the Go
// twins in vec_generic.go for the reference loops.

// func reluAsm(dst, x *float32, n int)
TEXT ·reluAsm(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VPXORD Z0, Z0, Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ reludone
reluloop:
	VMAXPS (SI)(AX*4), Z0, Z1 // x second: MAXPS returns it when either is NaN
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT reluloop
reludone:
	VZEROUPPER
	RET

// func reluGradAsm(dst, y, dy *float32, n int)
TEXT ·reluGradAsm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ dy+16(FP), DX
	MOVQ n+24(FP), CX
	VPXORD Z0, Z0, Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ rgdone
rgloop:
	VMOVUPS (SI)(AX*4), Z1
	VCMPPS $0x0e, Z0, Z1, K1
	VMOVUPS.Z (DX)(AX*4), K1, Z2
	VMOVUPS Z2, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT rgloop
rgdone:
	VZEROUPPER
	RET

// func addAsm(dst, a, b *float32, n int)
TEXT ·addAsm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ adddone
addloop:
	VMOVUPS (SI)(AX*4), Z1
	VADDPS (DX)(AX*4), Z1, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT addloop
adddone:
	VZEROUPPER
	RET

// func addReluAsm(dst, a, b *float32, n int)
TEXT ·addReluAsm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VPXORD Z0, Z0, Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ ardone
arloop:
	VMOVUPS (SI)(AX*4), Z1
	VADDPS (DX)(AX*4), Z1, Z1
	VMAXPS Z1, Z0, Z1 // the sum second: MAXPS returns it when either is NaN
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT arloop
ardone:
	VZEROUPPER
	RET

// func subAsm(dst, a, b *float32, n int)
TEXT ·subAsm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ subdone
subloop:
	VMOVUPS (SI)(AX*4), Z1
	VSUBPS (DX)(AX*4), Z1, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT subloop
subdone:
	VZEROUPPER
	RET

// func mulAsm(dst, a, b *float32, n int)
TEXT ·mulAsm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ muldone
mulloop:
	VMOVUPS (SI)(AX*4), Z1
	VMULPS (DX)(AX*4), Z1, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT mulloop
muldone:
	VZEROUPPER
	RET

// func maxAsm(dst, a, b *float32, n int)
TEXT ·maxAsm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ maxdone
maxloop:
	VMOVUPS (SI)(AX*4), Z1
	VMAXPS (DX)(AX*4), Z1, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT maxloop
maxdone:
	VZEROUPPER
	RET

// func scaleAsm(dst, x *float32, n int, c float32)
TEXT ·scaleAsm(SB), NOSPLIT, $0-28
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS c+24(FP), Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ scdone
scloop:
	VMULPS (SI)(AX*4), Z0, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT scloop
scdone:
	VZEROUPPER
	RET

// func addScalarAsm(dst, x *float32, n int, c float32)
TEXT ·addScalarAsm(SB), NOSPLIT, $0-28
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS c+24(FP), Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ asdone
asloop:
	VADDPS (SI)(AX*4), Z0, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT asloop
asdone:
	VZEROUPPER
	RET

// func axpyAsm(dst, x *float32, n int, c float32)
TEXT ·axpyAsm(SB), NOSPLIT, $0-28
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS c+24(FP), Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ axdone
axloop:
	VMOVUPS (DI)(AX*4), Z1
	VFMADD231PS (SI)(AX*4), Z0, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT axloop
axdone:
	VZEROUPPER
	RET

// func squareAsm(dst, x *float32, n int)
TEXT ·squareAsm(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ sqdone
sqloop:
	VMOVUPS (SI)(AX*4), Z1
	VMULPS Z1, Z1, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT sqloop
sqdone:
	VZEROUPPER
	RET

// func scaleShiftAsm(dst, x, s, t *float32, n int)
TEXT ·scaleShiftAsm(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ t+24(FP), R8
	MOVQ n+32(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ ssdone
ssloop:
	VMOVUPS (SI)(AX*4), Z1
	VMOVUPS (R8)(AX*4), Z2
	VFMADD231PS (DX)(AX*4), Z1, Z2
	VMOVUPS Z2, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT ssloop
ssdone:
	VZEROUPPER
	RET

// func scaleShiftReluAsm(dst, x, s, t *float32, n int)
TEXT ·scaleShiftReluAsm(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ t+24(FP), R8
	MOVQ n+32(FP), CX
	VPXORD Z0, Z0, Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ ssrdone
ssrloop:
	VMOVUPS (SI)(AX*4), Z1
	VMOVUPS (R8)(AX*4), Z2
	VFMADD231PS (DX)(AX*4), Z1, Z2
	VMAXPS Z2, Z0, Z2 // the value second: MAXPS returns it when either is NaN
	VMOVUPS Z2, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT ssrloop
ssrdone:
	VZEROUPPER
	RET

// func dualAffineAsm(dst, a, p, b, q, r *float32, n int)
TEXT ·dualAffineAsm(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ p+16(FP), DX
	MOVQ b+24(FP), BX
	MOVQ q+32(FP), R8
	MOVQ r+40(FP), R9
	MOVQ n+48(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ dadone
daloop:
	VMOVUPS (R9)(AX*4), Z1
	VMOVUPS (SI)(AX*4), Z2
	VFMADD231PS (DX)(AX*4), Z2, Z1
	VMOVUPS (BX)(AX*4), Z3
	VFMADD231PS (R8)(AX*4), Z3, Z1
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT daloop
dadone:
	VZEROUPPER
	RET

// func accRowsAsm(acc *float64, x *float32, n int)
TEXT ·accRowsAsm(SB), NOSPLIT, $0-24
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ arwdone
arwloop:
	VCVTPS2PD (SI)(AX*4), Z1
	VADDPD (DI)(AX*8), Z1, Z1
	VMOVUPD Z1, (DI)(AX*8)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT arwloop
arwdone:
	VZEROUPPER
	RET

// func accRowsSqAsm(sum, sq *float64, x *float32, n int)
TEXT ·accRowsSqAsm(SB), NOSPLIT, $0-32
	MOVQ sum+0(FP), DI
	MOVQ sq+8(FP), DX
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ arsdone
arsloop:
	VCVTPS2PD (SI)(AX*4), Z1
	VADDPD (DI)(AX*8), Z1, Z2
	VMOVUPD Z2, (DI)(AX*8)
	VMOVUPD (DX)(AX*8), Z3
	VFMADD231PD Z1, Z1, Z3
	VMOVUPD Z3, (DX)(AX*8)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT arsloop
arsdone:
	VZEROUPPER
	RET

// func accCenteredAsm(acc0, acc1 *float64, x, dy, mean *float32, n int)
TEXT ·accCenteredAsm(SB), NOSPLIT, $0-48
	MOVQ acc0+0(FP), DI
	MOVQ acc1+8(FP), BX
	MOVQ x+16(FP), SI
	MOVQ dy+24(FP), DX
	MOVQ mean+32(FP), R8
	MOVQ n+40(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JEQ acdone
acloop:
	VMOVUPS (SI)(AX*4), Y1
	VSUBPS (R8)(AX*4), Y1, Y1
	VCVTPS2PD Y1, Z1
	VCVTPS2PD (DX)(AX*4), Z2
	VADDPD (DI)(AX*8), Z2, Z3
	VMOVUPD Z3, (DI)(AX*8)
	VMOVUPD (BX)(AX*8), Z4
	VFMADD231PD Z1, Z2, Z4
	VMOVUPD Z4, (BX)(AX*8)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT acloop
acdone:
	VZEROUPPER
	RET


// func adamAsm(w, grad, m, v *float32, n int, alpha, c1, c2, eps float32)
TEXT ·adamAsm(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), DX
	MOVQ v+24(FP), BX
	MOVQ n+32(FP), CX
	VBROADCASTSS alpha+40(FP), Z10
	VBROADCASTSS c1+44(FP), Z11
	VBROADCASTSS c2+48(FP), Z12
	VBROADCASTSS eps+52(FP), Z13
	XORQ AX, AX
	TESTQ CX, CX
	JEQ addone
adloop:
	VMOVUPS (SI)(AX*4), Z0          // x
	VMOVUPS (DX)(AX*4), Z1          // m
	VSUBPS Z1, Z0, Z2               // x - m
	VMULPS Z11, Z2, Z2              // (x - m) * c1
	VADDPS Z2, Z1, Z1               // m += ...
	VMOVUPS Z1, (DX)(AX*4)
	VMOVUPS (BX)(AX*4), Z3          // v
	VMULPS Z0, Z0, Z4               // x * x
	VSUBPS Z3, Z4, Z4               // x*x - v
	VMULPS Z12, Z4, Z4              // (x*x - v) * c2
	VADDPS Z4, Z3, Z3               // v += ...
	VMOVUPS Z3, (BX)(AX*4)
	VSQRTPS Z3, Z5                  // sqrt(v)
	VADDPS Z13, Z5, Z5              // + eps
	VMULPS Z10, Z1, Z6              // m * alpha
	VDIVPS Z5, Z6, Z6               // / (sqrt(v) + eps)
	VMOVUPS (DI)(AX*4), Z7
	VSUBPS Z6, Z7, Z7               // w -= ...
	VMOVUPS Z7, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT adloop
addone:
	VZEROUPPER
	RET

// func transpose8x8Asm(dst *float32, ldd int, src *float32, lds int)
// dst[j*ldd+i] = src[i*lds+j] for i, j < 8 (AVX unpack/shuffle/permute).
TEXT ·transpose8x8Asm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), CX
	SHLQ $2, DX
	SHLQ $2, CX
	VMOVUPS (SI), Y0
	ADDQ CX, SI
	VMOVUPS (SI), Y1
	ADDQ CX, SI
	VMOVUPS (SI), Y2
	ADDQ CX, SI
	VMOVUPS (SI), Y3
	ADDQ CX, SI
	VMOVUPS (SI), Y4
	ADDQ CX, SI
	VMOVUPS (SI), Y5
	ADDQ CX, SI
	VMOVUPS (SI), Y6
	ADDQ CX, SI
	VMOVUPS (SI), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, (DI)
	ADDQ DX, DI
	VMOVUPS Y9, (DI)
	ADDQ DX, DI
	VMOVUPS Y10, (DI)
	ADDQ DX, DI
	VMOVUPS Y11, (DI)
	ADDQ DX, DI
	VMOVUPS Y12, (DI)
	ADDQ DX, DI
	VMOVUPS Y13, (DI)
	ADDQ DX, DI
	VMOVUPS Y14, (DI)
	ADDQ DX, DI
	VMOVUPS Y15, (DI)
	VZEROUPPER
	RET

// func roundBF16Asm(dst, x *float32, n int)
// Integer round to nearest even on the bits (subnormals included); NaN
// lanes keep sign and upper payload with the quiet bit set.
TEXT ·roundBF16Asm(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $1, R9
	VPBROADCASTD R9, Z10 // 1
	MOVL $0x7fff, R9
	VPBROADCASTD R9, Z11 // 0x7fff
	MOVL $0xffff0000, R9
	VPBROADCASTD R9, Z12 // the upper half
	MOVL $0x00400000, R9
	VPBROADCASTD R9, Z15 // bfloat16's quiet bit
	XORQ AX, AX
	TESTQ CX, CX
	JEQ rbdone
rbloop:
	VMOVDQU32 (SI)(AX*4), Z1
	VPSRLD $16, Z1, Z2
	VPANDD Z10, Z2, Z2        // the kept part's lowest bit
	VPADDD Z11, Z1, Z3
	VPADDD Z2, Z3, Z3         // u + 0x7fff + lsb
	VFPCLASSPSZ $0x81, Z1, K1 // NaN lanes (quiet or signalling)
	VPORD Z15, Z1, K1, Z3     // there u | quiet bit
	VPANDD Z12, Z3, Z3
	VMOVDQU32 Z3, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT rbloop
rbdone:
	VZEROUPPER
	RET

// The kernels below are Add, AddRelu, ScaleShift, ScaleShiftRelu and
// DualAffine with their result rounded to bfloat16 in the register, as
// roundBF16Asm rounds: RNE_CONSTS loads its constants (Z10, Z11, Z12,
// Z15; R11 clobbered), RNE(z) rounds z in place (Z8, Z9 and K1
// clobbered).
#define RNE_CONSTS \
	MOVL $1, R11; VPBROADCASTD R11, Z10; \
	MOVL $0x7fff, R11; VPBROADCASTD R11, Z11; \
	MOVL $0xffff0000, R11; VPBROADCASTD R11, Z12; \
	MOVL $0x00400000, R11; VPBROADCASTD R11, Z15

#define RNE(z) \
	VPSRLD $16, z, Z8; VPANDD Z10, Z8, Z8; \
	VPADDD Z11, z, Z9; VPADDD Z8, Z9, Z9; \
	VFPCLASSPSZ $0x81, z, K1; VPORD Z15, z, K1, Z9; \
	VPANDD Z12, Z9, z

// func addRoundAsm(dst, a, b *float32, n int)
TEXT ·addRoundAsm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	RNE_CONSTS
	XORQ AX, AX
	TESTQ CX, CX
	JEQ arbdone
arbloop:
	VMOVUPS (SI)(AX*4), Z1
	VADDPS (DX)(AX*4), Z1, Z1
	RNE(Z1)
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT arbloop
arbdone:
	VZEROUPPER
	RET

// func addReluRoundAsm(dst, a, b *float32, n int)
TEXT ·addReluRoundAsm(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	RNE_CONSTS
	VPXORD Z0, Z0, Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ arrbdone
arrbloop:
	VMOVUPS (SI)(AX*4), Z1
	VADDPS (DX)(AX*4), Z1, Z1
	VMAXPS Z1, Z0, Z1
	RNE(Z1)
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT arrbloop
arrbdone:
	VZEROUPPER
	RET

// func scaleShiftRoundAsm(dst, x, s, t *float32, n int)
TEXT ·scaleShiftRoundAsm(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ t+24(FP), R8
	MOVQ n+32(FP), CX
	RNE_CONSTS
	XORQ AX, AX
	TESTQ CX, CX
	JEQ ssbdone
ssbloop:
	VMOVUPS (SI)(AX*4), Z1
	VMOVUPS (R8)(AX*4), Z2
	VFMADD231PS (DX)(AX*4), Z1, Z2
	RNE(Z2)
	VMOVUPS Z2, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT ssbloop
ssbdone:
	VZEROUPPER
	RET

// func scaleShiftReluRoundAsm(dst, x, s, t *float32, n int)
TEXT ·scaleShiftReluRoundAsm(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ t+24(FP), R8
	MOVQ n+32(FP), CX
	RNE_CONSTS
	VPXORD Z0, Z0, Z0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ ssrbdone
ssrbloop:
	VMOVUPS (SI)(AX*4), Z1
	VMOVUPS (R8)(AX*4), Z2
	VFMADD231PS (DX)(AX*4), Z1, Z2
	VMAXPS Z2, Z0, Z2
	RNE(Z2)
	VMOVUPS Z2, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT ssrbloop
ssrbdone:
	VZEROUPPER
	RET

// func dualAffineRoundAsm(dst, a, p, b, q, r *float32, n int)
TEXT ·dualAffineRoundAsm(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ p+16(FP), DX
	MOVQ b+24(FP), BX
	MOVQ q+32(FP), R8
	MOVQ r+40(FP), R9
	MOVQ n+48(FP), CX
	RNE_CONSTS
	XORQ AX, AX
	TESTQ CX, CX
	JEQ dabdone
dabloop:
	VMOVUPS (R9)(AX*4), Z1
	VMOVUPS (SI)(AX*4), Z2
	VFMADD231PS (DX)(AX*4), Z2, Z1
	VMOVUPS (BX)(AX*4), Z3
	VFMADD231PS (R8)(AX*4), Z3, Z1
	RNE(Z1)
	VMOVUPS Z1, (DI)(AX*4)
	ADDQ $16, AX
	CMPQ AX, CX
	JLT dabloop
dabdone:
	VZEROUPPER
	RET
