package datasets

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pickleAllocLimit is what unpickling n bytes may allocate in all: the
// bound the fuzz targets check too. The reader charges what it builds
// against a budget of pickleBudgetPerByte*n + pickleBudgetBase bytes (see
// pickle_limits.go), counting at least what Go allocates for it; the
// factor 2 covers map growth the charges round off and what the budget
// does not count (one opcode past the limit, error messages).
func pickleAllocLimit(n int) uint64 {
	return uint64(2 * (pickleBudgetPerByte*n + pickleBudgetBase))
}

// deepTuples is a pickle fragment that pushes n tuples, each holding the
// one before: ((((),),),)...
func deepTuples(n int) []byte {
	return append([]byte{')'}, bytes.Repeat([]byte{0x85}, n)...)
}

// writeCIFAR10Py writes the same pickle as all six files of a CIFAR-10
// Python folder and returns the folder.
func writeCIFAR10Py(t *testing.T, p []byte, gz bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cifar-10-batches-py")
	if gz {
		p = gzipBytes(t, p)
	}
	for _, name := range append(append([]string(nil), cifar10Spec.pyTrain...), cifar10Spec.pyTest) {
		writeFile(t, filepath.Join(dir, name), p)
	}
	return dir
}

// A numpy shape of two million nested tuples used to crash the process
// with a stack overflow (formatting the bad shape for the error message
// recursed once per level); a recover cannot catch that, hence the child.
func TestCIFARPickleDeeplyNestedShape(t *testing.T) {
	if !inChild(t, 2*time.Minute) {
		return
	}
	p := cifarPickleBytes(pickledBatch{
		data:     make([]byte, cifarImageBytes),
		labels:   map[string][]int{"labels": {1}},
		rawShape: deepTuples(2_000_000),
	})
	dir := writeCIFAR10Py(t, p, false)
	_, _, err := LoadCIFAR10(isolated(t, Dir(dir))...)
	wantFormatError(t, err, filepath.Join(dir, "data_batch_"), "nested")
	if len(err.Error()) > 1000 {
		t.Errorf("error of %d bytes: %.300s...", len(err.Error()), err)
	}
}

// A gzipped pickle of nothing but EMPTY_DICT opcodes (1000:1 compression)
// used to need about 90 bytes of memory per opcode, gigabytes for a
// 130 KB file.
func TestCIFARPickleDictBomb(t *testing.T) {
	if !inChild(t, 2*time.Minute) {
		return
	}
	const n = 64 << 20
	p := append(append([]byte{0x80, 2}, bytes.Repeat([]byte{'}'}, n)...), '.')
	dir := writeCIFAR10Py(t, p, true)
	var err error
	alloc, took := measure(func() { _, _, err = LoadCIFAR10(isolated(t, Dir(dir))...) })
	wantFormatError(t, err, filepath.Join(dir, "data_batch_"), "budget")
	// Six files of n bytes are decompressed (what the files hold); each
	// may then spend at most the pickle's budget (see maxPickleStructure).
	if limit := uint64(6 * (2*n + 2*maxPickleStructure)); alloc > limit {
		t.Errorf("allocated %s, want at most %s", mib(alloc), mib(limit))
	}
	t.Logf("%d MiB of dict opcodes in each of 6 files: %v, %s", n>>20, took, mib(alloc))
}

// Text integers of a million digits took 1.4 s each to convert; Python
// refuses more than 4300 digits (sys.int_info.default_max_str_digits).
func TestUnpickleHugeIntegers(t *testing.T) {
	if !inChild(t, 2*time.Minute) {
		return
	}
	digits := strings.Repeat("7", 1_000_000)
	for _, c := range []struct{ name, p string }{
		{"LONG", "(" + strings.Repeat("L"+digits+"L\n", 10) + "t."},
		{"INT", "(" + strings.Repeat("I"+digits+"\n", 10) + "t."},
	} {
		dir := writeCIFAR10Py(t, []byte(c.p), true)
		var err error
		_, took := measure(func() { _, _, err = LoadCIFAR10(isolated(t, Dir(dir))...) })
		wantFormatError(t, err, filepath.Join(dir, "data_batch_"), "digits")
		// A bound on the order of growth, not a speed target: quadratic
		// parsing of 10 million digits takes minutes, the linear refusal
		// milliseconds; 2 s was passed on a loaded 2-core CI machine.
		if took > 20*time.Second {
			t.Errorf("%s: took %v (quadratic in the digits?)", c.name, took)
		}
	}
	// Binary longs are decoded in linear time, but none of the files this
	// reader is for holds one longer than a few bytes.
	long4 := append([]byte{0x8b, 0, 0, 16, 0}, make([]byte, 1<<20)...)
	if _, err := unpickle(append(long4, '.')); err == nil || !strings.Contains(err.Error(), "LONG4") {
		t.Errorf("LONG4 of 1 MiB: %v", err)
	}
}

