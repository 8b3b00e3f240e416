//go:build ignore

// gen_vec_arm64.go writes vec_arm64.s, the ASIMD (NEON) kernels behind
// the wrappers in vec.go on arm64: go run gen_vec_arm64.go.
//
// Each float32 kernel handles 16 values per iteration (four 128-bit
// registers per operand) and is bitwise its Go loop as the Go compiler
// builds it for arm64 (which fuses x*y + z into FMADD, so the kernels use
// FMLA where the Go expression has that shape). Go's assembler lacks the
// floating-point vector instructions, so they are WORD encodings, each
// followed by its mnemonic (checked against llvm-mc -triple=aarch64
// -show-encoding and go tool objdump).
package main

import (
	"fmt"
	"os"
	"strings"
)

// Three-register .4S / .2D instructions: base | Rm<<16 | Rn<<5 | Rd.
var ops3 = map[string]int{
	"FADD.4S":  0x4e20d400,
	"FSUB.4S":  0x4ea0d400,
	"FMUL.4S":  0x6e20dc00,
	"FMLA.4S":  0x4e20cc00,
	"FCMEQ.4S": 0x4e20e400,
	"FCMGT.4S": 0x6ea0e400,
	"BIC.16B":  0x4e601c00,
	"FDIV.4S":  0x6e20fc00,
	"FADD.2D":  0x4e60d400,
	"FMLA.2D":  0x4e60cc00,
}

// Two-register instructions: base | Rn<<5 | Rd.
var ops2 = map[string]int{
	"FCMLT0.4S": 0x4ea0e800, // FCMLT Vd.4S, Vn.4S, #0.0
	"FCMGT0.4S": 0x4ea0c800, // FCMGT Vd.4S, Vn.4S, #0.0
	"FCVTL.2D":  0x0e617800, // FCVTL Vd.2D, Vn.2S
	"FCVTL2.2D": 0x4e617800, // FCVTL2 Vd.2D, Vn.4S
	"FNEG.4S":   0x6ea0f800,
	"FSQRT.4S":  0x6ea1f800,
}

var s strings.Builder

func p(format string, args ...any) { fmt.Fprintf(&s, "\t"+format+"\n", args...) }

// op3 emits d = n OP m.
func op3(name string, d, n, m int) {
	p("WORD\t$0x%08x // %s V%d, V%d, V%d", ops3[name]|m<<16|n<<5|d, name, d, n, m)
}

func op2(name string, d, n int) {
	p("WORD\t$0x%08x // %s V%d, V%d", ops2[name]|n<<5|d, name, d, n)
}

// elem emits d = n * m.S[0] (FMUL) or d += n * m.S[0] (FMLA).
func elem(fmla bool, d, n, m int) {
	w, name := 0x4f809000, "FMUL"
	if fmla {
		w, name = 0x4f801000, "FMLA"
	}
	p("WORD\t$0x%08x // %s V%d.4S, V%d.4S, V%d.S[0]", w|m<<16|n<<5|d, name, d, n, m)
}

// Registers: source k, group g (values 4g..4g+3 of the 16) in V(4k+g);
// the result of group g in V(20+g); temporaries V24-V27; constants V28-V31.
func src(k, g int) int { return 4*k + g }
func res(g int) int    { return 20 + g }

const (
	tmpA, tmpB               = 24, 25
	cOne, c7fff, cQuiet, cHi = 28, 29, 30, 31
	cScalar                  = 28 // the float32 argument, when there is one
)

// relu: r = r where !(r < 0), else +0 (Go's "if v < 0 { v = 0 }": NaN
// and -0 pass).
func relu(r int) {
	op2("FCMLT0.4S", tmpA, r)
	op3("BIC.16B", r, r, tmpA)
}

// round: r = roundBF16(r) on the bits, as vec.roundBF16.
func round(r int) {
	p("VUSHR\t$16, V%d.S4, V%d.S4", r, tmpA)
	p("VAND\tV%d.B16, V%d.B16, V%d.B16", cOne, tmpA, tmpA)
	p("VADD\tV%d.S4, V%d.S4, V%d.S4", c7fff, tmpA, tmpA)
	p("VADD\tV%d.S4, V%d.S4, V%d.S4", r, tmpA, tmpA)   // u + 0x7fff + lsb
	op3("FCMEQ.4S", tmpB, r, r)                        // not NaN
	p("VORR\tV%d.B16, V%d.B16, V%d.B16", cQuiet, r, r) // NaN made quiet
	p("VBSL\tV%d.B16, V%d.B16, V%d.B16", r, tmpA, tmpB)
	p("VAND\tV%d.B16, V%d.B16, V%d.B16", cHi, tmpB, r)
}

