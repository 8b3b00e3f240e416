package hdf5

import "math/bits"

// lookup3 is Bob Jenkins' hashlittle (lookup3.c) with initial value 0, the
// checksum HDF5 puts on version 2 superblocks, object headers, heaps and
// B-trees.
func lookup3(k []byte) uint32 {
	var a, b, c uint32
	a = 0xdeadbeef + uint32(len(k))
	b, c = a, a
	rot := bits.RotateLeft32
	for len(k) > 12 {
		a += le32(k[0:])
		b += le32(k[4:])
		c += le32(k[8:])
		a -= c
		a ^= rot(c, 4)
		c += b
		b -= a
		b ^= rot(a, 6)
		a += c
		c -= b
		c ^= rot(b, 8)
		b += a
		a -= c
		a ^= rot(c, 16)
		c += b
		b -= a
		b ^= rot(a, 19)
		a += c
		c -= b
		c ^= rot(b, 4)
		b += a
		k = k[12:]
	}
	if len(k) == 0 {
		return c
	}
	var tail [12]byte
	copy(tail[:], k)
	a += le32(tail[0:])
	b += le32(tail[4:])
	c += le32(tail[8:])
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return c
}

// ignoreChecksums lets tests feed corrupted structures past the checksums
// to the parsers behind them; it is never set outside tests.
var ignoreChecksums = false

// checksumOK reports whether stored is the checksum of data.
func checksumOK(stored uint32, data []byte) bool {
	return ignoreChecksums || stored == lookup3(data)
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