// Every opcode that builds something must be paid for by the input: a
// flood of any of them stays within pickleAllocLimit.
func TestUnpickleFloodsStaySmall(t *testing.T) {
	if !inChild(t, 5*time.Minute) {
		return
	}
	const size = 4 << 20
	flood := func(prefix, unit, suffix string) []byte {
		var b bytes.Buffer
		b.WriteString("\x80\x02" + prefix)
		for b.Len() < size {
			b.WriteString(unit)
		}
		b.WriteString(suffix + ".")
		return b.Bytes()
	}
	big := "X\x00\x00\x01\x00" + strings.Repeat("a", 1<<16) + "q\x00" // a 64 KiB str in memo 0
	cases := []struct {
		name string
		p    []byte
	}{
		{"EMPTY_DICT", flood("", "}", "")},
		{"EMPTY_TUPLE", flood("", ")", "")},
		{"EMPTY_LIST", flood("", "]", "")},
		{"EMPTY_SET", flood("", "\x8f", "")},
		{"NONE", flood("", "N", "")},
		{"MARK", flood("", "(", "")},
		{"DUP", flood("N", "2", "")},
		{"MEMOIZE", flood("N", "\x94", "")},
		{"BINPUT", flood("N", "q\x07", "")},
		{"LONG_BINPUT", flood("N", "r\x07\x00\x00\x00", "")},
		{"GET", flood("Nq\x00", "h\x00", "")},
		{"APPEND", flood("]", "Na", "")},
		{"SETITEM", flood("}", "NNs", "")},
		{"TUPLE of everything", flood("(", "N", "t")},
		{"TUPLE1", flood("N", "\x85", "")},
		{"BININT", flood("", "J\x00\x00\x00\x80", "")},
		{"BINFLOAT", flood("", "G\x00\x00\x00\x00\x00\x00\x00\x00", "")},
		{"SHORT_BINUNICODE", flood("", "\x8c\x01a", "")},
		{"SHORT_BINSTRING", flood("", "U\x01a", "")},
		{"LONG1", flood("", "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01", "")},
		{"INT text", flood("", "I123456789012345678901234567890\n", "")},
		{"GLOBAL", flood("", "cnumpy\ndtype\n", "")},
		{"codecs.encode of one big str", flood(big, "c_codecs\nencode\nh\x00\x85R0", "")},
		{"bytes of one big list", flood("](K\x01"+strings.Repeat("K\x01", 1<<15)+"eq\x00", "c__builtin__\nbytes\nh\x00\x85R0", "")},
		{"dtype", flood("", "cnumpy\ndtype\nU\x02u1\x85R", "")},
	}
	for _, c := range cases {
		alloc, took := measure(func() { unpickle(c.p) })
		if limit := pickleAllocLimit(len(c.p)); alloc > limit {
			t.Errorf("%s: %s of input allocated %s, want at most %s", c.name, mib(uint64(len(c.p))), mib(alloc), mib(limit))
		}
		if took > 5*time.Second {
			t.Errorf("%s: took %v", c.name, took)
		}
		t.Logf("%s: %s of input: %s, %v", c.name, mib(uint64(len(c.p))), mib(alloc), took)
	}
}

func TestUnpickleNestingLimit(t *testing.T) {
	for _, c := range []struct{ name, p string }{
		{"tuples", string(deepTuples(maxPickleDepth+1)) + "."},
		{"lists", strings.Repeat("]", maxPickleDepth+2) + strings.Repeat("a", maxPickleDepth+1) + "."},
		{"MARK tuples", strings.Repeat("(", maxPickleDepth+2) + strings.Repeat("t", maxPickleDepth+2) + "."},
	} {
		_, err := unpickle([]byte(c.p))
		if err == nil || !strings.Contains(err.Error(), "nested") {
			t.Errorf("%s nested %d deep: %v", c.name, maxPickleDepth+1, err)
		}
	}
	// What real files need passes.
	if _, err := unpickle(append(deepTuples(maxPickleDepth-1), '.')); err != nil {
		t.Errorf("tuples nested %d deep: %v", maxPickleDepth, err)
	}
}

