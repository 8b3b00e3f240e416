//go:build amd64 && !noasm

#include "textflag.h"

// The Go assembler has no AVX512_BF16 mnemonics, so those instructions are
// written as bytes (EVEX encodings, see sgemm_bf16_gen.go).

// func cpuidECX1() uint32
TEXT ·cpuidECX1(SB), NOSPLIT, $0-4
	MOVL $1, AX
	XORL CX, CX
	CPUID
	MOVL CX, ret+0(FP)
	RET

// func f32ToBF16AVX512(dst *uint16, src *float32, n int, ftz bool)
TEXT ·f32ToBF16AVX512(SB), NOSPLIT, $0-25
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVBLZX ftz+24(FP), AX
	MOVL $0x7fffffff, DX
	VPBROADCASTD DX, Z20
	MOVL $1, DX
	VPBROADCASTD DX, Z21
	MOVL $0x007fffff, DX
	VPBROADCASTD DX, Z22
	MOVL $0x7fff, DX
	VPBROADCASTD DX, Z23

loop:
	CMPQ CX, $16
	JB   done
	VMOVUPS (SI), Z0
	// VCVTNEPS2BF16 Z0, Y1
	BYTE $0x62; BYTE $0xf2; BYTE $0x7e; BYTE $0x48; BYTE $0x72; BYTE $0xc8
	TESTQ AX, AX
	JNZ   store
	// K1: lanes with 0 < |x| < 2^-126 (|x|-1 < 0x7fffff unsigned).
	VPANDD    Z20, Z0, Z2
	VPSUBD    Z21, Z2, Z2
	VPCMPUD   $1, Z22, Z2, K1
	KORTESTW  K1, K1
	JZ        store
	// Round those lanes on the bit pattern: (x + 0x7fff + (x>>16)&1) >> 16.
	VPSRLD    $16, Z0, Z3
	VPANDD    Z21, Z3, Z3
	VPADDD    Z23, Z3, Z3
	VPADDD    Z0, Z3, Z3
	VPSRLD    $16, Z3, Z3
	VPMOVDW   Z3, Y3
	VMOVDQU16 Y3, K1, Y1

store:
	VMOVDQU Y1, (DI)
	ADDQ    $64, SI
	ADDQ    $32, DI
	SUBQ    $16, CX
	JMP     loop

done:
	VZEROUPPER
	RET

// func bf16ToF32AVX512(dst *float32, src *uint16, n int)
TEXT ·bf16ToF32AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	CMPQ      CX, $16
	JB        done
	VPMOVZXWD (SI), Z0
	VPSLLD    $16, Z0, Z0
	VMOVUPS   Z0, (DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       loop

done:
	VZEROUPPER
	RET

// func f32ToF16F16C(dst *uint16, src *float32, n int)
TEXT ·f32ToF16F16C(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	CMPQ      CX, $8
	JB        done
	VMOVUPS   (SI), Y0
	VCVTPS2PH $0, Y0, X1
	VMOVDQU   X1, (DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	SUBQ      $8, CX
	JMP       loop

done:
	VZEROUPPER
	RET

// func f16ToF32F16C(dst *float32, src *uint16, n int)
TEXT ·f16ToF32F16C(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop:
	CMPQ      CX, $8
	JB        done
	VCVTPH2PS (SI), Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       loop

done:
	VZEROUPPER
	RET

// func bf16InterleaveAVX512(dst *uint32, lo, hi *float32, n int, idx *uint16)
// dst[j] = bf16ftz(lo[j]) | bf16ftz(hi[j])<<16 for n (a multiple of 16)
// values; idx is the VPERMW table {0, 16, 1, 17, ...}.
TEXT ·bf16InterleaveAVX512(SB), NOSPLIT, $0-40
	MOVQ      dst+0(FP), DI
	MOVQ      lo+8(FP), SI
	MOVQ      hi+16(FP), DX
	MOVQ      n+24(FP), CX
	MOVQ      idx+32(FP), AX
	VMOVDQU16 (AX), Z3

loop:
	CMPQ    CX, $16
	JB      done
	VMOVUPS (SI), Z0
	VMOVUPS (DX), Z1
	// VCVTNE2PS2BF16 Z0, Z1, Z2: words 0-15 of Z2 from Z0, 16-31 from Z1
	BYTE $0x62; BYTE $0xf2; BYTE $0x77; BYTE $0x48; BYTE $0x72; BYTE $0xd0
	VPERMW  Z2, Z3, Z2
	VMOVDQU32 Z2, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $64, DI
	SUBQ    $16, CX
	JMP     loop

done:
	VZEROUPPER
	RET

// func interleavePanelsAVX512(dst *uint32, lo, hi *float32, n int, idx *uint16, stride int)
// bf16InterleaveAVX512 in chunks of 32 values, chunk i written at
// dst + i*stride words.
TEXT ·interleavePanelsAVX512(SB), NOSPLIT, $0-48
	MOVQ      dst+0(FP), DI
	MOVQ      lo+8(FP), SI
	MOVQ      hi+16(FP), DX
	MOVQ      n+24(FP), CX
	MOVQ      idx+32(FP), AX
	MOVQ      stride+40(FP), BX
	SHLQ      $2, BX
	VMOVDQU16 (AX), Z3

ploop:
	CMPQ    CX, $32
	JB      pdone
	VMOVUPS (SI), Z0
	VMOVUPS (DX), Z1
	// VCVTNE2PS2BF16 Z0, Z1, Z2
	BYTE $0x62; BYTE $0xf2; BYTE $0x77; BYTE $0x48; BYTE $0x72; BYTE $0xd0
	VPERMW  Z2, Z3, Z2
	VMOVDQU32 Z2, (DI)
	VMOVUPS 64(SI), Z0
	VMOVUPS 64(DX), Z1
	BYTE $0x62; BYTE $0xf2; BYTE $0x77; BYTE $0x48; BYTE $0x72; BYTE $0xd0
	VPERMW  Z2, Z3, Z2
	VMOVDQU32 Z2, 64(DI)
	ADDQ    $128, SI
	ADDQ    $128, DX
	ADDQ    BX, DI
	SUBQ    $32, CX
	JMP     ploop

pdone:
	VZEROUPPER
	RET

// func cvtRunsAVX512(dst *uint32, src *float32, runs, run, stride int)
TEXT ·cvtRunsAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ runs+16(FP), R8
	MOVQ run+24(FP), R9
	MOVQ stride+32(FP), R10
	SHLQ $2, R10

rloop:
	TESTQ R8, R8
	JZ    rdone
	MOVQ  SI, DX
	MOVQ  R9, CX

vloop:
	VMOVUPS (DX), Z0
	VMOVUPS 64(DX), Z1
	// VCVTNE2PS2BF16 Z0, Z1, Z2: words 0-15 from Z0, 16-31 from Z1
	BYTE $0x62; BYTE $0xf2; BYTE $0x77; BYTE $0x48; BYTE $0x72; BYTE $0xd0
	VMOVDQU32 Z2, (DI)
	ADDQ $128, DX
	ADDQ $64, DI
	SUBQ $32, CX
	JNZ  vloop

	ADDQ R10, SI
	DECQ R8
	JMP  rloop

rdone:
	VZEROUPPER
	RET
