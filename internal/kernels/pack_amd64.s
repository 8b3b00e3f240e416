//go:build amd64 && !noasm

#include "textflag.h"

DATA iota32<>+0(SB)/8, $0x0000000100000000
DATA iota32<>+8(SB)/8, $0x0000000300000002
DATA iota32<>+16(SB)/8, $0x0000000500000004
DATA iota32<>+24(SB)/8, $0x0000000700000006
DATA iota32<>+32(SB)/8, $0x0000000900000008
DATA iota32<>+40(SB)/8, $0x0000000b0000000a
DATA iota32<>+48(SB)/8, $0x0000000d0000000c
DATA iota32<>+56(SB)/8, $0x0000000f0000000e
GLOBL iota32<>(SB), RODATA|NOPTR, $64

// func gatherPackAVX512(dst *float32, dstStride int, src *float32, srcStride int, lanes, width, kc int)
TEXT ·gatherPackAVX512(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), AX
	MOVQ lanes+32(FP), CX
	MOVQ width+40(FP), DX
	MOVQ kc+48(FP), R9

	// Z1 = i*srcStride for lane i.
	VMOVDQU32    iota32<>(SB), Z1
	VPBROADCASTD AX, Z2
	VPMULLD      Z2, Z1, Z1

	// K1 = gather mask (lanes), K2 = store mask (width).
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX
	KMOVW AX, K1
	MOVL  $1, AX
	MOVL  DX, CX
	SHLL  CX, AX
	DECL  AX
	KMOVW AX, K2

	TESTQ R9, R9
	JZ    done

loop:
	KMOVW      K1, K3
	VPXORD     Z0, Z0, Z0
	VGATHERDPS (SI)(Z1*4), K3, Z0
	VMOVUPS    Z0, K2, (DI)
	ADDQ       $4, SI
	ADDQ       R8, DI
	DECQ       R9
	JNZ        loop

done:
	VZEROUPPER
	RET

// func gatherPackAVX2(dst *float32, dstStride int, src *float32, srcStride int, lanes, width, kc int)
TEXT ·gatherPackAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), AX
	MOVQ lanes+32(FP), CX
	MOVQ width+40(FP), DX
	MOVQ kc+48(FP), R9

	// Y1 = i*srcStride for lane i.
	VMOVDQU      iota32<>(SB), Y1
	MOVQ         AX, X2
	VPBROADCASTD X2, Y2
	VPMULLD      Y2, Y1, Y1

	// Y3 = gather mask (lane < lanes), Y4 = store mask (lane < width).
	MOVQ         CX, X5
	VPBROADCASTD X5, Y5
	VMOVDQU      iota32<>(SB), Y6
	VPCMPGTD     Y6, Y5, Y3 // Y3[i] = lanes > i
	MOVQ         DX, X5
	VPBROADCASTD X5, Y5
	VPCMPGTD     Y6, Y5, Y4 // Y4[i] = width > i

	TESTQ R9, R9
	JZ    done

loop:
	VMOVDQA    Y3, Y7
	VXORPS     Y0, Y0, Y0
	VGATHERDPS Y7, (SI)(Y1*4), Y0
	VMASKMOVPS Y0, Y4, (DI)
	ADDQ       $4, SI
	ADDQ       R8, DI
	DECQ       R9
	JNZ        loop

done:
	VZEROUPPER
	RET