// Error messages quote at most a little of the file, however large the
// offending value.
func TestUnpickleErrorsAreShort(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	manyDims := "(" + strings.Repeat("K\x01", 100_000) + "t"
	cases := []struct{ name, p string }{
		{"huge global", "c" + long + "\n" + long + "\n)R."},
		{"bad integer", "I" + long + "\n."},
		{"bad float", "F" + long + "\n."},
		{"bad PUT", "Np" + long + "\n."},
		{"encoding", "c_codecs\nencode\nX\x01\x00\x00\x00aX\x00\x00\x10\x00" + long + "\x86R."},
		{"dtype", "cnumpy.core.numeric\n_frombuffer\n(C\x00cnumpy\ndtype\nX\x00\x00\x10\x00" + long + "\x85R)X\x01\x00\x00\x00Ct" + "R."},
	}
	for _, c := range cases {
		_, err := unpickle([]byte(c.p))
		if err == nil {
			t.Errorf("%s: no error", c.name)
		} else if len(err.Error()) > 500 {
			t.Errorf("%s: error of %d bytes: %.200s...", c.name, len(err.Error()), err)
		}
	}
	// A CIFAR batch with a huge shape or dict is reported briefly too.
	dir := t.TempDir()
	for name, p := range map[string][]byte{
		"shape": cifarPickleBytes(pickledBatch{data: make([]byte, cifarImageBytes), labels: map[string][]int{"labels": {1}}, rawShape: []byte(manyDims)}),
		"keys":  []byte("(" + strings.Repeat("X\x01\x00\x00\x00kN", 100_000) + "d."),
	} {
		path := filepath.Join(dir, name)
		writeFile(t, path, p)
		_, err := readCIFARPickle(path, cifarLabels{key: "labels", classes: 10})
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if len(err.Error()) > 1000 {
			t.Errorf("%s: error of %d bytes: %.300s...", name, len(err.Error()), err)
		}
	}
}

// The structure of the largest real file, CIFAR-100's training batch
// (50,000 file names, fine and coarse labels), pickled as Python 2's
// cPickle wrote it, stays well inside maxPickleStructure.
func TestUnpickleCIFAR100StructureFits(t *testing.T) {
	const n = 50_000
	p := &pickler{}
	p.op(0x80, 2, '}').put().op('(')
	p.str("batch_label").put().str("training batch 1 of 1").put()
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % 100
	}
	p.str("fine_labels").put().intList(labels)
	p.str("coarse_labels").put().intList(labels)
	p.str("data").put().ndarray([]int{1, cifarImageBytes}, "u1", "|", make([]byte, cifarImageBytes))
	p.str("filenames").put().op(']').put()
	for i := range n {
		if i%1000 == 0 {
			p.op('(')
		}
		p.str(fmt.Sprintf("bos_taurus_s_%06d.png", i)).op('r')
		binary.Write(&p.b, binary.LittleEndian, uint32(i+100))
		if i%1000 == 999 {
			p.op('e')
		}
	}
	data := p.op('u', '.').b.Bytes()
	u := newUnpickler(data)
	u.left = math.MaxInt // the pixels (155 MB) that pay for it in the real file are left out
	if _, err := u.run(); err != nil {
		t.Fatal(err)
	}
	used := maxPickleStructure - u.structLeft
	if used > maxPickleStructure/3 {
		t.Errorf("the structure of a CIFAR-100 training batch costs %s of the %s budget", mib(uint64(used)), mib(maxPickleStructure))
	}
	t.Logf("structure of a CIFAR-100 training batch: %s (cap %s)", mib(uint64(used)), mib(maxPickleStructure))
}

