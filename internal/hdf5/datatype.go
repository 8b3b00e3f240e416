package hdf5

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// dtype is a decoded datatype message, reduced to what Value can hold.
type dtype struct {
	class   byte // 0 fixed-point, 1 float, 3 string, 8 enum (bool), 9 vlen string
	size    int
	be      bool
	signed  bool
	strPad  byte // 0 null terminated, 1 null padded, 2 space padded
	isBool  bool // h5py's enum bool
	vlenStr bool
	opaque  bool // opaque bytes: only Keras' bfloat16 (a "dtype" attribute says so) decodes
	bf16    bool
}

// parseDatatype decodes the datatype message at the start of b and
// returns it with the bytes it took.
func parseDatatype(b []byte, depth int) (dtype, int, error) {
	if depth > 4 {
		return dtype{}, 0, errors.New("datatype nested too deeply")
	}
	r := &rd{b: b}
	cv := r.u8()
	bf := r.bytes(3)
	size := r.u32()
	if r.err != nil {
		return dtype{}, 0, fmt.Errorf("datatype: %w", r.err)
	}
	t := dtype{class: cv & 0x0f, size: int(size)}
	version := cv >> 4
	switch t.class {
	case 0: // fixed-point
		t.be = bf[0]&1 != 0
		t.signed = bf[0]&8 != 0
		off, prec := r.u16(), r.u16()
		if r.err != nil {
			return t, 0, fmt.Errorf("fixed-point datatype: %w", r.err)
		}
		switch t.size {
		case 1, 2, 4, 8:
		default:
			return t, 0, fmt.Errorf("unsupported %d-byte integer", t.size)
		}
		if off != 0 || int(prec) != 8*t.size {
			return t, 0, fmt.Errorf("unsupported integer with bit offset %d, precision %d", off, prec)
		}
	case 1: // floating-point
		t.be = bf[0]&1 != 0
		if bf[0]&0x40 != 0 {
			return t, 0, errors.New("VAX-order floats are not supported")
		}
		off, prec := r.u16(), r.u16()
		el, es, ml, ms := r.u8(), r.u8(), r.u8(), r.u8()
		bias := r.u32()
		if r.err != nil {
			return t, 0, fmt.Errorf("float datatype: %w", r.err)
		}
		ok := off == 0 && int(prec) == 8*t.size && ml == 0 && int(bf[1]) == 8*t.size-1
		switch t.size {
		case 2:
			ok = ok && el == 10 && es == 5 && ms == 10 && bias == 15
		case 4:
			ok = ok && el == 23 && es == 8 && ms == 23 && bias == 127
		case 8:
			ok = ok && el == 52 && es == 11 && ms == 52 && bias == 1023
		default:
			ok = false
		}
		if !ok {
			return t, 0, fmt.Errorf("unsupported %d-byte float layout (only IEEE 754 binary16/32/64)", t.size)
		}
	case 3: // fixed-length string
		t.strPad = bf[0] & 0x0f
		if t.size == 0 {
			return t, 0, errors.New("fixed-length string of size 0")
		}
	case 8: // enumeration
		base, n, err := parseDatatype(b[r.off:], depth+1)
		if err != nil {
			return t, 0, fmt.Errorf("enum base: %w", err)
		}
		r.skip(n)
		if base.class != 0 || base.size != t.size {
			return t, 0, errors.New("enum over a non-integer base type")
		}
		members := int(bf[0]) | int(bf[1])<<8
		names := make([]string, 0, min(members, 64))
		for i := 0; i < members; i++ {
			rest := b[min(r.off, len(b)):]
			k := bytes.IndexByte(rest, 0)
			if k < 0 {
				return t, 0, errors.New("enum member name not terminated")
			}
			names = append(names, string(rest[:k]))
			if version < 3 {
				r.skip((k + 8) &^ 7)
			} else {
				r.skip(k + 1)
			}
		}
		vals := r.bytes(members * t.size)
		if r.err != nil {
			return t, 0, fmt.Errorf("enum datatype: %w", r.err)
		}
		t = base
		t.isBool = members == 2 && t.size == 1 && names[0] == "FALSE" && names[1] == "TRUE" &&
			vals[0] == 0 && vals[1] == 1
	case 5: // opaque (h5py's numpy void, Keras 3's bfloat16)
		r.skip(int(bf[0]))
		t.opaque = true
	case 9: // variable-length
		if bf[0]&0x0f != 1 {
			return t, 0, errors.New("variable-length sequences are not supported (only strings)")
		}
		_, n, err := parseDatatype(b[r.off:], depth+1)
		if err != nil {
			return t, 0, fmt.Errorf("variable-length string base: %w", err)
		}
		r.skip(n)
		t.vlenStr = true
	default:
		return t, 0, fmt.Errorf("unsupported datatype class %d (%s)", t.class, className(t.class))
	}
	if r.err != nil {
		return t, 0, fmt.Errorf("datatype: %w", r.err)
	}
	return t, r.off, nil
}