type kernel struct {
	name    string
	ptrs    []string // dst first; then the sources, loaded in order
	loadDst bool     // dst is also read (axpy)
	scalar  string   // name of a float32 argument after n, if any
	rounds  bool     // needs the rounding constants
	body    func(g int)
}

func ptrReg(i int) string { return fmt.Sprintf("R%d", i) }

func gen(k kernel) {
	nsrc := len(k.ptrs) - 1
	frame := 8*len(k.ptrs) + 8
	if k.scalar != "" {
		frame += 4
	}
	fmt.Fprintf(&s, "// func %s(%s *float32, n int", k.name, strings.Join(k.ptrs, ", "))
	if k.scalar != "" {
		fmt.Fprintf(&s, ", %s float32", k.scalar)
	}
	fmt.Fprintf(&s, ")\nTEXT ·%s(SB), NOSPLIT, $0-%d\n", k.name, frame)
	for i, name := range k.ptrs {
		p("MOVD\t%s+%d(FP), %s", name, 8*i, ptrReg(i))
	}
	nOff := 8 * len(k.ptrs)
	p("MOVD\tn+%d(FP), R8", nOff)
	p("LSR\t$4, R8, R8")
	if k.scalar != "" {
		p("FMOVS\t%s+%d(FP), F%d", k.scalar, nOff+8, cScalar)
		p("VDUP\tV%d.S[0], V%d.S4", cScalar, cScalar)
	}
	if k.rounds {
		for _, c := range []struct {
			reg int
			v   uint32
		}{{cOne, 1}, {c7fff, 0x7fff}, {cQuiet, 0x00400000}, {cHi, 0xffff0000}} {
			p("MOVW\t$0x%x, R9", c.v)
			p("VDUP\tR9, V%d.S4", c.reg)
		}
	}
	fmt.Fprintf(&s, "loop_%s:\n", k.name)
	for i := 1; i <= nsrc; i++ {
		b := src(i-1, 0)
		p("VLD1.P\t64(%s), [V%d.S4, V%d.S4, V%d.S4, V%d.S4]", ptrReg(i), b, b+1, b+2, b+3)
	}
	if k.loadDst {
		p("VLD1\t(R0), [V%d.S4, V%d.S4, V%d.S4, V%d.S4]", res(0), res(1), res(2), res(3))
	}
	for g := 0; g < 4; g++ {
		k.body(g)
	}
	p("VST1.P\t[V%d.S4, V%d.S4, V%d.S4, V%d.S4], 64(R0)", res(0), res(1), res(2), res(3))
	p("SUBS\t$1, R8, R8")
	p("BNE\tloop_%s", k.name)
	p("RET\n")
}

// fma3 emits r = x*y + z (one rounding: FMLA into a copy of z).
func fma3(r, x, y, z int) {
	p("VORR\tV%d.B16, V%d.B16, V%d.B16", z, z, r)
	op3("FMLA.4S", r, y, x) // operand order as Go's FMADDS (which NaN propagates)
}

func dual(g int) { // a*p + b*q + r: (a*p) then += b*q (FMLA), then + r
	r := res(g)
	op3("FMUL.4S", r, src(1, g), src(0, g)) // p*a, b*q: operand orders of Go 1.26's FMULS/FMADDS
	op3("FMLA.4S", r, src(2, g), src(3, g))
	op3("FADD.4S", r, r, src(4, g))
}

