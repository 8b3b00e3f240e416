//go:build !noasm

#include "textflag.h"

DATA poolIota<>+0(SB)/4, $0
DATA poolIota<>+4(SB)/4, $1
DATA poolIota<>+8(SB)/4, $2
DATA poolIota<>+12(SB)/4, $3
DATA poolIota<>+16(SB)/4, $4
DATA poolIota<>+20(SB)/4, $5
DATA poolIota<>+24(SB)/4, $6
DATA poolIota<>+28(SB)/4, $7
DATA poolIota<>+32(SB)/4, $8
DATA poolIota<>+36(SB)/4, $9
DATA poolIota<>+40(SB)/4, $10
DATA poolIota<>+44(SB)/4, $11
DATA poolIota<>+48(SB)/4, $12
DATA poolIota<>+52(SB)/4, $13
DATA poolIota<>+56(SB)/4, $14
DATA poolIota<>+60(SB)/4, $15
GLOBL poolIota<>(SB), RODATA|NOPTR, $64

// func maxArgPixelsAsm(ov *float32, am *int32, x *float32, base, c, count, xs int)
TEXT ·maxArgPixelsAsm(SB), NOSPLIT, $0-56
	MOVQ ov+0(FP), DI
	MOVQ am+8(FP), DX
	MOVQ x+16(FP), SI
	MOVQ base+24(FP), BX
	MOVQ c+32(FP), CX
	MOVQ count+40(FP), R8
	MOVQ xs+48(FP), R9
	MOVL $16, AX
	VPBROADCASTD AX, Z3
	VMOVDQU32 poolIota<>(SB), Z4
mpix:
	TESTQ R8, R8
	JEQ mdone
	VPBROADCASTD BX, Z2
	VPADDD Z4, Z2, Z2
	XORQ AX, AX
mloop:
	VMOVUPS (SI)(AX*4), Z0
	VCMPPS $0x0e, (DI)(AX*4), Z0, K1
	VMOVUPS Z0, K1, (DI)(AX*4)
	VMOVDQU32 Z2, K1, (DX)(AX*4)
	VPADDD Z3, Z2, Z2
	ADDQ $16, AX
	CMPQ AX, CX
	JLT mloop
	LEAQ (DI)(CX*4), DI
	LEAQ (DX)(CX*4), DX
	LEAQ (SI)(R9*4), SI
	ADDQ R9, BX
	DECQ R8
	JMP mpix
mdone:
	VZEROUPPER
	RET

// func setArgPixelsAsm(ov *float32, am *int32, x *float32, base, c, count, xs int)
TEXT ·setArgPixelsAsm(SB), NOSPLIT, $0-56
	MOVQ ov+0(FP), DI
	MOVQ am+8(FP), DX
	MOVQ x+16(FP), SI
	MOVQ base+24(FP), BX
	MOVQ c+32(FP), CX
	MOVQ count+40(FP), R8
	MOVQ xs+48(FP), R9
	MOVL $16, AX
	VPBROADCASTD AX, Z3
	VMOVDQU32 poolIota<>(SB), Z4
spix:
	TESTQ R8, R8
	JEQ sdone
	VPBROADCASTD BX, Z2
	VPADDD Z4, Z2, Z2
	XORQ AX, AX
sloop:
	VMOVUPS (SI)(AX*4), Z0
	VMOVUPS Z0, (DI)(AX*4)
	VMOVDQU32 Z2, (DX)(AX*4)
	VPADDD Z3, Z2, Z2
	ADDQ $16, AX
	CMPQ AX, CX
	JLT sloop
	LEAQ (DI)(CX*4), DI
	LEAQ (DX)(CX*4), DX
	LEAQ (SI)(R9*4), SI
	ADDQ R9, BX
	DECQ R8
	JMP spix
sdone:
	VZEROUPPER
	RET

// func selectArgAsm(o, d *float32, am *int32, base, n int)
TEXT ·selectArgAsm(SB), NOSPLIT, $0-40
	MOVQ o+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ am+16(FP), DX
	MOVQ base+24(FP), BX
	MOVQ n+32(FP), CX
	MOVL $16, AX
	VPBROADCASTD AX, Z3
	VPBROADCASTD BX, Z2
	VPADDD poolIota<>(SB), Z2, Z2
	XORQ AX, AX
	TESTQ CX, CX
	JEQ xdone
xloop:
	VPCMPEQD (DX)(AX*4), Z2, K1
	VMOVUPS.Z (SI)(AX*4), K1, Z0
	// lanes not taken are zeroed ({z})
	VMOVUPS Z0, (DI)(AX*4)
	VPADDD Z3, Z2, Z2
	ADDQ $16, AX
	CMPQ AX, CX
	JLT xloop
xdone:
	VZEROUPPER
	RET
