package ops

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ReplicaContext is what hooks see of the replica they run in: its id and
// the collective operations across replicas. With one replica the
// collectives return their input.
type ReplicaContext interface {
	ReplicaID() int
	NumReplicas() int
	// AllReduceSum replaces each buffer by the sum of that buffer over all
	// replicas, in replica order, so every replica gets bitwise the same
	// result. Every replica must call it with buffers of the same sizes.
	AllReduceSum(bufs [][]float32) error
}

// Hook is work that runs after each replay of a traced graph, on the values
// of Inputs: applying gradients, updating metrics and moving statistics.
// This is how stateful updates fit the trace-and-replay model: the graph
// computes, the hook changes state.
type Hook struct {
	Name   string
	Inputs []Tensor
	Run    func(rc ReplicaContext, vals []Value) error
	// Empty, if set, runs instead of Run on a replica that got no data
	// this step (the end of an uneven dataset), so that collectives stay
	// matched: an optimizer all-reduces zeros and applies the same update.
	// It must not use state of the replica that traced the hook.
	Empty func(rc ReplicaContext) error
	// Ready, if set, lets the hook start on its inputs while the graph is
	// still being replayed (all-reducing gradients during the backward
	// pass): the executor calls it with i = -1 before the replay's first
	// step (hooks in order), then with each i as soon as the step that
	// computes Inputs[i] has run, val being that value (valid until the
	// replay ends). Inputs that no step computes (placeholders, variables,
	// constants) are not reported, and an executor may report none: Run
	// still gets every value and must finish what Ready began.
	Ready func(rc ReplicaContext, i int, val Value) error
}

// Trace records one traced step: the graph and what it reads and updates.
// A Trace is used by one goroutine; each replica traces its own.
type Trace struct {
	g        *gorgonia.ExprGraph
	training bool
	replica  int
	rng      *rand.Rand

	vars     map[*Variable]*gorgonia.Node
	consts   map[*gorgonia.Node][]float32
	varOrder []*Variable
	inputs   []Tensor
	hooks    []Hook
	counter  int
	differed bool
	attrs    map[any]any
	replicas int
	rc       ReplicaContext // of the replay in progress, for collective ops
	eager    *eagerState    // non-nil: ops run as they are added (eager.go)
}

// CustomReplicaStep is the trace attribute key marking a user's replica
// step run by a strategy (strategy.Run), where losses must be scaled by
// the global batch size explicitly.
type CustomReplicaStep struct{}

// NumReplicas is the number of replicas the traced step runs on (1 unless
// set by the executor of a distributed step).
func (tr *Trace) NumReplicas() int { return max(tr.replicas, 1) }

// SetNumReplicas records how many replicas run the step.
func (tr *Trace) SetNumReplicas(n int) { tr.replicas = n }

// BindReplicaContext gives the collective ops of the trace the context of
// the replay about to run. Executors call it before each replay.
func (tr *Trace) BindReplicaContext(rc ReplicaContext) { tr.rc = rc }

// SetAttr attaches a value to the trace under key, for cooperating
// packages (keras stores the distributed loss scale here).
func (tr *Trace) SetAttr(key, value any) {
	if tr.attrs == nil {
		tr.attrs = map[any]any{}
	}
	tr.attrs[key] = value
}

// Attr returns the value stored under key, or nil.
func (tr *Trace) Attr(key any) any { return tr.attrs[key] }

// NewTrace starts a trace. training selects training behaviour of layers
// (dropout, batch statistics); replica selects which copy of mirrored
// variables the graph reads; seed seeds the random ops of this trace.
func NewTrace(training bool, replica int, seed uint64) *Trace {
	return &Trace{
		g:        gorgonia.NewGraph(),
		training: training,
		replica:  replica,
		rng:      rand.New(rand.NewPCG(seed, uint64(replica)+0x9e3779b97f4a7c15)),
		vars:     map[*Variable]*gorgonia.Node{},
		consts:   map[*gorgonia.Node][]float32{},
	}
}

// Training reports whether the trace is of a training step.
func (tr *Trace) Training() bool { return tr.training }

// Replica is the replica whose variable copies this trace reads.
func (tr *Trace) Replica() int { return tr.replica }