// gen64 writes the float64 column accumulations (8 float32 per iteration,
// widened with FCVTL/FCVTL2).
func gen64() {
	s.WriteString(`// func accRowsAsm(acc *float64, x *float32, n int)
TEXT ·accRowsAsm(SB), NOSPLIT, $0-24
	MOVD	acc+0(FP), R0
	MOVD	x+8(FP), R1
	MOVD	n+16(FP), R8
	LSR	$3, R8, R8
loop_accRowsAsm:
	VLD1.P	32(R1), [V0.S4, V1.S4]
	VLD1	(R0), [V4.D2, V5.D2, V6.D2, V7.D2]
`)
	widen := func(from, to int) { // V(to), V(to+1) = float64 of V(from)'s 4 floats
		op2("FCVTL.2D", to, from)
		op2("FCVTL2.2D", to+1, from)
	}
	widen(0, 16)
	widen(1, 18)
	for i := 0; i < 4; i++ {
		op3("FADD.2D", 4+i, 4+i, 16+i)
	}
	p("VST1.P\t[V4.D2, V5.D2, V6.D2, V7.D2], 64(R0)")
	p("SUBS\t$1, R8, R8")
	p("BNE\tloop_accRowsAsm")
	p("RET\n")

	s.WriteString(`// func accRowsSqAsm(sum, sq *float64, x *float32, n int)
TEXT ·accRowsSqAsm(SB), NOSPLIT, $0-32
	MOVD	sum+0(FP), R0
	MOVD	sq+8(FP), R1
	MOVD	x+16(FP), R2
	MOVD	n+24(FP), R8
	LSR	$3, R8, R8
loop_accRowsSqAsm:
	VLD1.P	32(R2), [V0.S4, V1.S4]
	VLD1	(R0), [V4.D2, V5.D2, V6.D2, V7.D2]
	VLD1	(R1), [V8.D2, V9.D2, V10.D2, V11.D2]
`)
	widen(0, 16)
	widen(1, 18)
	for i := 0; i < 4; i++ {
		op3("FADD.2D", 4+i, 4+i, 16+i)
		op3("FMLA.2D", 8+i, 16+i, 16+i) // sq += f*f, fused as Go fuses it
	}
	p("VST1.P\t[V4.D2, V5.D2, V6.D2, V7.D2], 64(R0)")
	p("VST1.P\t[V8.D2, V9.D2, V10.D2, V11.D2], 64(R1)")
	p("SUBS\t$1, R8, R8")
	p("BNE\tloop_accRowsSqAsm")
	p("RET\n")

	s.WriteString(`// func accCenteredAsm(acc0, acc1 *float64, x, dy, mean *float32, n int)
TEXT ·accCenteredAsm(SB), NOSPLIT, $0-48
	MOVD	acc0+0(FP), R0
	MOVD	acc1+8(FP), R1
	MOVD	x+16(FP), R2
	MOVD	dy+24(FP), R3
	MOVD	mean+32(FP), R4
	MOVD	n+40(FP), R8
	LSR	$3, R8, R8
loop_accCenteredAsm:
	VLD1.P	32(R2), [V0.S4, V1.S4]
	VLD1.P	32(R3), [V2.S4, V3.S4]
	VLD1.P	32(R4), [V12.S4, V13.S4]
	VLD1	(R0), [V4.D2, V5.D2, V6.D2, V7.D2]
	VLD1	(R1), [V8.D2, V9.D2, V10.D2, V11.D2]
`)
	op3("FSUB.4S", 0, 0, 12) // x - mean in float32
	op3("FSUB.4S", 1, 1, 13)
	widen(2, 16) // g
	widen(3, 18)
	widen(0, 20) // x - mean
	widen(1, 22)
	for i := 0; i < 4; i++ {
		op3("FADD.2D", 4+i, 4+i, 16+i)
		op3("FMLA.2D", 8+i, 16+i, 20+i)
	}
	p("VST1.P\t[V4.D2, V5.D2, V6.D2, V7.D2], 64(R0)")
	p("VST1.P\t[V8.D2, V9.D2, V10.D2, V11.D2], 64(R1)")
	p("SUBS\t$1, R8, R8")
	p("BNE\tloop_accCenteredAsm")
	p("RET\n")
}

