package ops

import (
	"slices"
	"sync/atomic"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Eager execution.
//
// An eager trace is a [Trace] whose ops run as they are added: apply runs
// the op's forward kernel (the same CPU kernel a compiled program runs for
// that node) on its inputs' values at once and keeps the result, so every
// [Tensor] of an eager trace has a concrete value ([Tensor.Float32s]). The
// trace still records the graph, so a gradient tape is the trace itself:
// [Gradients] differentiates it symbolically, and the gradient ops run
// eagerly too as gorgonia adds them. Hooks (optimizer updates, metric
// updates) run when they are added, on the values of their inputs.
//
// Every eager computation that starts from plain data ([ConvertToTensor],
// [FromValue], [Ones], a model called on arrays) starts a trace of its
// own. When tensors of two eager traces meet in an op, the smaller graph
// is copied into the larger (its ops re-applied without running their
// kernels again, keeping their values, and its variable reads bound to the
// same variables), so a loss combining two model calls differentiates
// through both. Nothing is global: eager code in several goroutines works
// on traces of its own. An eager tensor used in a symbolic trace (a traced
// function) is a constant of that trace.

var eagerSeq atomic.Uint64

// eagerState is what an eager trace keeps besides the graph.
type eagerState struct {
	seq      uint64
	vals     map[*gorgonia.Node][]float32
	imported map[*gorgonia.Node]*gorgonia.Node // a node of another trace -> its copy or constant here
}

// NewEagerTrace starts an eager trace reading replica 0's copies of
// variables. training selects the layers' training behaviour for code that
// asks the trace; seed seeds its random ops (dropout masks).
func NewEagerTrace(training bool, seed uint64) *Trace {
	tr := NewTrace(training, 0, seed)
	tr.eager = &eagerState{seq: eagerSeq.Add(1), vals: map[*gorgonia.Node][]float32{}, imported: map[*gorgonia.Node]*gorgonia.Node{}}
	return tr
}

// Eager reports whether ops of tr run as they are added.
func (tr *Trace) Eager() bool { return tr != nil && tr.eager != nil }

// IsEager reports whether t has a concrete value (it belongs to an eager trace).
func (t Tensor) IsEager() bool { return t.n != nil && t.tr.eager != nil }

// EagerContext returns the trace an eager computation from plain data
// starts: a new eager trace (training false).
func EagerContext() *Trace { return NewEagerTrace(false, eagerSeq.Load()) }

// pickTrace chooses the trace of an op whose inputs come from a and b
// (different traces): a symbolic trace over an eager one, an eager trace
// not differentiated yet over one that was, else the eager trace with the
// larger graph (the other is copied into it), the newer on a tie. ok is
// false when both are symbolic.
func pickTrace(a, b *Trace) (*Trace, bool) {
	switch {
	case a.eager == nil && b.eager == nil:
		return nil, false
	case a.eager == nil:
		return a, true
	case b.eager == nil:
		return b, true
	}
	if a.differed != b.differed { // a differentiated graph comes as constants
		if b.differed {
			return a, true
		}
		return b, true
	}
	sa, sb := a.eager.size(a), b.eager.size(b)
	if sa > sb || sa == sb && a.eager.seq > b.eager.seq {
		return a, true
	}
	return b, true
}

// size is the number of valued nodes of eager trace tr.
func (e *eagerState) size(tr *Trace) int { return len(e.vals) + len(tr.consts) }

// adopt returns t as a tensor of tr: t itself; for an eager t of another
// trace, t's graph copied into eager tr (eager_import.go), or a constant
// holding t's value where no gradient can flow through it (tr is
// symbolic, t's trace was differentiated already, or t depends on no
// variable): a running sum of losses keeps values, not graphs.
func (tr *Trace) adopt(t Tensor) Tensor {
	if t.n == nil || t.tr == tr {
		return t
	}
	if t.tr.eager == nil {
		fail("eager", "symbolic tensor %v of a traced function used outside it", t)
	}
	if m, ok := tr.eager.importedNode(t.n); ok {
		return tr.wrap(m)
	}
	if tr.eager == nil || t.tr.differed || !readsVariable(t.tr, t.n) {
		// Nothing to differentiate through: the value is all that counts.
		c := tr.Constant(t.Shape(), t.tr.valueOf(t.n))
		if tr.eager != nil {
			tr.eager.imported[t.n] = c.n
		}
		return c
	}
	return tr.wrap(tr.importNode(t.tr, t.n))
}

// importedNode returns the copy of n made earlier, if any.
func (e *eagerState) importedNode(n *gorgonia.Node) (*gorgonia.Node, bool) {
	if e == nil {
		return nil, false
	}
	m, ok := e.imported[n]
	return m, ok
}

// readsVariable reports whether node n of tr depends on a variable read.
func readsVariable(tr *Trace, n *gorgonia.Node) bool {
	if len(tr.vars) == 0 {
		return false
	}
	isVar := make(map[*gorgonia.Node]bool, len(tr.vars))
	for _, vn := range tr.vars {
		isVar[vn] = true
	}
	seen := map[*gorgonia.Node]bool{}
	stack := []*gorgonia.Node{n}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[m] {
			continue
		}
		seen[m] = true
		if isVar[m] {
			return true
		}
		stack = append(stack, Children(tr.g, m)...)
	}
	return false
}

