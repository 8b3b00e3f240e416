package ops

import (
	"math"

	"github.com/gokeras/gokeras/internal/vec"
)

// Float32ToBFloat16Bits returns the bfloat16 nearest x (ties to even), as
// ml_dtypes and TensorFlow round: the upper 16 bits of a float32 with the
// 16 dropped bits rounded into them. Values beyond bfloat16's largest
// finite value (about 3.39e38) become ±inf; a NaN stays a quiet NaN of
// the same sign.
func Float32ToBFloat16Bits(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep sign and payload top, force quiet
		return uint16(b>>16) | 0x0040
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BFloat16BitsToFloat32 returns the float32 of bfloat16 bits h (exact).
func BFloat16BitsToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// RoundBFloat16 rounds x to the nearest bfloat16 (8 significant bits),
// kept in a float32.
func RoundBFloat16(x float32) float32 { return BFloat16BitsToFloat32(Float32ToBFloat16Bits(x)) }

// Float32ToFloat16Bits returns the IEEE half-precision value nearest x
// (ties to even), as numpy's astype(float16): magnitudes from 65520 up
// overflow to ±inf, small ones become subnormals or ±0, a NaN stays a
// quiet NaN of the same sign.
func Float32ToFloat16Bits(x float32) uint16 {
	b := math.Float32bits(x)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	switch {
	case e >= 31:
		return sign | 0x7c00
	case e <= 0:
		if e < -10 {
			return sign // below half the smallest subnormal: ±0
		}
		m := mant | 0x800000
		shift := uint(14 - e)
		h := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // a carry into the exponent is right, up to inf
	}
	return sign | uint16(h)
}

// Float16BitsToFloat32 returns the float32 of IEEE half bits h (exact).
func Float16BitsToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// subnormal: mant * 2^-24
		v := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// RoundFloat16 rounds x to the nearest IEEE half (11 significant bits,
// overflow to ±inf), kept in a float32.
func RoundFloat16(x float32) float32 { return Float16BitsToFloat32(Float32ToFloat16Bits(x)) }

// CastToBFloat16 rounds every element of x to bfloat16 (ties to even),
// the values staying in float32 buffers: Keras' cast to a mixed
// policy's compute dtype "bfloat16". Its gradient casts dy the same way,
// as the gradient of a cast is the cast of dy back to the input's dtype
// with dy already in bfloat16 below it.
func CastToBFloat16(x Tensor) Tensor {
	if castBy(x, "CastToBFloat16") || castBy(x, "CastToBFloat16Exact") || roundedBy(x) {
		return x // already rounded: rounding is idempotent, and so is its gradient
	}
	if bfloat16Exact(x, 8) {
		return castExactBFloat16(x)
	}
	if y, ok := fuseCastBF16(x); ok {
		return y // the producer rounds as it writes (cast_fused.go)
	}
	return unary("CastToBFloat16", x, unaryAttrs{}, roundBFloat16Slice,
		func(_, _, dy Tensor) Tensor { return CastToBFloat16(dy) })
}

// castExactBFloat16 is CastToBFloat16 of an x whose values are bfloat16
// already (bfloat16Exact): the rounding would change nothing, so the op
// is a view of x (no kernel runs, see [Op.ViewOf]; a copy where the
// executor cannot alias), but its gradient still rounds dy as the cast's
// does. Under mixed_bfloat16 most casts at layer boundaries are of such
// values (the output of a max pooling, a ReLU, a Flatten of a layer's
// rounded output; backwards, a ReLU's masking or a max pooling's scatter
// of a rounded gradient), and each would be a pass over an activation.
func castExactBFloat16(x Tensor) Tensor {
	tr := sameTrace("CastToBFloat16Exact", x)
	return tr.apply(&Op{
		name: "CastToBFloat16Exact", out: x.Shape(), attrs: unaryAttrs{},
		fwd:  func(o []float32, in [][]float32) { copy(o, in[0][:len(o)]) },
		grad: func(_ []Tensor, _, dy Tensor) []Tensor { return []Tensor{CastToBFloat16(dy)} },
	}, x)
}

// bfloat16Exact reports whether every value of x is a bfloat16 value
// whatever the inputs, by its producer: a bfloat16 cast, an op that
// rounds its output itself (Op.RoundsBFloat16, cast_fused.go), or an op
// whose outputs are values of one input (or zero) when that input is
// exact: a Reshape, a max pooling, a ReLU, a ReLU's gradient, a max pooling's
// gradient whose windows do not overlap (each input gets at most one
// dy; overlapping windows would sum). depth bounds the walk.
func bfloat16Exact(x Tensor, depth int) bool {
	if x.n == nil || depth == 0 {
		return false
	}
	o, ok := x.n.Op().(*Op)
	if !ok {
		return false
	}
	if o.bf16 {
		return true // an op that rounds its output (cast_fused.go)
	}
	from := -1 // the input whose values the output holds
	switch o.name {
	case "CastToBFloat16", "CastToBFloat16Exact":
		return true
	case "Reshape", "MaxPool2D", "Relu":
		from = 0
	case "ReluGrad":
		from = 1 // (y, dy): dy where y > 0
	case "MaxPool2DGrad":
		a, ok := o.attrs.(maxPoolGradAttrs)
		if !ok || a.Strides[0] < a.Pool[0] || a.Strides[1] < a.Pool[1] {
			return false
		}
		from = 0 // (dy, y): dy scattered (masked by y > 0 or not)
	default:
		return false
	}
	ch := Children(x.tr.g, x.n)
	return from < len(ch) && bfloat16Exact(x.tr.wrap(ch[from]), depth-1)
}

// CastToFloat16 rounds every element of x to IEEE half precision (ties
// to even, magnitudes from 65520 up to ±inf), the values staying in
// float32 buffers: the compute dtype of "mixed_float16". Its gradient
// casts dy the same way, so a gradient beyond float16's range becomes
// inf, which dynamic loss scaling detects.
func CastToFloat16(x Tensor) Tensor {
	if castBy(x, "CastToFloat16") {
		return x
	}
	return unary("CastToFloat16", x, unaryAttrs{}, roundSlice(RoundFloat16),
		func(_, _, dy Tensor) Tensor { return CastToFloat16(dy) })
}

// CastToComputeDType casts x to a policy's compute dtype: "bfloat16" and
// "float16" round, "float32" and "float64" (and "") keep x.
func CastToComputeDType(x Tensor, dtype string) Tensor {
	switch dtype {
	case "bfloat16":
		return CastToBFloat16(x)
	case "float16":
		return CastToFloat16(x)
	case "", "float32", "float64":
		return x
	}
	fail("CastToComputeDType", "unsupported compute dtype %q (bfloat16, float16, float32, float64)", dtype)
	return Tensor{}
}

// castBy reports whether x is the output of the cast op of this kind.
func castBy(x Tensor, kind string) bool {
	if x.n == nil {
		return false
	}
	o, ok := x.n.Op().(*Op)
	return ok && o.name == kind
}

// roundBFloat16Slice is RoundBFloat16 over a slice (dst and x may be the
// same), the rounding of CastToBFloat16 and of the ops that round their
// output (cast_fused.go).
func roundBFloat16Slice(dst, x []float32) {
	// vec.RoundBF16 is the same rounding (RNE on the bits, NaN made
	// quiet, subnormals kept) in AVX-512 integer arithmetic, 16 floats
	// an iteration: twice kernels.RoundBF16's rate (VCVTNEPS2BF16 into a
	// buffer and back, 4096 floats in L1), which was 3x a scalar loop;
	// the casts were a quarter of a mixed step.
	vec.RoundBF16(dst, x[:len(dst)])
}

func roundSlice(f func(float32) float32) func(dst, x []float32) {
	return func(dst, x []float32) {
		x = x[:len(dst)]
		for i, v := range x {
			dst[i] = f(v)
		}
	}
}

// readCastKey is the trace attribute under which CastReads keeps the
// dtype that Read casts variables to.
type readCastKey struct{}

// CastReads makes Read return every variable cast to dtype ("bfloat16" or
// "float16"; "float32" and "" cast nothing) until restore is called: the
// variables stay float32 and are cast where a layer under a mixed
// policy uses them, as Keras' AutocastVariable. Calls nest; restore puts
// back the setting CastReads found.
func (tr *Trace) CastReads(dtype string) (restore func()) {
	prev, had := tr.attrs[readCastKey{}]
	switch dtype {
	case "bfloat16", "float16":
		tr.SetAttr(readCastKey{}, dtype)
	case "", "float32", "float64":
		if had {
			delete(tr.attrs, readCastKey{})
		}
	default:
		fail("CastReads", "unsupported compute dtype %q (bfloat16, float16, float32)", dtype)
	}
	return func() {
		if had {
			tr.SetAttr(readCastKey{}, prev)
		} else {
			delete(tr.attrs, readCastKey{})
		}
	}
}

func (tr *Trace) castRead(v *Variable, dtype string) Tensor {
	delete(tr.attrs, readCastKey{})
	defer tr.SetAttr(readCastKey{}, dtype)
	return CastToComputeDType(tr.Read(v), dtype)
}
