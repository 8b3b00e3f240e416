package datasets

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// The pickle of a numpy object array of integer lists, as np.save writes
// x_train of Keras' imdb.npz and x of reuters.npz: numpy's _reconstruct,
// a dtype "O", then BUILD with a list of lists of Python ints. This reader
// is separate from the general one (pickle.go) because of size: the IMDB
// arrays hold six million ints, which it keeps as int32 in one list each
// instead of boxed values, within a budget proportional to the file. It
// accepts only what such a pickle holds (protocols 0 to 5), calls only
// numpy's _reconstruct and dtype and _codecs.encode, and never runs code.

// Limits of the object-array reader. A real review has a few thousand
// ids; the stack holds one review's ids at most.
const (
	maxSeqStack = 1 << 20 // values on the stack (and marks)
	maxSeqMemo  = 1 << 22 // memo entries
)

type seqKind uint8

const (
	seqInt    seqKind = 1
	seqStr    seqKind = 2
	seqNone   seqKind = 3
	seqBool   seqKind = 4
	seqTuple  seqKind = 5
	seqList   seqKind = 6
	seqGlobal seqKind = 7
	seqDtype  seqKind = 8
	seqArray  seqKind = 9
)

// seqVal is a value on the reader's stack.
type seqVal struct {
	kind seqKind
	i    int64
	s    string // str, bytes, a global's "module name", a dtype's descr
	tup  []seqVal
	list *seqIntLists
}

// seqIntLists is a Python list of ints or of lists (never both).
type seqIntLists struct {
	ints  []int32
	lists []*seqIntLists
}

func (v seqVal) describe() string {
	switch v.kind {
	case seqInt:
		return "int"
	case seqStr:
		return "str"
	case seqNone:
		return "None"
	case seqBool:
		return "bool"
	case seqTuple:
		return "tuple"
	case seqList:
		return "list"
	case seqGlobal:
		return strconv.Quote(v.s)
	case seqDtype:
		return "numpy dtype " + strconv.Quote(v.s)
	case seqArray:
		return "numpy array"
	}
	return "nothing"
}

type seqReader struct {
	data  []byte
	pos   int
	stack []seqVal
	marks []int
	memo  map[int]seqVal
}

func seqErrorf(format string, args ...any) error {
	return &pickleError{msg: fmt.Sprintf(format, args...)}
}

// readSequencePickle decodes the pickle of a 1-D numpy object array of n
// integer lists and returns the lists.
func readSequencePickle(data []byte, n int) (out [][]int, err error) {
	r := &seqReader{data: data, memo: map[int]seqVal{}}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, seqErrorf("corrupt pickle at byte %d (decoder panic: %v)", r.pos, p)
		}
	}()
	v, err := r.run()
	if err != nil {
		return nil, fmt.Errorf("pickle byte %d: %w", r.pos, err)
	}
	if v.kind != seqArray || v.list == nil {
		return nil, seqErrorf("the pickle holds a %s, not a numpy object array", v.describe())
	}
	if len(v.list.lists) != n && !(n == 0 && len(v.list.ints) == 0) {
		return nil, seqErrorf("the array holds %d lists, its header says %d", len(v.list.lists), n)
	}
	// Lists may be shared (memo references): the output is bounded by
	// the input's size, as every id of a real file costs it a byte or more.
	total := 0
	for _, l := range v.list.lists {
		if len(l.lists) > 0 {
			return nil, seqErrorf("an element is a list of lists, not of ints")
		}
		total += len(l.ints)
		if total > len(data) {
			return nil, seqErrorf("the lists hold more ids than the %d bytes of the pickle can (shared lists?)", len(data))
		}
	}
	flat := make([]int, 0, total)
	out = make([][]int, len(v.list.lists))
	for i, l := range v.list.lists {
		start := len(flat)
		for _, x := range l.ints {
			flat = append(flat, int(x))
		}
		out[i] = flat[start:len(flat):len(flat)]
	}
	return out, nil
}

func (r *seqReader) need(n int) ([]byte, error) {
	if n < 0 || n > len(r.data)-r.pos {
		return nil, seqErrorf("truncated pickle")
	}
	b := r.data[r.pos : r.pos+n]
	r.pos += n
	return b, nil
}

