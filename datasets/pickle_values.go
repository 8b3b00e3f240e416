package datasets

// The Python values the unpickler builds (dicts, ints past int64, quoted
// strings of protocol 0, text encodings) and their names in errors.

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// set appends keys and values (items alternate); a repeated key shadows
// the earlier one, as in Python.
func (d *pyDict) set(u *unpickler, items []any) {
	for i := 0; i+1 < len(items); i += 2 {
		d.keys = grow(u, d.keys, items[i])
		d.vals = grow(u, d.vals, items[i+1])
	}
}

// get looks a string key up, matching a str key or a bytes one (Python 2
// str keys are read as bytes; Python 3 files may use either).
func (d *pyDict) get(key string) (any, bool) {
	for i := len(d.keys) - 1; i >= 0; i-- {
		switch k := d.keys[i].(type) {
		case string:
			if k == key {
				return d.vals[i], true
			}
		case pyBytes:
			if string(k) == key {
				return d.vals[i], true
			}
		}
	}
	return nil, false
}

// keyNames lists the keys, for error messages: the first few, each cut
// short, and how many there are in all.
func (d *pyDict) keyNames() string {
	const maxKeys = 10
	var names []string
	for i, k := range d.keys {
		if i == maxKeys {
			names = append(names, fmt.Sprintf("... (%d keys)", len(d.keys)))
			break
		}
		switch k := k.(type) {
		case string:
			names = append(names, quote(k))
		case pyBytes:
			names = append(names, "b"+quote(string(k)))
		default:
			names = append(names, pyTypeName(k))
		}
	}
	return strings.Join(names, ", ")
}

// pyTypeName names a decoded value's Python type, for error messages.
func pyTypeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case pyBytes:
		return "bytes"
	case pyTuple:
		return "tuple"
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case *pySet:
		return "set"
	case pyGlobal:
		return cut(v.module) + "." + cut(v.name)
	case *npArray:
		return "numpy.ndarray"
	case *npDtype:
		return "numpy.dtype"
	}
	return fmt.Sprintf("%T", v)
}

// decodeLong decodes the little-endian two's complement of LONG1/LONG4.
func decodeLong(b []byte) any {
	if len(b) == 0 {
		return int64(0)
	}
	if len(b) <= 8 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		if shift := 64 - 8*len(b); b[len(b)-1]&0x80 != 0 {
			return int64(v<<shift) >> shift // sign-extend
		}
		if v <= math.MaxInt64 {
			return int64(v)
		}
	}
	be := make([]byte, len(b))
	for i, c := range b {
		be[len(b)-1-i] = c
	}
	n := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

func parsePyInt(s string) (any, error) {
	if len(s) <= 18 { // fits an int64; longer ones are not tried, as a failed ParseInt allocates
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return v, nil
		}
	}
	if digits := len(strings.TrimLeft(s, "+-")); digits > maxPickleIntDigits {
		return nil, pickleErrorf("integer of %d digits (Python reads at most %d; a CIFAR batch holds none over 19)", digits, maxPickleIntDigits)
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, pickleErrorf("bad integer %s", quote(s))
	}
	if n.IsInt64() {
		return n.Int64(), nil
	}
	return n, nil
}

// unquotePyString decodes the repr of a Python 2 str (STRING opcode).
func unquotePyString(s string) ([]byte, error) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return nil, pickleErrorf("bad STRING %s", quote(s))
	}
	s = s[1 : len(s)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			return nil, pickleErrorf("bad STRING escape")
		}
		switch c = s[i]; c {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'a':
			out = append(out, 7)
		case 'b':
			out = append(out, 8)
		case 'f':
			out = append(out, 12)
		case 'v':
			out = append(out, 11)
		case '\\', '\'', '"':
			out = append(out, c)
		case '\n':
		case 'x':
			if i+2 >= len(s) {
				return nil, pickleErrorf("bad STRING escape")
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return nil, pickleErrorf("bad STRING escape")
			}
			out = append(out, byte(v))
			i += 2
		default:
			if c >= '0' && c <= '7' {
				v, j := 0, i
				for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
					v = v*8 + int(s[j]-'0')
				}
				out = append(out, byte(v))
				i = j - 1
			} else {
				out = append(out, '\\', c)
			}
		}
	}
	return out, nil
}

// decodeRawUnicodeEscape decodes the UNICODE opcode's argument: latin-1
// bytes with \uXXXX and \UXXXXXXXX escapes.
func decodeRawUnicodeEscape(s []byte) (string, error) {
	var b strings.Builder
	b.Grow(rawUnicodeSize(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') {
			n := 4
			if s[i+1] == 'U' {
				n = 8
			}
			if i+2+n > len(s) {
				return "", pickleErrorf("bad UNICODE escape")
			}
			v, err := strconv.ParseUint(string(s[i+2:i+2+n]), 16, 32)
			if err != nil || v > utf8.MaxRune {
				return "", pickleErrorf("bad UNICODE escape")
			}
			b.WriteRune(rune(v))
			i += 1 + n
			continue
		}
		b.WriteRune(rune(c)) // latin-1
	}
	return b.String(), nil
}

// rawUnicodeSize bounds the size in UTF-8 of what decodeRawUnicodeEscape
// makes of s: latin-1 bytes above 0x7f take two bytes, an escape (6 or 10
// bytes) at most 4.
func rawUnicodeSize(s []byte) int {
	size := len(s)
	for _, c := range s {
		if c >= utf8.RuneSelf {
			size++
		}
	}
	return size
}

// encodeLatin1 is Python's str.encode("latin-1"), which is how Python 3
// pickles bytes at protocols 0 to 2: _codecs.encode(text, "latin1").
func encodeLatin1(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r > 0xff || (r == utf8.RuneError && size == 1) {
			return nil, pickleErrorf("text is not latin-1 encodable")
		}
		out = append(out, byte(r))
		i += size
	}
	return out, nil
}

// toBytes converts the argument list of bytes(...) and bytearray(...) as
// pickled: (), (bytes,), (text, encoding) or (list of ints,).
func toBytes(args pyTuple) ([]byte, error) {
	if len(args) == 0 {
		return []byte{}, nil
	}
	switch a := args[0].(type) {
	case pyBytes:
		return a, nil
	case string:
		if len(args) > 1 {
			return encodeText(a, args[1])
		}
	case *pyList:
		out := make([]byte, len(a.items))
		for i, it := range a.items {
			v, ok := it.(int64)
			if !ok || v < 0 || v > 255 {
				return nil, pickleErrorf("bytes from a list holding %s", pyTypeName(it))
			}
			out[i] = byte(v)
		}
		return out, nil
	}
	return nil, pickleErrorf("cannot make bytes from %s", pyTypeName(args[0]))
}

func encodeText(s string, encoding any) ([]byte, error) {
	enc, _ := encoding.(string)
	switch strings.ReplaceAll(strings.ToLower(enc), "_", "-") {
	case "latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1":
		return encodeLatin1(s)
	case "utf-8", "utf8":
		return []byte(s), nil
	}
	return nil, pickleErrorf("unsupported text encoding %s", quote(enc))
}