// protocol0Batch pickles a CIFAR-10 batch the way Python 3 does at
// protocol 0 (pickle.dump(batch, f, protocol=0), as in
// testdata/cifar10_batch_p0.pkl): every bytes value through
// _codecs.encode of a raw-unicode-escaped text line.
func protocol0Batch(planes []byte, labels []int) []byte {
	var b strings.Builder
	memo := 5 // p0 to p4 are written out below
	put := func() { fmt.Fprintf(&b, "p%d\n", memo); memo++ }
	text := func(s string) {
		r := strings.NewReplacer("\\", "\\u005c", "\x00", "\\u0000", "\n", "\\u000a", "\r", "\\u000d", "\x1a", "\\u001a")
		b.WriteString("V")
		for _, c := range []byte(r.Replace(s)) { // latin-1: one byte per character
			b.WriteByte(c)
		}
		b.WriteString("\n")
		put()
	}
	byteStr := func(s string) { b.WriteString("g1\n("); text(s); b.WriteString("g3\ntR"); put() }
	b.WriteString("(dp0\nc_codecs\nencode\np1\n(Vbatch_label\np2\nVlatin1\np3\ntp4\nR")
	put()
	byteStr("testing batch 1 of 1")
	b.WriteString("s")
	byteStr("labels")
	b.WriteString("(l")
	put()
	for _, l := range labels {
		fmt.Fprintf(&b, "I%d\na", l)
	}
	b.WriteString("s")
	byteStr("data")
	b.WriteString("cnumpy.core.multiarray\n_reconstruct\n(cnumpy\nndarray\n(I0\nt")
	byteStr("b")
	b.WriteString("tR(I1\n")
	fmt.Fprintf(&b, "(I%d\nI%d\ntcnumpy\ndtype\n(Vu1\nI00\nI01\ntR(I3\nV|\nNNNI-1\nI-1\nI0\ntbI00\n", len(labels), cifarImageBytes)
	// Latin-1 text as UTF-8 would double the bytes above 0x7f; pickle
	// writes raw-unicode-escape, one byte per character.
	b.WriteString("g1\n(V")
	line := strings.NewReplacer("\\", "\\u005c", "\x00", "\\u0000", "\n", "\\u000a", "\r", "\\u000d", "\x1a", "\\u001a").Replace(string(planes))
	b.WriteString(line)
	b.WriteString("\n")
	put()
	b.WriteString("g3\ntRtbs.")
	return []byte(b.String())
}

// A protocol-0 batch of real size (raw-unicode-escaped pixels are decoded
// to UTF-8 and then encoded to latin-1: copies the budget must allow).
func TestCIFARPickleProtocol0AtScale(t *testing.T) {
	const n = 2000
	planes := fakePlanes(n, 5)
	labels := cycle(n, 3, 10)
	path := filepath.Join(t.TempDir(), "data_batch_1")
	p := protocol0Batch(planes, labels)
	writeFile(t, path, p)
	var b cifarBatch
	var err error
	alloc, took := measure(func() { b, err = readCIFARPickle(path, cifarLabels{key: "labels", classes: 10}) })
	if err != nil {
		t.Fatal(err)
	}
	if b.n != n || !bytes.Equal(b.raw, planes) {
		t.Fatalf("%d images, pixels equal %v", b.n, bytes.Equal(b.raw, planes))
	}
	for i, l := range labels {
		if int(b.labels[i]) != l {
			t.Fatalf("label %d is %d, want %d", i, b.labels[i], l)
		}
	}
	t.Logf("%s protocol-0 file: %v, %s", mib(uint64(len(p))), took, mib(alloc))
}

// A labels array whose shape times its item size overflows to the size of
// its data (here 2^32 items of 2^32 bytes in 0 bytes) used to pass the size
// check; reading the labels then allocated 32 GiB.
func TestCIFARPickleArraySizeOverflow(t *testing.T) {
	if !inChild(t, time.Minute) {
		return
	}
	for _, descr := range []string{"<i4294967296", "<i8589934592", "u0", "<i3"} {
		p := &pickler{}
		p.op(0x80, 2, '}').put().op('(')
		p.str("data").put().ndarray([]int{1, cifarImageBytes}, "u1", "|", make([]byte, cifarImageBytes))
		p.str("labels").put().ndarrayShape(func() { p.op(0x8a, 5, 0, 0, 0, 0, 1, 0x85) }, descr, "<", nil)
		path := filepath.Join(t.TempDir(), "data_batch_1")
		writeFile(t, path, p.op('u', '.').b.Bytes())
		_, err := readCIFARPickle(path, cifarLabels{key: "labels", classes: 10})
		wantFormatError(t, err, path, "dtype")
	}
}