func (r *seqReader) line() (string, error) {
	i := strings.IndexByte(string(r.data[r.pos:min(len(r.data), r.pos+4096)]), '\n')
	if i < 0 {
		return "", seqErrorf("truncated or overlong text line")
	}
	s := string(r.data[r.pos : r.pos+i])
	r.pos += i + 1
	return s, nil
}

func (r *seqReader) push(v seqVal) error {
	if len(r.stack) >= maxSeqStack {
		return seqErrorf("more than %d values on the stack: not a dataset array", maxSeqStack)
	}
	r.stack = append(r.stack, v)
	return nil
}

func (r *seqReader) pop() (seqVal, error) {
	floor := 0
	if len(r.marks) > 0 {
		floor = r.marks[len(r.marks)-1]
	}
	if len(r.stack) <= floor {
		return seqVal{}, seqErrorf("stack underflow")
	}
	v := r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
	return v, nil
}

func (r *seqReader) popMark() ([]seqVal, error) {
	if len(r.marks) == 0 {
		return nil, seqErrorf("no MARK")
	}
	m := r.marks[len(r.marks)-1]
	r.marks = r.marks[:len(r.marks)-1]
	items := append([]seqVal(nil), r.stack[m:]...)
	r.stack = r.stack[:m]
	return items, nil
}

func (r *seqReader) memoize(k int) error {
	if len(r.stack) == 0 {
		return seqErrorf("memo of an empty stack")
	}
	if _, ok := r.memo[k]; !ok && len(r.memo) >= maxSeqMemo {
		return seqErrorf("more than %d memo entries", maxSeqMemo)
	}
	if k < 0 {
		return seqErrorf("negative memo key")
	}
	r.memo[k] = r.stack[len(r.stack)-1]
	return nil
}

func (r *seqReader) get(k int) error {
	v, ok := r.memo[k]
	if !ok {
		return seqErrorf("memo key %d is not set", k)
	}
	return r.push(v)
}

// appendTo appends items to the list l.
func appendTo(l seqVal, items []seqVal) error {
	if l.kind != seqList {
		return seqErrorf("APPEND to a %s", l.describe())
	}
	for _, it := range items {
		switch {
		case it.kind == seqInt && len(l.list.lists) == 0:
			if it.i < -1<<31 || it.i >= 1<<31 {
				return seqErrorf("id %d does not fit in 32 bits", it.i)
			}
			l.list.ints = append(l.list.ints, int32(it.i))
		case it.kind == seqList && len(l.list.ints) == 0:
			if it.list == l.list {
				return seqErrorf("a list inside itself")
			}
			l.list.lists = append(l.list.lists, it.list)
		default:
			return seqErrorf("a list of %s mixed with other items, not of ints or of int lists", it.describe())
		}
	}
	return nil
}

func (r *seqReader) run() (seqVal, error) {
	for {
		b, err := r.need(1)
		if err != nil {
			return seqVal{}, seqErrorf("truncated pickle (no STOP opcode)")
		}
		op := b[0]
		if op == '.' {
			v, err := r.pop()
			if err != nil {
				return seqVal{}, err
			}
			return v, nil
		}
		if err := r.step(op); err != nil {
			return seqVal{}, err
		}
	}
}

func (r *seqReader) uint(n int) (uint64, error) {
	b, err := r.need(n)
	if err != nil {
		return 0, err
	}
	var x uint64
	for i := n - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x, nil
}

func (r *seqReader) str(lenSize int) error {
	n, err := r.uint(lenSize)
	if err != nil {
		return err
	}
	if n > uint64(len(r.data)) {
		return seqErrorf("truncated pickle")
	}
	b, err := r.need(int(n))
	if err != nil {
		return err
	}
	return r.push(seqVal{kind: seqStr, s: string(b)})
}