// adoptAll adopts each input; it returns inputs unchanged when all are of tr.
func (tr *Trace) adoptAll(inputs []Tensor) []Tensor {
	var out []Tensor
	for i, t := range inputs {
		if t.n != nil && t.tr != tr {
			if out == nil {
				out = slices.Clone(inputs)
			}
			out[i] = tr.adopt(t)
		}
	}
	if out == nil {
		return inputs
	}
	return out
}

// computeEager runs o's kernel for node n of an eager trace, unless n (a
// node gorgonia merged with an equal one) has its value already.
func (tr *Trace) computeEager(o *Op, n *gorgonia.Node) {
	if _, ok := tr.eager.vals[n]; ok {
		return
	}
	children := Children(tr.g, n)
	in := make([][]float32, len(children))
	for i, c := range children {
		in[i] = tr.valueOf(c)
	}
	out := make([]float32, max(o.out.Size(), 1))
	o.fwd(out[:o.out.Size()], in)
	tr.eager.vals[n] = out[:o.out.Size()]
	tr.releaseEagerScratch()
}

// releaseEagerScratch drops the trace's scratch arena (conv.go) after an
// eager op. A program replays its ops again and again, so its arena is
// kept and reused; an eager op runs once, and its transient buffers (a
// transposed convolution's column matrix, 103 MB for the DCGAN's second
// layer) would otherwise stay live as long as the trace, which an eager
// tensor keeps alive: the guide's GAN step held one arena per model call
// (four traces) until the step ended. Dropped, the next op that needs
// scratch allocates its own: more bytes allocated, a smaller live heap
// (TestEagerOpReleasesScratch; the GAN's peak heap 1.37 GB -> 0.99 GB).
func (tr *Trace) releaseEagerScratch() {
	if a, ok := tr.Attr(scratchKey{}).(*scratchArena); ok {
		a.buf = nil
	}
}

// valueOf returns the value of node n of eager trace tr, computing the
// nodes gorgonia added itself (the sums of gradient terms, the seed 1).
func (tr *Trace) valueOf(n *gorgonia.Node) []float32 {
	if tr.eager == nil {
		fail("eager", "%v is a symbolic tensor of a traced function: it has no value outside a replay", n.Name())
	}
	if v, ok := tr.eager.vals[n]; ok {
		return v
	}
	if c := tr.consts[n]; c != nil {
		return c
	}
	switch op := n.Op().(type) {
	case nil:
		fail("eager", "node %v has no value", n.Name())
	case *Op:
		tr.computeEager(op, n)
		return tr.eager.vals[n]
	default:
		children := Children(tr.g, n)
		args := make([]gorgonia.Value, len(children))
		for i, c := range children {
			v := tr.valueOf(c)
			if c.IsScalar() {
				f := gorgonia.F32(v[0])
				args[i] = &f
			} else {
				args[i] = tensor.New(tensor.WithShape(c.Shape()...), tensor.WithBacking(slices.Clone(v)))
			}
		}
		res, err := op.Do(args...)
		if err != nil {
			fail("eager", "%v: %v", op, err)
		}
		f, err := floats(res)
		if err != nil {
			fail("eager", "%v: %v", op, err)
		}
		tr.eager.vals[n] = slices.Clone(f)
	}
	return tr.eager.vals[n]
}

