package layers

import (
	"encoding/binary"
	"math/bits"
)

// FarmHash's Fingerprint64 (farmhashna's Hash64), which TensorFlow's
// tf.strings.to_hash_bucket_fast uses: StringLookup with more than one OOV
// index puts an unknown token in OOV bucket Fingerprint64(token) mod n.
const (
	farmK0 = 0xc3a5c85c97cb3127
	farmK1 = 0xb492b66fbe98f273
	farmK2 = 0x9ae16a3b2f90404f
)

func farmMix16(u, v, mul uint64) uint64 {
	a := (u ^ v) * mul
	a ^= a >> 47
	b := (v ^ a) * mul
	b ^= b >> 47
	return b * mul
}

func farmShiftMix(v uint64) uint64 { return v ^ v>>47 }

func farmRor(x uint64, r int) uint64 { return bits.RotateLeft64(x, -r) }

func farm64(s []byte, i int) uint64 { return binary.LittleEndian.Uint64(s[i:]) }

// farmWeak32 is farmhash's WeakHashLen32WithSeeds over s[i:i+32].
func farmWeak32(s []byte, i int, a, b uint64) (uint64, uint64) {
	w, x, y, z := farm64(s, i), farm64(s, i+8), farm64(s, i+16), farm64(s, i+24)
	a += w
	b = farmRor(b+a+z, 21)
	c := a
	a += x + y
	b += farmRor(a, 44)
	return a + z, b + c
}

// fingerprint64 is FarmHash's Fingerprint64 of s.
func fingerprint64(s []byte) uint64 {
	n := len(s)
	un := uint64(n)
	switch {
	case n == 0:
		return farmK2
	case n < 4:
		y := uint32(s[0]) + uint32(s[n>>1])<<8
		z := uint32(n) + uint32(s[n-1])<<2
		return farmShiftMix(uint64(y)*farmK2^uint64(z)*farmK0) * farmK2
	case n < 8:
		mul := farmK2 + un*2
		a := uint64(binary.LittleEndian.Uint32(s))
		return farmMix16(un+a<<3, uint64(binary.LittleEndian.Uint32(s[n-4:])), mul)
	case n <= 16:
		mul := farmK2 + un*2
		a := farm64(s, 0) + farmK2
		b := farm64(s, n-8)
		c := farmRor(b, 37)*mul + a
		d := (farmRor(a, 25) + b) * mul
		return farmMix16(c, d, mul)
	case n <= 32:
		mul := farmK2 + un*2
		a := farm64(s, 0) * farmK1
		b := farm64(s, 8)
		c := farm64(s, n-8) * mul
		d := farm64(s, n-16) * farmK2
		return farmMix16(farmRor(a+b, 43)+farmRor(c, 30)+d, a+farmRor(b+farmK2, 18)+c, mul)
	case n <= 64:
		mul := farmK2 + un*2
		a := farm64(s, 0) * farmK2
		b := farm64(s, 8)
		c := farm64(s, n-8) * mul
		d := farm64(s, n-16) * farmK2
		y := farmRor(a+b, 43) + farmRor(c, 30) + d
		z := farmMix16(y, a+farmRor(b+farmK2, 18)+c, mul)
		e := farm64(s, 16) * mul
		f := farm64(s, 24)
		g := (y + farm64(s, n-32)) * mul
		h := (z + farm64(s, n-24)) * mul
		return farmMix16(farmRor(e+f, 43)+farmRor(g, 30)+h, e+farmRor(f+a, 18)+g, mul)
	}
	seed := uint64(81)
	x := seed
	y := seed*farmK1 + 113
	z := farmShiftMix(y*farmK2+113) * farmK2
	var v1, v2, w1, w2 uint64
	x = x*farmK2 + farm64(s, 0)
	end := (n - 1) / 64 * 64
	last := end + (n-1)&63 - 63
	for i := 0; i != end; i += 64 {
		x = farmRor(x+y+v1+farm64(s, i+8), 37) * farmK1
		y = farmRor(y+v2+farm64(s, i+48), 42) * farmK1
		x ^= w2
		y += v1 + farm64(s, i+40)
		z = farmRor(z+w1, 33) * farmK1
		v1, v2 = farmWeak32(s, i, v2*farmK1, x+w1)
		w1, w2 = farmWeak32(s, i+32, z+w2, y+farm64(s, i+16))
		x, z = z, x
	}
	mul := farmK1 + (z&0xff)<<1
	w1 += uint64(n-1) & 63
	v1 += w1
	w1 += v1
	x = farmRor(x+y+v1+farm64(s, last+8), 37) * mul
	y = farmRor(y+v2+farm64(s, last+48), 42) * mul
	x ^= w2 * 9
	y += v1*9 + farm64(s, last+40)
	z = farmRor(z+w1, 33) * mul
	v1, v2 = farmWeak32(s, last, v2*mul, x+w1)
	w1, w2 = farmWeak32(s, last+32, z+w2, y+farm64(s, last+16))
	x, z = z, x
	return farmMix16(farmMix16(v1, w1, mul)+farmShiftMix(y)*farmK0+z, farmMix16(v2, w2, mul)+x, mul)
}