// genAdam writes adamAsm: for 16 values a step, with the roundings of the
// Go loop as Go 1.26 builds it for arm64 (FSUB; FMADD; FNMSUB, here FNEG
// then FMLA, the same single rounding; FMADD; FMUL, FSQRT, FADD, FDIV, FSUB):
//
//	m += (g - m) * c1
//	v += (g*g - v) * c2
//	w -= m * alpha / (sqrt(v) + eps)
func genAdam() {
	s.WriteString(`// func adamAsm(w, grad, m, v *float32, n int, alpha, c1, c2, eps float32)
TEXT ·adamAsm(SB), NOSPLIT, $0-56
	MOVD	w+0(FP), R0
	MOVD	grad+8(FP), R1
	MOVD	m+16(FP), R2
	MOVD	v+24(FP), R3
	MOVD	n+32(FP), R8
	LSR	$4, R8, R8
	FMOVS	alpha+40(FP), F28
	FMOVS	c1+44(FP), F29
	FMOVS	c2+48(FP), F30
	FMOVS	eps+52(FP), F31
	VDUP	V28.S[0], V28.S4
	VDUP	V29.S[0], V29.S4
	VDUP	V30.S[0], V30.S4
	VDUP	V31.S[0], V31.S4
loop_adamAsm:
	VLD1	(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P	64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1	(R2), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1	(R3), [V12.S4, V13.S4, V14.S4, V15.S4]
`)
	for g := 0; g < 4; g++ {
		w, x, m, v := g, 4+g, 8+g, 12+g
		op3("FSUB.4S", 16, x, m)  // g - m
		op3("FMLA.4S", m, 29, 16) // m += c1*(g - m)
		op2("FNEG.4S", 17, v)
		op3("FMLA.4S", 17, x, x)  // g*g - v, one rounding
		op3("FMLA.4S", v, 30, 17) // v += c2*(g*g - v)
		op2("FSQRT.4S", 18, v)
		op3("FADD.4S", 18, 18, 31) // sqrt(v) + eps
		op3("FMUL.4S", 19, 28, m)  // alpha*m
		op3("FDIV.4S", 19, 19, 18)
		op3("FSUB.4S", w, w, 19)
	}
	p("VST1.P\t[V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)")
	p("VST1.P\t[V8.S4, V9.S4, V10.S4, V11.S4], 64(R2)")
	p("VST1.P\t[V12.S4, V13.S4, V14.S4, V15.S4], 64(R3)")
	p("SUBS\t$1, R8, R8")
	p("BNE\tloop_adamAsm")
	p("RET\n")
}

// genPool writes the max-pooling kernels (c and n multiples of 16):
// setArgPixelsAsm, maxArgPixelsAsm (x > ov replaces value and argument,
// so ties keep the earlier argument and a NaN never wins) and selectArgAsm.
// Arguments are int32 lanes base + i*xs + j, counted up in V12-V15.
func genPool() {
	// iota: V26 = (0, 1, 2, 3), V25 = 4 in every lane, V24 = 16.
	consts := func() {
		for l := 0; l < 4; l++ {
			p("MOVW\t$%d, R9", l)
			p("VMOV\tR9, V26.S[%d]", l)
		}
		p("MOVW\t$4, R9")
		p("VDUP\tR9, V25.S4")
		p("MOVW\t$16, R9")
		p("VDUP\tR9, V24.S4")
	}
	// idx sets V12-V15 to the arguments of 16 values from R10 on.
	idx := func() {
		p("VDUP\tR10, V12.S4")
		p("VADD\tV26.S4, V12.S4, V12.S4")
		p("VADD\tV25.S4, V12.S4, V13.S4")
		p("VADD\tV25.S4, V13.S4, V14.S4")
		p("VADD\tV25.S4, V14.S4, V15.S4")
	}
	step := func() {
		for r := 12; r < 16; r++ {
			p("VADD\tV24.S4, V%d.S4, V%d.S4", r, r)
		}
	}
	for _, set := range []bool{true, false} {
		name := "maxArgPixelsAsm"
		if set {
			name = "setArgPixelsAsm"
		}
		fmt.Fprintf(&s, "// func %s(ov *float32, am *int32, x *float32, base, c, count, xs int)\n", name)
		fmt.Fprintf(&s, "TEXT ·%s(SB), NOSPLIT, $0-56\n", name)
		p("MOVD\tov+0(FP), R0")
		p("MOVD\tam+8(FP), R1")
		p("MOVD\tx+16(FP), R2")
		p("MOVD\tbase+24(FP), R3")
		p("MOVD\tc+32(FP), R4")
		p("MOVD\tcount+40(FP), R5")
		p("MOVD\txs+48(FP), R6")
		p("LSR\t$4, R4, R4")
		p("LSL\t$2, R6, R11") // xs in bytes
		consts()
		fmt.Fprintf(&s, "pixel_%s:\n", name)
		p("MOVD\tR2, R7")
		p("MOVD\tR4, R8")
		p("MOVD\tR3, R10")
		idx()
		fmt.Fprintf(&s, "loop_%s:\n", name)
		p("VLD1.P\t64(R7), [V0.S4, V1.S4, V2.S4, V3.S4]")
		if set {
			p("VST1.P\t[V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)")
			p("VST1.P\t[V12.S4, V13.S4, V14.S4, V15.S4], 64(R1)")
		} else {
			p("VLD1\t(R0), [V4.S4, V5.S4, V6.S4, V7.S4]")
			p("VLD1\t(R1), [V8.S4, V9.S4, V10.S4, V11.S4]")
			for g := 0; g < 4; g++ {
				op3("FCMGT.4S", 16+g, g, 4+g) // x > ov
				p("VBIT\tV%d.B16, V%d.B16, V%d.B16", 16+g, g, 4+g)
				p("VBIT\tV%d.B16, V%d.B16, V%d.B16", 16+g, 12+g, 8+g)
			}
			p("VST1.P\t[V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)")
			p("VST1.P\t[V8.S4, V9.S4, V10.S4, V11.S4], 64(R1)")
		}
		step()
		p("SUBS\t$1, R8, R8")
		p("BNE\tloop_%s", name)
		p("ADD\tR11, R2, R2")
		p("ADD\tR6, R3, R3")
		p("SUBS\t$1, R5, R5")
		p("BNE\tpixel_%s", name)
		p("RET\n")
	}

	s.WriteString("// func selectArgAsm(o, d *float32, am *int32, base, n int)\n")
	s.WriteString("TEXT ·selectArgAsm(SB), NOSPLIT, $0-40\n")
	p("MOVD\to+0(FP), R0")
	p("MOVD\td+8(FP), R1")
	p("MOVD\tam+16(FP), R2")
	p("MOVD\tbase+24(FP), R10")
	p("MOVD\tn+32(FP), R8")
	p("LSR\t$4, R8, R8")
	consts()
	idx()
	s.WriteString("loop_selectArgAsm:\n")
	p("VLD1.P\t64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]")
	p("VLD1.P\t64(R2), [V8.S4, V9.S4, V10.S4, V11.S4]")
	for g := 0; g < 4; g++ {
		p("VCMEQ\tV%d.S4, V%d.S4, V%d.S4", 12+g, 8+g, 16+g) // am == base+j
		p("VAND\tV%d.B16, V%d.B16, V%d.B16", 16+g, g, g)
	}
	p("VST1.P\t[V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)")
	step()
	p("SUBS\t$1, R8, R8")
	p("BNE\tloop_selectArgAsm")
	p("RET\n")
}