func (r *seqReader) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		_, err := r.need(1)
		return err
	case 0x95: // FRAME
		_, err := r.need(8)
		return err
	case 'K': // BININT1
		x, err := r.uint(1)
		if err != nil {
			return err
		}
		return r.push(seqVal{kind: seqInt, i: int64(x)})
	case 'M': // BININT2
		x, err := r.uint(2)
		if err != nil {
			return err
		}
		return r.push(seqVal{kind: seqInt, i: int64(x)})
	case 'J': // BININT
		x, err := r.uint(4)
		if err != nil {
			return err
		}
		return r.push(seqVal{kind: seqInt, i: int64(int32(uint32(x)))})
	case 0x8a: // LONG1
		n, err := r.uint(1)
		if err != nil {
			return err
		}
		if n > 8 {
			return seqErrorf("an integer of %d bytes", n)
		}
		b, err := r.need(int(n))
		if err != nil {
			return err
		}
		var x int64
		if n > 0 {
			var buf [8]byte
			copy(buf[:], b)
			if b[n-1]&0x80 != 0 {
				for i := int(n); i < 8; i++ {
					buf[i] = 0xff
				}
			}
			x = int64(binary.LittleEndian.Uint64(buf[:]))
		}
		return r.push(seqVal{kind: seqInt, i: x})
	case 'I', 'L': // INT, LONG (text)
		s, err := r.line()
		if err != nil {
			return err
		}
		s = strings.TrimSuffix(s, "L")
		switch s {
		case "00":
			return r.push(seqVal{kind: seqBool})
		case "01":
			return r.push(seqVal{kind: seqBool, i: 1})
		}
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return seqErrorf("integer %q: %v", s, err)
		}
		return r.push(seqVal{kind: seqInt, i: x})
	case 'N':
		return r.push(seqVal{kind: seqNone})
	case 0x88, 0x89: // NEWTRUE, NEWFALSE
		v := seqVal{kind: seqBool}
		if op == 0x88 {
			v.i = 1
		}
		return r.push(v)
	case 0x8c, 'U', 'C': // SHORT_BINUNICODE, SHORT_BINSTRING, SHORT_BINBYTES
		return r.str(1)
	case 'X', 'T', 'B': // BINUNICODE, BINSTRING, BINBYTES
		return r.str(4)
	case 0x8d, 0x8e: // BINUNICODE8, BINBYTES8
		return r.str(8)
	case 'V': // UNICODE (protocol 0: raw-unicode-escape text)
		line, err := r.line()
		if err != nil {
			return err
		}
		if strings.ContainsRune(line, '\\') {
			return seqErrorf("escaped text %s is not a numpy array's", quote(line))
		}
		return r.push(seqVal{kind: seqStr, s: line})
	case 'S': // STRING (protocol 0: a quoted repr)
		line, err := r.line()
		if err != nil {
			return err
		}
		if len(line) < 2 || (line[0] != '\'' && line[0] != '"') || line[len(line)-1] != line[0] || strings.ContainsRune(line, '\\') {
			return seqErrorf("string %s is not a numpy array's", quote(line))
		}
		return r.push(seqVal{kind: seqStr, s: line[1 : len(line)-1]})
	case 'c': // GLOBAL
		mod, err := r.line()
		if err != nil {
			return err
		}
		name, err := r.line()
		if err != nil {
			return err
		}
		return r.push(seqVal{kind: seqGlobal, s: mod + " " + name})
	case 0x93: // STACK_GLOBAL
		name, err := r.pop()
		if err != nil {
			return err
		}
		mod, err := r.pop()
		if err != nil {
			return err
		}
		if name.kind != seqStr || mod.kind != seqStr {
			return seqErrorf("STACK_GLOBAL of a %s and a %s", mod.describe(), name.describe())
		}
		return r.push(seqVal{kind: seqGlobal, s: mod.s + " " + name.s})
	case 0x94: // MEMOIZE
		return r.memoize(len(r.memo))
	case 'q':
		k, err := r.uint(1)
		if err != nil {
			return err
		}
		return r.memoize(int(k))
	case 'r':
		k, err := r.uint(4)
		if err != nil {
			return err
		}
		return r.memoize(int(k))
	case 'p', 'g': // PUT, GET (text)
		s, err := r.line()
		if err != nil {
			return err
		}
		k, err := strconv.Atoi(s)
		if err != nil {
			return seqErrorf("memo key %q", s)
		}
		if op == 'p' {
			return r.memoize(k)
		}
		return r.get(k)
	case 'h':
		k, err := r.uint(1)
		if err != nil {
			return err
		}
		return r.get(int(k))
	case 'j':
		k, err := r.uint(4)
		if err != nil {
			return err
		}
		return r.get(int(k))
	case '(': // MARK
		if len(r.marks) >= maxSeqStack {
			return seqErrorf("too many marks")
		}
		r.marks = append(r.marks, len(r.stack))
		return nil
	case ')':
		return r.push(seqVal{kind: seqTuple})
	case 't':
		items, err := r.popMark()
		if err != nil {
			return err
		}
		return r.push(seqVal{kind: seqTuple, tup: items})
	case 0x85, 0x86, 0x87: // TUPLE1..3
		n := int(op - 0x84)
		items := make([]seqVal, n)
		for i := n - 1; i >= 0; i-- {
			v, err := r.pop()
			if err != nil {
				return err
			}
			items[i] = v
		}
		return r.push(seqVal{kind: seqTuple, tup: items})
	case ']':
		return r.push(seqVal{kind: seqList, list: &seqIntLists{}})
	case 'l': // LIST
		items, err := r.popMark()
		if err != nil {
			return err
		}
		l := seqVal{kind: seqList, list: &seqIntLists{}}
		if err := appendTo(l, items); err != nil {
			return err
		}
		return r.push(l)
	case 'a': // APPEND
		v, err := r.pop()
		if err != nil {
			return err
		}
		l, err := r.pop()
		if err != nil {
			return err
		}
		if err := appendTo(l, []seqVal{v}); err != nil {
			return err
		}
		return r.push(l)
	case 'e': // APPENDS
		items, err := r.popMark()
		if err != nil {
			return err
		}
		if len(r.stack) == 0 {
			return seqErrorf("APPENDS without a list")
		}
		return appendTo(r.stack[len(r.stack)-1], items)
	case 'R': // REDUCE
		args, err := r.pop()
		if err != nil {
			return err
		}
		fn, err := r.pop()
		if err != nil {
			return err
		}
		v, err := seqCall(fn, args)
		if err != nil {
			return err
		}
		return r.push(v)
	case 'b': // BUILD
		state, err := r.pop()
		if err != nil {
			return err
		}
		if len(r.stack) == 0 {
			return seqErrorf("BUILD without an object")
		}
		obj := &r.stack[len(r.stack)-1]
		return seqBuild(obj, state)
	}
	return seqErrorf("opcode 0x%02x is not one of a numpy object array's pickle", op)
}