// Graph returns the gorgonia graph. Executors use it.
func (tr *Trace) Graph() *gorgonia.ExprGraph { return tr.g }

func (tr *Trace) uniqueName(prefix string) string {
	tr.counter++
	return fmt.Sprintf("%s_%d", prefix, tr.counter)
}

func (tr *Trace) wrap(n *gorgonia.Node) Tensor { return Tensor{tr: tr, n: n} }

// Input adds a placeholder the executor feeds at each replay.
func (tr *Trace) Input(name string, shape Shape) Tensor {
	for _, d := range shape {
		if d <= 0 {
			fail("Input", "%q: shape %v has a non-positive dimension", name, shape)
		}
	}
	if _, ok := shape.CheckedSize(); !ok {
		fail("Input", "%q: shape %v has more elements than an int counts", name, shape)
	}
	n := newInputNode(tr.g, tr.uniqueName("input:"+name), shape)
	t := tr.wrap(n)
	tr.inputs = append(tr.inputs, t)
	return t
}

// Inputs returns the placeholders in creation order.
func (tr *Trace) Inputs() []Tensor { return tr.inputs }

// Read returns the tensor for variable v in this trace. The executor binds
// the copy of the replica it runs for (its ReplicaContext's id).
func (tr *Trace) Read(v *Variable) Tensor {
	if d, ok := tr.attrs[readCastKey{}].(string); ok {
		return tr.castRead(v, d) // cast_precision.go
	}
	if tr.eager != nil {
		return tr.readEager(v)
	}
	if n, ok := tr.vars[v]; ok {
		return tr.wrap(n)
	}
	n := newInputNode(tr.g, tr.uniqueName("var:"+v.name), v.shape)
	tr.vars[v] = n
	tr.varOrder = append(tr.varOrder, v)
	return tr.wrap(n)
}

// Variables returns the variables read by the trace, in first-read order.
func (tr *Trace) Variables() []*Variable { return tr.varOrder }

// VariableNode returns the graph node bound to v, or nil if v is not read.
func (tr *Trace) VariableNode(v *Variable) *gorgonia.Node { return tr.vars[v] }

// AddHook registers work to run after each replay.
func (tr *Trace) AddHook(h Hook) {
	if tr.eager != nil {
		tr.runEagerHook(h) // eager: the hook runs now
		return
	}
	for _, in := range h.Inputs {
		if in.tr != tr {
			fail("AddHook", "%s: input %v is from another trace", h.Name, in)
		}
	}
	tr.hooks = append(tr.hooks, h)
}

// Hooks returns the registered hooks in order.
func (tr *Trace) Hooks() []Hook { return tr.hooks }

// Constant adds a constant tensor with the given value.
func (tr *Trace) Constant(shape Shape, data []float32) Tensor {
	if len(data) != shape.Size() {
		fail("Constant", "%d values for shape %v", len(data), shape)
	}
	n := newInputNode(tr.g, tr.uniqueName("const"), shape)
	tr.consts[n] = append([]float32(nil), data...)
	return tr.wrap(n)
}

// ConstantValue returns the value of a constant node, or nil if n is not a
// constant of this trace.
func (tr *Trace) ConstantValue(n *gorgonia.Node) []float32 { return tr.consts[n] }

// Scalar adds a constant scalar.
func (tr *Trace) Scalar(x float32) Tensor { return tr.Constant(Shape{}, []float32{x}) }

func newInputNode(g *gorgonia.ExprGraph, name string, shape Shape) *gorgonia.Node {
	if len(shape) == 0 {
		return gorgonia.NewScalar(g, tensor.Float32, gorgonia.WithName(name))
	}
	return gorgonia.NewTensor(g, tensor.Float32, len(shape), gorgonia.WithName(name), gorgonia.WithShape(shape...))
}

func sameTrace(op string, ts ...Tensor) *Trace {
	var tr *Trace
	for _, t := range ts {
		if t.n == nil {
			fail(op, "none tensor as input")
		}
		if tr == nil {
			tr = t.tr
		} else if t.tr != tr {
			var ok bool
			if tr, ok = pickTrace(tr, t.tr); !ok { // eager tensors combine (eager.go)
				fail(op, "inputs from different traces")
			}
		}
	}
	return tr
}