// genTranspose writes transpose8x8Asm: dst[j*ldd+i] = src[i*lds+j] for
// i, j < 8, each 4x4 quarter transposed with TRN1/TRN2 on 32- then 64-bit
// lanes.
func genTranspose() {
	s.WriteString(`// func transpose8x8Asm(dst *float32, ldd int, src *float32, lds int)
TEXT ·transpose8x8Asm(SB), NOSPLIT, $0-32
	MOVD	dst+0(FP), R0
	MOVD	ldd+8(FP), R1
	MOVD	src+16(FP), R2
	MOVD	lds+24(FP), R3
	LSL	$2, R1, R1
	LSL	$2, R3, R3
`)
	// Row i of src in V(2i) (columns 0-3) and V(2i+1) (columns 4-7).
	for i := 0; i < 8; i++ {
		p("VLD1.P\t(R2)(R3), [V%d.S4, V%d.S4]", 2*i, 2*i+1)
	}
	for h := 0; h < 2; h++ { // columns 4h..4h+3 of src: rows 4h..4h+3 of dst
		for a := 0; a < 2; a++ { // rows 4a..4a+3 of src: half a of those dst rows
			r := func(k int) int { return 2*(4*a+k) + h }
			p("VTRN1\tV%d.S4, V%d.S4, V16.S4", r(1), r(0))
			p("VTRN2\tV%d.S4, V%d.S4, V17.S4", r(1), r(0))
			p("VTRN1\tV%d.S4, V%d.S4, V18.S4", r(3), r(2))
			p("VTRN2\tV%d.S4, V%d.S4, V19.S4", r(3), r(2))
			o := func(k int) int { return 20 + 2*k + a } // dst row 4h+k, half a
			p("VTRN1\tV18.D2, V16.D2, V%d.D2", o(0))
			p("VTRN1\tV19.D2, V17.D2, V%d.D2", o(1))
			p("VTRN2\tV18.D2, V16.D2, V%d.D2", o(2))
			p("VTRN2\tV19.D2, V17.D2, V%d.D2", o(3))
		}
		for k := 0; k < 4; k++ {
			p("VST1.P\t[V%d.S4, V%d.S4], (R0)(R1)", 20+2*k, 21+2*k)
		}
	}
	p("RET\n")
}