// readEager binds variable v in an eager trace to a snapshot of its value
// now; a read after the variable changed gets a new node with the new
// value (gradients then flow to the newest read).
func (tr *Trace) readEager(v *Variable) Tensor {
	cur := v.Data(tr.replica)
	if n, ok := tr.vars[v]; ok && slices.Equal(tr.eager.vals[n], cur) {
		return tr.wrap(n)
	}
	n := newInputNode(tr.g, tr.uniqueName("var:"+v.name), v.shape)
	if _, ok := tr.vars[v]; !ok {
		tr.varOrder = append(tr.varOrder, v)
	}
	tr.vars[v] = n
	tr.eager.vals[n] = slices.Clone(cur)
	return tr.wrap(n)
}

// eagerReplica is the replica context of eager hooks: one replica.
type eagerReplica struct{ id int }

func (r eagerReplica) ReplicaID() int               { return r.id }
func (eagerReplica) NumReplicas() int               { return 1 }
func (eagerReplica) AllReduceSum([][]float32) error { return nil }

// runEagerHook runs h now on its inputs' values. An error panics with an
// *Error naming the hook, as misuse while building a graph does.
func (tr *Trace) runEagerHook(h Hook) {
	vals := make([]Value, len(h.Inputs))
	for i, in := range h.Inputs {
		if in.n == nil {
			fail("AddHook", "%s: none tensor as input %d", h.Name, i)
		}
		vals[i] = Value{Shape: in.Shape(), Data: in.tr.valueOf(in.n)}
	}
	if err := h.Run(eagerReplica{tr.replica}, vals); err != nil {
		fail(h.Name, "%v", err)
	}
}

// ConvertToTensor returns an eager tensor holding a float32 copy of d
// (tf.convert_to_tensor). Other dtypes are converted. A nil d panics with
// an *Error.
func ConvertToTensor(d *tensor.Dense) Tensor {
	if d == nil {
		fail("ConvertToTensor", "nil tensor")
	}
	v, err := ValueOf(d)
	if err != nil {
		fail("ConvertToTensor", "%v", err)
	}
	return FromValue(v)
}

// FromValue returns an eager tensor holding a copy of v.
func FromValue(v Value) Tensor {
	if len(v.Data) < v.Shape.Size() {
		fail("FromValue", "%d values for shape %v", len(v.Data), v.Shape)
	}
	return EagerContext().Constant(v.Shape, v.Data[:v.Shape.Size()])
}

// mustValue returns t's value or panics with an *Error naming what.
func (t Tensor) mustValue(what string) []float32 {
	if t.n == nil {
		fail(what, "none tensor")
	}
	return t.tr.valueOf(t.n)
}

// Float32s returns a copy of an eager tensor's values in row-major order:
// Keras' tensor.numpy() flattened. It panics with an *Error for a symbolic
// tensor, whose value exists only during a replay.
func (t Tensor) Float32s() []float32 { return slices.Clone(t.mustValue("Float32s")) }

// Float32 returns the value of an eager tensor of one element (float(x) in
// Python). It panics with an *Error for another size or a symbolic tensor.
func (t Tensor) Float32() float32 {
	v := t.mustValue("Float32")
	if len(v) != 1 {
		fail("Float32", "tensor of shape %v has %d values, not one", t.Shape(), len(v))
	}
	return v[0]
}

// Numpy returns a copy of an eager tensor's value with its shape: Keras'
// tensor.numpy(). It panics with an *Error for a symbolic tensor.
func (t Tensor) Numpy() Value {
	return Value{Shape: t.Shape().Clone(), Data: t.Float32s()}
}

// Float32s returns a copy of v's values.
func (v Value) Float32s() []float32 { return slices.Clone(v.Data[:v.Shape.Size()]) }

// Float32 returns the one value of v (float(x) in Python), such as a
// loss a traced function returned. It panics with an *Error when v does
// not hold exactly one value.
func (v Value) Float32() float32 {
	if v.Shape.Size() != 1 || len(v.Data) < 1 {
		fail("Value.Float32", "shape %v has %d values, not one", v.Shape, v.Shape.Size())
	}
	return v.Data[0]
}
