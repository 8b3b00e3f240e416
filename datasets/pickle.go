package datasets

// A restricted reader for Python pickles, enough for the CIFAR batches of
// the Python version (the files Keras reads): a dict of bytes or str keys
// holding numpy arrays, lists of ints and strings.
//
// Why not github.com/nlpodyssey/gopickle: that package runs the pickle
// virtual machine generically and builds Go values for unknown classes
// (GenericClass), so a foreign file decodes "successfully" into something
// the caller then has to pick apart; it panics on some malformed input;
// and it stores numpy state as generic objects whose layout depends on how
// Python 2 or 3 and which protocol wrote the file. This reader instead
// implements the standard opcodes of protocols 0 to 5 over an in-memory
// byte slice (every length is checked against what is left, and what it
// builds is charged against a budget proportional to the file, so that a
// corrupt or hostile file cannot make it allocate more than a small
// multiple of its size; see pickle_limits.go), and calls only a
// fixed list of globals: the numpy functions that rebuild arrays and dtypes
// (numpy 1 and 2 module names, protocols 0-4 via _reconstruct and BUILD,
// protocol 5 via _frombuffer), _codecs.encode (Python 3 pickles bytes that
// way at protocols 0-2), bytes, bytearray, set, frozenset and
// collections.OrderedDict. Anything else is an error naming the global,
// which is what a foreign pickle (a model checkpoint, a pandas frame)
// should give. Python 2 str values (the official CIFAR files were written
// by Python 2's cPickle) are returned as bytes, like Python 3's
// pickle.load(f, encoding="bytes") that Keras uses.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Values produced by the unpickler. Python ints are int64 (or *big.Int
// when they do not fit), floats float64, None nil, bools bool, str string.
type (
	pyTuple []any
	pyBytes []byte // bytes, bytearray and Python 2 str
	pyList  struct{ items []any }
	pyDict  struct{ keys, vals []any } // in insertion order; lookups scan from the end
	pySet   struct{ items []any }
	// pyGlobal is a function or class named by GLOBAL or STACK_GLOBAL.
	pyGlobal struct{ module, name string }
)

// npDtype is a numpy dtype of a simple (non-structured) type.
type npDtype struct {
	descr string // as pickled: "u1", "i8", "f4", "b1", ...
	order byte   // '<', '>', '|' or '=' from the pickled state
}

// kind and size split a descr such as "u1" or "<i8" into 'u', 1 or 'i', 8.
// The size is 0 for what this reader does not support, which includes any
// size but 1, 2, 4, 8 and 16 (numpy has no other for numbers, and a huge
// one could make the element count times the size overflow).
func (d *npDtype) kind() (byte, int) {
	s := strings.TrimLeft(d.descr, "<>|=")
	if s == "" {
		return 0, 0
	}
	switch n, _ := strconv.Atoi(s[1:]); n {
	case 1, 2, 4, 8, 16:
		return s[0], n
	}
	return s[0], 0
}

func (d *npDtype) bigEndian() bool {
	return d.order == '>' || strings.HasPrefix(d.descr, ">")
}

// String gives the dtype for error messages (cut short: a hostile file
// may name a long one).
func (d *npDtype) String() string {
	if d.order == '<' || d.order == '>' {
		return string(d.order) + cut(d.descr)
	}
	return cut(d.descr)
}

// npArray is a numpy ndarray: shape, dtype and the raw element bytes.
type npArray struct {
	shape   []int
	dtype   *npDtype
	fortran bool
	data    []byte
	built   bool // set by BUILD or _frombuffer: an array never built is empty
}

// maxPickleElements bounds the element count of an array header, so that
// multiplying dimensions cannot overflow.
const maxPickleElements = 1 << 40

// pickleError is an error about the content of a pickle; the caller wraps
// it in a FormatError naming the file.
type pickleError struct{ msg string }

func (e *pickleError) Error() string { return e.msg }

func pickleErrorf(format string, args ...any) error {
	return &pickleError{fmt.Sprintf(format, args...)}
}