func main() {
	s.WriteString("// Code generated by gen_vec_arm64.go; DO NOT EDIT.\n\n")
	s.WriteString("//go:build arm64 && !noasm\n\n")
	s.WriteString("#include \"textflag.h\"\n\n")
	bin := func(op string) func(g int) {
		return func(g int) { op3(op, res(g), src(0, g), src(1, g)) }
	}
	ks := []kernel{
		{name: "reluAsm", ptrs: []string{"dst", "x"}, body: func(g int) {
			p("VORR\tV%d.B16, V%d.B16, V%d.B16", src(0, g), src(0, g), res(g))
			relu(res(g))
		}},
		{name: "reluGradAsm", ptrs: []string{"dst", "y", "dy"}, body: func(g int) {
			op2("FCMGT0.4S", res(g), src(0, g))
			p("VAND\tV%d.B16, V%d.B16, V%d.B16", src(1, g), res(g), res(g))
		}},
		{name: "addAsm", ptrs: []string{"dst", "a", "b"}, body: bin("FADD.4S")},
		{name: "addReluAsm", ptrs: []string{"dst", "a", "b"}, body: func(g int) { bin("FADD.4S")(g); relu(res(g)) }},
		{name: "subAsm", ptrs: []string{"dst", "a", "b"}, body: bin("FSUB.4S")},
		{name: "mulAsm", ptrs: []string{"dst", "a", "b"}, body: bin("FMUL.4S")},
		{name: "maxAsm", ptrs: []string{"dst", "a", "b"}, body: func(g int) {
			// a > b ? a : b (b where either is NaN)
			op3("FCMGT.4S", res(g), src(0, g), src(1, g))
			p("VBSL\tV%d.B16, V%d.B16, V%d.B16", src(1, g), src(0, g), res(g))
		}},
		{name: "scaleAsm", ptrs: []string{"dst", "x"}, scalar: "c", body: func(g int) { elem(false, res(g), src(0, g), cScalar) }},
		{name: "addScalarAsm", ptrs: []string{"dst", "x"}, scalar: "c", body: func(g int) { op3("FADD.4S", res(g), src(0, g), cScalar) }},
		{name: "axpyAsm", ptrs: []string{"dst", "x"}, scalar: "c", loadDst: true, body: func(g int) { elem(true, res(g), src(0, g), cScalar) }},
		{name: "squareAsm", ptrs: []string{"dst", "x"}, body: func(g int) { op3("FMUL.4S", res(g), src(0, g), src(0, g)) }},
		{name: "scaleShiftAsm", ptrs: []string{"dst", "x", "s", "t"}, body: func(g int) { fma3(res(g), src(0, g), src(1, g), src(2, g)) }},
		{name: "scaleShiftReluAsm", ptrs: []string{"dst", "x", "s", "t"}, body: func(g int) {
			fma3(res(g), src(0, g), src(1, g), src(2, g))
			relu(res(g))
		}},
		{name: "dualAffineAsm", ptrs: []string{"dst", "a", "p", "b", "q", "r"}, body: dual},
		{name: "roundBF16Asm", ptrs: []string{"dst", "x"}, rounds: true, body: func(g int) {
			p("VORR\tV%d.B16, V%d.B16, V%d.B16", src(0, g), src(0, g), res(g))
			round(res(g))
		}},
		{name: "addRoundAsm", ptrs: []string{"dst", "a", "b"}, rounds: true, body: func(g int) { bin("FADD.4S")(g); round(res(g)) }},
		{name: "addReluRoundAsm", ptrs: []string{"dst", "a", "b"}, rounds: true, body: func(g int) {
			bin("FADD.4S")(g)
			relu(res(g))
			round(res(g))
		}},
		{name: "scaleShiftRoundAsm", ptrs: []string{"dst", "x", "s", "t"}, rounds: true, body: func(g int) {
			fma3(res(g), src(0, g), src(1, g), src(2, g))
			round(res(g))
		}},
		{name: "scaleShiftReluRoundAsm", ptrs: []string{"dst", "x", "s", "t"}, rounds: true, body: func(g int) {
			fma3(res(g), src(0, g), src(1, g), src(2, g))
			relu(res(g))
			round(res(g))
		}},
		{name: "dualAffineRoundAsm", ptrs: []string{"dst", "a", "p", "b", "q", "r"}, rounds: true, body: func(g int) {
			dual(g)
			round(res(g))
		}},
	}
	for _, k := range ks {
		gen(k)
	}
	gen64()
	genAdam()
	genPool()
	genTranspose()
	if err := os.WriteFile("vec_arm64.s", []byte(s.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
