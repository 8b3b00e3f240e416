package ops

import (
	le "encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

// HashBucketAttrs are the attributes of HashBucket.
type HashBucketAttrs struct {
	// NumBins is the number of buckets, the mask's included.
	NumBins int
	// Salt, when Strong is set, keys SipHash-2-4 (TensorFlow's
	// to_hash_bucket_strong); otherwise the hash is FarmHash's
	// Fingerprint64 (to_hash_bucket_fast).
	Salt   [2]uint64
	Strong bool
	// Mask, when HasMask is set, is the value that goes to bucket 0; the
	// others then go to buckets 1..NumBins-1 (Keras' mask_value).
	Mask    int64
	HasMask bool
}

// HashBucket hashes integer values (float32 carrying integers; the
// fraction is dropped) to buckets as keras.layers.Hashing does with
// integer inputs: the value's decimal string hashed by Fingerprint64, or
// by SipHash-2-4 keyed by the salt, modulo the number of buckets. It has
// no gradient.
func HashBucket(x Tensor, a HashBucketAttrs) Tensor {
	tr := sameTrace("HashBucket", x)
	if a.NumBins <= 0 {
		fail("HashBucket", "num_bins must be positive, got %d", a.NumBins)
	}
	return tr.apply(&Op{
		name: "HashBucket", out: x.Shape(), attrs: a, wrt: []bool{false},
		fwd: func(o []float32, in [][]float32) {
			x := in[0][:len(o)]
			parallelElems(len(o), func(lo, hi int) {
				var buf [24]byte
				for i := lo; i < hi; i++ {
					o[i] = float32(hashBucket(x[i], a, buf[:0]))
				}
			})
		},
	}, x)
}

func hashBucket(v float32, a HashBucketAttrs, buf []byte) int {
	f := math.Trunc(float64(v))
	if f != f {
		f = 0
	}
	n := int64(max(min(f, math.MaxInt64), math.MinInt64))
	bins, off := uint64(a.NumBins), 0
	if a.HasMask && a.NumBins > 1 {
		if n == a.Mask {
			return 0
		}
		bins, off = bins-1, 1
	}
	s := strconv.AppendInt(buf, n, 10)
	var h uint64
	if a.Strong {
		h = sipHash24(a.Salt[0], a.Salt[1], s)
	} else {
		h = fingerprint64(s)
	}
	return int(h%bins) + off
}

// FarmHash's Fingerprint64 for strings of at most 32 bytes (a 64-bit
// integer's decimal form has at most 20).
const (
	fhK0 = 0xc3a5c85c97cb3127
	fhK1 = 0xb492b66fbe98f273
	fhK2 = 0x9ae16a3b2f90404f
)

func fhMix(u, v, mul uint64) uint64 {
	a := (u ^ v) * mul
	a ^= a >> 47
	b := (v ^ a) * mul
	b ^= b >> 47
	return b * mul
}

func fingerprint64(s []byte) uint64 {
	n := uint64(len(s))
	ror := func(x uint64, r int) uint64 { return bits.RotateLeft64(x, -r) }
	le64 := func(i int) uint64 { return le.LittleEndian.Uint64(s[i:]) }
	le32 := func(i int) uint64 { return uint64(le.LittleEndian.Uint32(s[i:])) }
	switch {
	case n > 32:
		panic("ops: fingerprint64 of more than 32 bytes")
	case n > 16:
		mul := fhK2 + n*2
		a := le64(0) * fhK1
		b := le64(8)
		c := le64(len(s)-8) * mul
		d := le64(len(s)-16) * fhK2
		return fhMix(ror(a+b, 43)+ror(c, 30)+d, a+ror(b+fhK2, 18)+c, mul)
	case n >= 8:
		mul := fhK2 + n*2
		a := le64(0) + fhK2
		b := le64(len(s) - 8)
		c := ror(b, 37)*mul + a
		d := (ror(a, 25) + b) * mul
		return fhMix(c, d, mul)
	case n >= 4:
		mul := fhK2 + n*2
		return fhMix(n+(le32(0)<<3), le32(len(s)-4), mul)
	case n > 0:
		y := uint32(s[0]) + uint32(s[n>>1])<<8
		z := uint32(n) + uint32(s[n-1])<<2
		v := uint64(y)*fhK2 ^ uint64(z)*fhK0
		return (v ^ v>>47) * fhK2
	}
	return fhK2
}

// sipHash24 is SipHash-2-4 keyed by (k0, k1).
func sipHash24(k0, k1 uint64, s []byte) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13) ^ v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16) ^ v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21) ^ v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17) ^ v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	block := func(m uint64) {
		v3 ^= m
		round()
		round()
		v0 ^= m
	}
	i := 0
	for ; i+8 <= len(s); i += 8 {
		block(le.LittleEndian.Uint64(s[i:]))
	}
	last := uint64(len(s)) << 56
	for j := 0; i+j < len(s); j++ {
		last |= uint64(s[i+j]) << (8 * j)
	}
	block(last)
	v2 ^= 0xff
	for range 4 {
		round()
	}
	return v0 ^ v1 ^ v2 ^ v3
}