// unpickle decodes one pickle from data. It never panics: a panic from a
// bug in this decoder is turned into an error too, so a strange file can
// cost the caller an error message but not the program. What it builds is
// bounded by the limits of pickle_limits.go.
func unpickle(data []byte) (v any, err error) {
	u := newUnpickler(data)
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, pickleErrorf("corrupt pickle at byte %d (decoder panic: %v)", u.pos, p)
		}
	}()
	v, err = u.run()
	if err != nil {
		return nil, fmt.Errorf("pickle byte %d: %w", u.opPos, err)
	}
	return v, nil
}

type unpickler struct {
	data  []byte
	pos   int // next byte to read
	opPos int // offset of the opcode being executed, for errors
	stack []slot
	marks []int // stack lengths at each MARK
	memo  map[int]slot

	left       int   // budget left for everything built or copied
	structLeft int   // budget left for structure (not copies of the file's bytes)
	err        error // a limit exceeded outside step's return path (push, charge)
}

// slot is a value on the stack or in the memo, with how deeply containers
// nest in it (0 for a scalar), so that nesting is bounded without ever
// walking a value.
type slot struct {
	v     any
	depth int
}

func newUnpickler(data []byte) *unpickler {
	return &unpickler{
		data:       data,
		memo:       map[int]slot{},
		left:       pickleBudgetPerByte*len(data) + pickleBudgetBase,
		structLeft: maxPickleStructure,
	}
}

var errPickleEOF = &pickleError{"truncated pickle (no STOP opcode)"}

func (u *unpickler) read(n int) ([]byte, error) {
	if n < 0 || n > len(u.data)-u.pos {
		return nil, errPickleEOF
	}
	b := u.data[u.pos : u.pos+n : u.pos+n]
	u.pos += n
	return b, nil
}

// readLen reads a length of size bytes (little-endian) and then that many bytes.
func (u *unpickler) readLen(size int) ([]byte, error) {
	b, err := u.read(size)
	if err != nil {
		return nil, err
	}
	var n uint64
	switch size {
	case 1:
		n = uint64(b[0])
	case 4:
		n = uint64(binary.LittleEndian.Uint32(b))
	case 8:
		n = binary.LittleEndian.Uint64(b)
	}
	if n > uint64(len(u.data)-u.pos) {
		return nil, pickleErrorf("truncated pickle: a value of %d bytes, %d left", n, len(u.data)-u.pos)
	}
	return u.read(int(n))
}

// readLine reads up to and excluding the next '\n' (text opcodes of
// protocol 0), as a copy that it charges for.
func (u *unpickler) readLine() (string, error) {
	b, err := u.readLineBytes()
	if err != nil {
		return "", err
	}
	if err := u.chargeCopy(len(b)); err != nil {
		return "", err
	}
	return string(b), nil
}

// readLineBytes is readLine without the copy: a slice of the file.
func (u *unpickler) readLineBytes() ([]byte, error) {
	i := bytes.IndexByte(u.data[u.pos:], '\n')
	if i < 0 {
		return nil, errPickleEOF
	}
	b := u.data[u.pos : u.pos+i : u.pos+i]
	u.pos += i + 1
	return b, nil
}

// lenSize is the size of the length field of a counted string opcode.
func lenSize(op byte) int {
	switch op {
	case 'C', 0x8c, 'U':
		return 1
	case 'B', 'X', 'T':
		return 4
	}
	return 8 // BINBYTES8, BINUNICODE8, BYTEARRAY8
}

// push pushes a scalar or a value whose cost its maker has charged.
func (u *unpickler) push(v any) { u.pushDepth(v, 0) }

// pushDepth pushes a value in which containers nest depth levels.
func (u *unpickler) pushDepth(v any, depth int) {
	if depth > maxPickleDepth {
		u.fail(errTooDeep)
		return
	}
	u.charge(costSlot)
	u.stack = grow(u, u.stack, slot{v, depth})
}

var errTooDeep = pickleErrorf("containers nested more than %d deep (a CIFAR batch nests 4): not a CIFAR batch, or a hostile file", maxPickleDepth)

// deeper returns the depth of a container holding something of depth d,
// at least have (a container's depth so far).
func deeper(have, d int) (int, error) {
	if d+1 > maxPickleDepth {
		return 0, errTooDeep
	}
	return max(have, d+1), nil
}