func className(c byte) string {
	names := []string{"fixed-point", "floating-point", "time", "string", "bitfield", "opaque",
		"compound", "reference", "enum", "variable-length", "array"}
	if int(c) < len(names) {
		return names[c]
	}
	return "unknown"
}

// goSize is the bytes one element takes in Value.
func (t dtype) goSize() uint64 {
	switch {
	case (t.class == 1 || t.bf16) && t.size == 2:
		return 4
	case t.class == 3 || t.vlenStr:
		return 16 // string header; the bytes are charged separately
	}
	return uint64(t.size)
}

// decodeFixed turns n stored elements into a Value (every type except
// variable-length strings).
func decodeFixed(t dtype, raw []byte, n int) (any, error) {
	if len(raw) < n*t.size {
		return nil, fmt.Errorf("%d bytes hold fewer than %d elements", len(raw), n)
	}
	u := func(i int) uint64 {
		if !t.be {
			switch t.size {
			case 4:
				return uint64(binary.LittleEndian.Uint32(raw[4*i:]))
			case 8:
				return binary.LittleEndian.Uint64(raw[8*i:])
			case 2:
				return uint64(binary.LittleEndian.Uint16(raw[2*i:]))
			}
		}
		b := raw[i*t.size : (i+1)*t.size]
		var v uint64
		for k := range b {
			if t.be {
				v = v<<8 | uint64(b[k])
			} else {
				v |= uint64(b[k]) << (8 * uint(k))
			}
		}
		return v
	}
	switch {
	case t.bf16:
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(uint32(u(i)) << 16)
		}
		return out, nil
	case t.opaque:
		return nil, fmt.Errorf("opaque %d-byte data (only bfloat16 marked by a \"dtype\" attribute, as Keras 3 writes it, is supported)", t.size)
	case t.class == 3:
		out := make([]string, n)
		for i := range out {
			s := raw[i*t.size : (i+1)*t.size]
			switch t.strPad {
			case 0:
				s = []byte(cstring(s))
			case 2:
				s = bytes.TrimRight(s, " ")
			default:
				s = bytes.TrimRight(s, "\x00")
			}
			out[i] = string(s)
		}
		return out, nil
	case t.isBool:
		out := make([]bool, n)
		for i := range out {
			out[i] = raw[i] != 0
		}
		return out, nil
	case t.class == 1:
		switch t.size {
		case 2:
			out := make([]float32, n)
			for i := range out {
				out[i] = half(uint16(u(i)))
			}
			return out, nil
		case 4:
			out := make([]float32, n)
			for i := range out {
				out[i] = math.Float32frombits(uint32(u(i)))
			}
			return out, nil
		default:
			out := make([]float64, n)
			for i := range out {
				out[i] = math.Float64frombits(u(i))
			}
			return out, nil
		}
	case t.class == 0:
		switch {
		case t.size == 1 && t.signed:
			out := make([]int8, n)
			for i := range out {
				out[i] = int8(raw[i])
			}
			return out, nil
		case t.size == 1:
			out := make([]uint8, n)
			copy(out, raw)
			return out, nil
		case t.size == 2 && t.signed:
			out := make([]int16, n)
			for i := range out {
				out[i] = int16(u(i))
			}
			return out, nil
		case t.size == 2:
			out := make([]uint16, n)
			for i := range out {
				out[i] = uint16(u(i))
			}
			return out, nil
		case t.size == 4 && t.signed:
			out := make([]int32, n)
			for i := range out {
				out[i] = int32(u(i))
			}
			return out, nil
		case t.size == 4:
			out := make([]uint32, n)
			for i := range out {
				out[i] = uint32(u(i))
			}
			return out, nil
		case t.signed:
			out := make([]int64, n)
			for i := range out {
				out[i] = int64(u(i))
			}
			return out, nil
		default:
			out := make([]uint64, n)
			for i := range out {
				out[i] = u(i)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("datatype class %d has no fixed decoding", t.class)
}

// half converts an IEEE 754 binary16 to float32.
func half(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		f := float32(mant) / (1 << 24) // subnormal: mant * 2^-24
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// emptyValue is a zero-length Value of t's type.
func emptyValue(t dtype) any {
	v, _ := decodeFixed(dtype{class: t.class, size: t.size, signed: t.signed, isBool: t.isBool}, nil, 0)
	if t.vlenStr || v == nil {
		return []string{}
	}
	return v
}
