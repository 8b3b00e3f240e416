// Package psrpc holds the gRPC messages and services of
// distribute.ParameterServerStrategy (psrpc.proto; regenerate with gen.sh)
// and the codec of the tensors they carry: raw little-endian float32.
package psrpc

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// littleEndian is whether this machine stores float32 as the wire does,
// so that tensors are copied as bytes (amd64, arm64) instead of converted
// one value at a time.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// MaxMessageBytes bounds one gRPC message (send and receive): 1 GiB, a
// 256M-float variable or shard.
const MaxMessageBytes = 1 << 30

// EncodeFloat32s returns x as little-endian float32 bytes.
func EncodeFloat32s(x []float32) []byte {
	b := make([]byte, 4*len(x))
	if littleEndian && len(x) > 0 {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x)))
		return b
	}
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// DecodeFloat32sInto decodes b into dst, which must have exactly len(b)/4
// elements; what names the tensor in the error.
func DecodeFloat32sInto(dst []float32, b []byte, what string) error {
	if len(b) != 4*len(dst) {
		return fmt.Errorf("%s: %d bytes, want %d (%d float32 values)", what, len(b), 4*len(dst), len(dst))
	}
	if littleEndian && len(dst) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*len(dst)), b)
		return nil
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return nil
}

// DecodeFloat32s decodes b, whose length must be a multiple of 4.
func DecodeFloat32s(b []byte, what string) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%s: %d bytes is not a whole number of float32 values", what, len(b))
	}
	x := make([]float32, len(b)/4)
	return x, DecodeFloat32sInto(x, b, what)
}

// ShapeSize returns the number of elements of shape, or an error naming
// what when a dimension is negative or the product exceeds limit.
func ShapeSize(shape []int64, limit int64, what string) (int, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("%s: negative dimension in shape %v", what, shape)
		}
		if d != 0 && n > limit/d {
			return 0, fmt.Errorf("%s: shape %v has more than %d elements", what, shape, limit)
		}
		n *= d
	}
	return int(n), nil
}