// seqCall calls one of the globals a numpy object array's pickle uses.
func seqCall(fn, args seqVal) (seqVal, error) {
	if fn.kind != seqGlobal || args.kind != seqTuple {
		return seqVal{}, seqErrorf("cannot call a %s", fn.describe())
	}
	a := args.tup
	switch fn.s {
	case "numpy.core.multiarray _reconstruct", "numpy._core.multiarray _reconstruct":
		if len(a) == 3 && a[0].kind == seqGlobal && a[0].s == "numpy ndarray" {
			return seqVal{kind: seqArray}, nil
		}
	case "numpy dtype":
		if len(a) >= 1 && a[0].kind == seqStr {
			return seqVal{kind: seqDtype, s: a[0].s}, nil
		}
	case "_codecs encode":
		if len(a) >= 1 && a[0].kind == seqStr {
			return seqVal{kind: seqStr, s: a[0].s}, nil
		}
	default:
		return seqVal{}, seqErrorf("refusing to call %s: a dataset array's pickle calls only numpy's _reconstruct and dtype", fn.describe())
	}
	return seqVal{}, seqErrorf("unexpected arguments to %s", fn.describe())
}

// seqBuild applies BUILD: the state of a dtype (ignored: its descr was
// checked) or of the array: (version,) shape, dtype, Fortran order, data.
func seqBuild(obj *seqVal, state seqVal) error {
	switch obj.kind {
	case seqDtype:
		return nil
	case seqArray:
		st := state.tup
		if state.kind == seqTuple && len(st) == 5 {
			st = st[1:]
		}
		if state.kind != seqTuple || len(st) != 4 {
			return seqErrorf("unexpected numpy array state (a %s)", state.describe())
		}
		if st[0].kind != seqTuple || len(st[0].tup) != 1 || st[0].tup[0].kind != seqInt {
			return seqErrorf("the array is not 1-D")
		}
		if st[1].kind != seqDtype || !strings.HasPrefix(st[1].s, "O") {
			return seqErrorf("the array has dtype %s, not object", st[1].describe())
		}
		if st[3].kind != seqList {
			return seqErrorf("the array's data is a %s, not a list", st[3].describe())
		}
		if n := st[0].tup[0].i; n != int64(len(st[3].list.lists)) && !(n == 0 && len(st[3].list.ints) == 0) {
			return seqErrorf("the array's shape (%d,) does not match its %d lists", n, len(st[3].list.lists))
		}
		obj.list = st[3].list
		return nil
	}
	return seqErrorf("cannot restore the state of a %s", obj.describe())
}
