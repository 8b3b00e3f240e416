package datasets

// The pickle opcodes of protocols 0 to 5, one case each: what the
// unpickler (pickle.go) does with them, every length checked against the
// bytes left and every value charged against the budget (pickle_limits.go).

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
)

// step runs one opcode, op, whose operands follow it at u.pos.
func (u *unpickler) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		b, err := u.read(1)
		if err != nil {
			return err
		}
		if b[0] > 5 {
			return pickleErrorf("unsupported pickle protocol %d", b[0])
		}
	case 0x95: // FRAME: the frame's length is only a buffering hint
		if _, err := u.read(8); err != nil {
			return err
		}
	case '(': // MARK
		u.marks = grow(u, u.marks, len(u.stack))
	case '0': // POP
		if !u.underflow() {
			u.popSlot()
		} else if _, _, err := u.popMark(); err != nil {
			return pickleErrorf("stack underflow")
		}
	case '1': // POP_MARK
		if _, _, err := u.popMark(); err != nil {
			return err
		}
	case '2': // DUP
		s, err := u.topSlot()
		if err != nil {
			return err
		}
		u.pushDepth(s.v, s.depth)

	// Scalars.
	case 'N':
		u.push(nil)
	case 0x88: // NEWTRUE
		u.push(true)
	case 0x89: // NEWFALSE
		u.push(false)
	case 'K': // BININT1
		b, err := u.read(1)
		if err != nil {
			return err
		}
		u.push(int64(b[0]))
	case 'M': // BININT2
		b, err := u.read(2)
		if err != nil {
			return err
		}
		u.push(int64(binary.LittleEndian.Uint16(b)))
	case 'J': // BININT
		b, err := u.read(4)
		if err != nil {
			return err
		}
		u.push(int64(int32(binary.LittleEndian.Uint32(b))))
	case 0x8a, 0x8b: // LONG1, LONG4
		size := 1
		if op == 0x8b {
			size = 4
			if b, err := u.read(4); err != nil {
				return err
			} else if n := binary.LittleEndian.Uint32(b); n > maxPickleLongBytes {
				return pickleErrorf("LONG4 integer of %d bytes (a CIFAR batch holds none over 8; at most %d are read)", n, maxPickleLongBytes)
			}
			u.pos -= 4
		}
		b, err := u.readLen(size)
		if err != nil {
			return err
		}
		if err := u.charge(costObject + 2*len(b)); err != nil {
			return err
		}
		u.push(decodeLong(b))
	case 'I': // INT (text); "00" and "01" are False and True
		s, err := u.readLine()
		if err != nil {
			return err
		}
		switch s {
		case "00":
			u.push(false)
		case "01":
			u.push(true)
		default:
			if err := u.charge(costObject + len(s)); err != nil {
				return err
			}
			v, err := parsePyInt(s)
			if err != nil {
				return err
			}
			u.push(v)
		}
	case 'L': // LONG (text)
		s, err := u.readLine()
		if err != nil {
			return err
		}
		if err := u.charge(costObject + len(s)); err != nil {
			return err
		}
		v, err := parsePyInt(strings.TrimSuffix(s, "L"))
		if err != nil {
			return err
		}
		u.push(v)
	case 'G': // BINFLOAT
		b, err := u.read(8)
		if err != nil {
			return err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case 'F': // FLOAT (text)
		s, err := u.readLine()
		if err != nil {
			return err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return pickleErrorf("bad FLOAT %s", quote(s))
		}
		u.push(f)

	// Strings and bytes. Counted ones are slices of the file, not copies.
	case 'U', 'T': // SHORT_BINSTRING, BINSTRING: Python 2 str, read as bytes
		size := 1
		if op == 'T' {
			size = 4
			if u.pos+4 <= len(u.data) && int32(binary.LittleEndian.Uint32(u.data[u.pos:])) < 0 {
				return pickleErrorf("negative BINSTRING length")
			}
		}
		b, err := u.readLen(size)
		if err != nil {
			return err
		}
		u.push(pyBytes(b))
	case 'C', 'B', 0x8e: // SHORT_BINBYTES, BINBYTES, BINBYTES8
		b, err := u.readLen(lenSize(op))
		if err != nil {
			return err
		}
		u.push(pyBytes(b))
	case 0x96: // BYTEARRAY8
		b, err := u.readLen(8)
		if err != nil {
			return err
		}
		u.push(pyBytes(b))
	case 0x8c, 'X', 0x8d: // SHORT_BINUNICODE, BINUNICODE, BINUNICODE8
		b, err := u.readLen(lenSize(op))
		if err != nil {
			return err
		}
		if err := u.chargeCopy(len(b)); err != nil {
			return err
		}
		u.push(string(b))
	case 'S': // STRING (text, a Python 2 str literal)
		s, err := u.readLine()
		if err != nil {
			return err
		}
		if err := u.chargeCopy(len(s)); err != nil {
			return err
		}
		b, err := unquotePyString(s)
		if err != nil {
			return err
		}
		u.push(pyBytes(b))
	case 'V': // UNICODE (text, raw-unicode-escape)
		line, err := u.readLineBytes()
		if err != nil {
			return err
		}
		if err := u.chargeCopy(rawUnicodeSize(line)); err != nil {
			return err
		}
		v, err := decodeRawUnicodeEscape(line)
		if err != nil {
			return err
		}
		u.push(v)

	// Containers.
	case ')':
		u.push(pyTuple{})
	case ']':
		u.charge(costObject)
		u.push(&pyList{})
	case '}':
		u.charge(costObject)
		u.push(&pyDict{})
	case 0x8f: // EMPTY_SET
		u.charge(costObject)
		u.push(&pySet{})
	case 't', 'l', 'd', 0x91: // TUPLE, LIST, DICT, FROZENSET (items since MARK)
		items, depth, err := u.popMark()
		if err != nil {
			return err
		}
		if len(items) > 0 {
			if depth, err = deeper(0, depth); err != nil {
				return err
			}
		}
		switch op {
		case 't':
			u.pushDepth(pyTuple(items), depth)
		case 'l':
			u.charge(costObject)
			u.pushDepth(&pyList{items: items}, depth)
		case 0x91:
			u.charge(costObject)
			u.pushDepth(&pySet{items: items}, depth)
		case 'd':
			if len(items)%2 != 0 {
				return pickleErrorf("DICT with an odd number of items")
			}
			u.charge(costObject)
			d := &pyDict{}
			d.set(u, items)
			u.pushDepth(d, depth)
		}
	case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
		n := int(op-0x85) + 1
		if len(u.stack) < n || (len(u.marks) > 0 && len(u.stack)-n < u.marks[len(u.marks)-1]) {
			return pickleErrorf("stack underflow")
		}
		if err := u.charge(costItem * n); err != nil {
			return err
		}
		t := make(pyTuple, n)
		depth := 0
		for i, s := range u.stack[len(u.stack)-n:] {
			t[i] = s.v
			depth = max(depth, s.depth)
		}
		depth, err := deeper(0, depth)
		if err != nil {
			return err
		}
		clear(u.stack[len(u.stack)-n:])
		u.stack = u.stack[:len(u.stack)-n]
		u.pushDepth(t, depth)
	case 'a': // APPEND
		s, err := u.popSlot()
		if err != nil {
			return err
		}
		return u.appendTo([]any{s.v}, s.depth)
	case 'e': // APPENDS
		items, depth, err := u.popMark()
		if err != nil {
			return err
		}
		return u.appendTo(items, depth)
	case 0x90: // ADDITEMS
		items, depth, err := u.popMark()
		if err != nil {
			return err
		}
		t, err := u.topSlot()
		if err != nil {
			return err
		}
		s, ok := t.v.(*pySet)
		if !ok {
			return pickleErrorf("ADDITEMS to a %s", pyTypeName(t.v))
		}
		if len(items) > 0 {
			if t.depth, err = deeper(t.depth, depth); err != nil {
				return err
			}
		}
		s.items = grow(u, s.items, items...)
	case 's': // SETITEM
		v, err := u.popSlot()
		if err != nil {
			return err
		}
		k, err := u.popSlot()
		if err != nil {
			return err
		}
		return u.setItems([]any{k.v, v.v}, max(k.depth, v.depth))
	case 'u': // SETITEMS
		items, depth, err := u.popMark()
		if err != nil {
			return err
		}
		if len(items)%2 != 0 {
			return pickleErrorf("SETITEMS with an odd number of items")
		}
		return u.setItems(items, depth)

	// Memo.
	case 'p', 'q', 'r', 0x94: // PUT, BINPUT, LONG_BINPUT, MEMOIZE
		var idx int
		switch op {
		case 'p':
			s, err := u.readLine()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return pickleErrorf("bad PUT index %s", quote(s))
			}
			idx = n
		case 'q':
			b, err := u.read(1)
			if err != nil {
				return err
			}
			idx = int(b[0])
		case 'r':
			b, err := u.read(4)
			if err != nil {
				return err
			}
			idx = int(binary.LittleEndian.Uint32(b))
		case 0x94:
			idx = len(u.memo)
		}
		s, err := u.topSlot()
		if err != nil {
			return err
		}
		if _, ok := u.memo[idx]; !ok {
			if err := u.charge(costMemo); err != nil {
				return err
			}
		}
		u.memo[idx] = *s
	case 'g', 'h', 'j': // GET, BINGET, LONG_BINGET
		var idx int
		switch op {
		case 'g':
			s, err := u.readLine()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				return pickleErrorf("bad GET index %s", quote(s))
			}
			idx = n
		case 'h':
			b, err := u.read(1)
			if err != nil {
				return err
			}
			idx = int(b[0])
		case 'j':
			b, err := u.read(4)
			if err != nil {
				return err
			}
			idx = int(binary.LittleEndian.Uint32(b))
		}
		s, ok := u.memo[idx]
		if !ok {
			return pickleErrorf("memo key %d missing", idx)
		}
		u.pushDepth(s.v, s.depth)

	// Globals, calls and object state.
	case 'c': // GLOBAL
		mod, err := u.readLine()
		if err != nil {
			return err
		}
		name, err := u.readLine()
		if err != nil {
			return err
		}
		u.charge(costObject)
		u.push(pyGlobal{mod, name})
	case 0x93: // STACK_GLOBAL
		name, err := u.pop()
		if err != nil {
			return err
		}
		mod, err := u.pop()
		if err != nil {
			return err
		}
		ms, ok1 := mod.(string)
		ns, ok2 := name.(string)
		if !ok1 || !ok2 {
			return pickleErrorf("STACK_GLOBAL with non-string names")
		}
		u.charge(costObject)
		u.push(pyGlobal{ms, ns})
	case 'R': // REDUCE
		args, err := u.popSlot()
		if err != nil {
			return err
		}
		fn, err := u.pop()
		if err != nil {
			return err
		}
		t, ok := args.v.(pyTuple)
		if !ok {
			return pickleErrorf("REDUCE arguments are a %s, not a tuple", pyTypeName(args.v))
		}
		return u.call(fn, t, args.depth)
	case 0x81: // NEWOBJ: cls.__new__(cls, *args)
		args, err := u.popSlot()
		if err != nil {
			return err
		}
		cls, err := u.pop()
		if err != nil {
			return err
		}
		t, ok := args.v.(pyTuple)
		if !ok {
			return pickleErrorf("NEWOBJ arguments are a %s, not a tuple", pyTypeName(args.v))
		}
		return u.call(cls, t, args.depth)
	case 0x92: // NEWOBJ_EX
		kwargs, err := u.pop()
		if err != nil {
			return err
		}
		args, err := u.popSlot()
		if err != nil {
			return err
		}
		cls, err := u.pop()
		if err != nil {
			return err
		}
		t, ok := args.v.(pyTuple)
		if kw, isDict := kwargs.(*pyDict); !ok || !isDict || len(kw.keys) != 0 {
			return pickleErrorf("NEWOBJ_EX of %s with keyword arguments", pyTypeName(cls))
		}
		return u.call(cls, t, args.depth)
	case 'i': // INST: module\nname\n, arguments since MARK
		mod, err := u.readLine()
		if err != nil {
			return err
		}
		name, err := u.readLine()
		if err != nil {
			return err
		}
		args, depth, err := u.popMark()
		if err != nil {
			return err
		}
		return u.call(pyGlobal{mod, name}, pyTuple(args), depth+1)
	case 'o': // OBJ: class and arguments since MARK
		items, depth, err := u.popMark()
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return pickleErrorf("OBJ without a class")
		}
		return u.call(items[0], pyTuple(items[1:]), depth+1)
	case 'b': // BUILD
		state, err := u.pop()
		if err != nil {
			return err
		}
		obj, err := u.top()
		if err != nil {
			return err
		}
		if err := u.charge(costShape); err != nil {
			return err
		}
		return build(obj, state)
	case 0x98: // READONLY_BUFFER: bytes stay bytes
		if _, err := u.top(); err != nil {
			return err
		}
	case 0x97: // NEXT_BUFFER
		return pickleErrorf("out-of-band buffers (pickle protocol 5 with buffer_callback) are not supported")
	case 'P', 'Q':
		return pickleErrorf("persistent ids are not supported")
	case 0x82, 0x83, 0x84:
		return pickleErrorf("extension codes (copyreg.add_extension) are not supported")
	default:
		return pickleErrorf("unknown opcode 0x%02x: not a pickle", op)
	}
	return nil
}