func (u *unpickler) underflow() bool {
	return len(u.stack) == 0 || (len(u.marks) > 0 && len(u.stack) <= u.marks[len(u.marks)-1])
}

func (u *unpickler) popSlot() (slot, error) {
	if u.underflow() {
		return slot{}, pickleErrorf("stack underflow")
	}
	s := u.stack[len(u.stack)-1]
	u.stack[len(u.stack)-1] = slot{}
	u.stack = u.stack[:len(u.stack)-1]
	return s, nil
}

func (u *unpickler) pop() (any, error) {
	s, err := u.popSlot()
	return s.v, err
}

// topSlot returns the top of the stack, which may be updated in place.
func (u *unpickler) topSlot() (*slot, error) {
	if u.underflow() {
		return nil, pickleErrorf("stack underflow")
	}
	return &u.stack[len(u.stack)-1], nil
}

func (u *unpickler) top() (any, error) {
	s, err := u.topSlot()
	if err != nil {
		return nil, err
	}
	return s.v, nil
}

// popMark returns the items pushed since the last MARK, the depth of the
// deepest, and removes them and the mark.
func (u *unpickler) popMark() ([]any, int, error) {
	if len(u.marks) == 0 {
		return nil, 0, pickleErrorf("MARK expected")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	if err := u.charge(costItem * (len(u.stack) - m)); err != nil {
		return nil, 0, err
	}
	items := make([]any, len(u.stack)-m)
	depth := 0
	for i, s := range u.stack[m:] {
		items[i] = s.v
		depth = max(depth, s.depth)
	}
	clear(u.stack[m:])
	u.stack = u.stack[:m]
	return items, depth, nil
}

func (u *unpickler) run() (any, error) {
	for {
		u.opPos = u.pos
		if u.pos >= len(u.data) {
			return nil, errPickleEOF
		}
		op := u.data[u.pos]
		u.pos++
		if op == '.' { // STOP
			return u.pop()
		}
		if err := u.step(op); err != nil {
			return nil, err
		}
		if u.err != nil {
			return nil, u.err
		}
	}
}

// call calls a global (see callGlobal) on arguments whose tuple nests
// depth levels, charging for what the call builds, and pushes the result.
// A result (a set made from a list, say) nests no deeper than its
// arguments.
func (u *unpickler) call(fn any, args pyTuple, depth int) error {
	if err := u.charge(costObject + callCopies(fn, args)); err != nil {
		return err
	}
	v, err := callGlobal(fn, args)
	if err != nil {
		return err
	}
	u.pushDepth(v, depth)
	return nil
}

// callCopies is how many bytes callGlobal(fn, args) copies: text encoded
// to bytes, a list of ints made bytes, a dtype's name. The same large
// value can be passed many times through the memo, so each call pays.
func callCopies(fn any, args pyTuple) int {
	g, ok := fn.(pyGlobal)
	if !ok || len(args) == 0 {
		return 0
	}
	if g.name == "_frombuffer" {
		return costShape
	}
	switch a := args[0].(type) {
	case string:
		return utf8.RuneCountInString(a) // text is encoded one byte per character
	case pyBytes:
		return len(a)
	case *pyList:
		return len(a.items)
	}
	return 0
}

func (u *unpickler) appendTo(items []any, depth int) error {
	t, err := u.topSlot()
	if err != nil {
		return err
	}
	l, ok := t.v.(*pyList)
	if !ok {
		return pickleErrorf("APPEND to a %s", pyTypeName(t.v))
	}
	if t.depth, err = deeper(t.depth, depth); err != nil {
		return err
	}
	l.items = grow(u, l.items, items...)
	return nil
}

func (u *unpickler) setItems(items []any, depth int) error {
	t, err := u.topSlot()
	if err != nil {
		return err
	}
	d, ok := t.v.(*pyDict)
	if !ok {
		return pickleErrorf("SETITEM on a %s", pyTypeName(t.v))
	}
	if len(items) > 0 {
		if t.depth, err = deeper(t.depth, depth); err != nil {
			return err
		}
	}
	d.set(u, items)
	return nil
}
