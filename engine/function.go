package engine

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gokeras/gokeras/ops"
)

// Single is the replica context of a computation that is not replicated:
// replica 0 of 1, whose collectives are identities.
type Single struct{}

// ReplicaID implements ops.ReplicaContext.
func (Single) ReplicaID() int { return 0 }

// NumReplicas implements ops.ReplicaContext.
func (Single) NumReplicas() int { return 1 }

// AllReduceSum implements ops.ReplicaContext: with one replica the sum is the value.
func (Single) AllReduceSum([][]float32) error { return nil }

// StepFunc builds a step into tr from its inputs (placeholders with the
// shapes of this call) and returns the tensors to fetch.
type StepFunc func(tr *ops.Trace, inputs []ops.Tensor) ([]ops.Tensor, error)

// Function is a traced step function: it traces fn once per input shape
// (like tf.function) and replays the cached program. Safe for use by one
// goroutine at a time; replicas each own a Function.
type Function struct {
	Name     string
	Fn       StepFunc
	Training bool
	Replica  int
	// Replicas is the number of replicas running the step (0 means 1).
	Replicas int
	// Attrs are set on every trace (ops.Trace.SetAttr) before fn runs.
	Attrs map[any]any
	Seed  uint64

	mu    sync.Mutex
	cache map[string]*Program
	// Traces counts how many times Fn was traced, for tests and logs.
	Traces int
}

func signature(inputs []ops.Value) string {
	var b strings.Builder
	for _, in := range inputs {
		fmt.Fprint(&b, in.Shape, ";")
	}
	return b.String()
}

// Program returns the program for inputs of these shapes, tracing if needed.
func (f *Function) Program(shapes []ops.Shape) (p *Program, err error) {
	vals := make([]ops.Value, len(shapes))
	for i, s := range shapes {
		vals[i].Shape = s
	}
	key := signature(vals)
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.cache[key]; p != nil {
		return p, nil
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*ops.Error); ok {
				err = ops.Where(f.Name, e)
				return
			}
			panic(r)
		}
	}()
	tr := ops.NewTrace(f.Training, f.Replica, f.Seed+uint64(f.Traces)*0x632be59bd9b4e019)
	tr.SetNumReplicas(f.Replicas)
	for k, v := range f.Attrs {
		tr.SetAttr(k, v)
	}
	ins := make([]ops.Tensor, len(shapes))
	for i, s := range shapes {
		ins[i] = tr.Input(fmt.Sprint("arg", i), s)
	}
	outs, err := f.Fn(tr, ins)
	if err != nil {
		return nil, err
	}
	p, err = Compile(tr, outs)
	if err != nil {
		return nil, err
	}
	f.Traces++
	if f.cache == nil {
		f.cache = map[string]*Program{}
	}
	f.cache[key] = p
	return p, nil
}

// Call runs the step on inputs, tracing first if their shapes are new.
func (f *Function) Call(rc ops.ReplicaContext, inputs []ops.Value) ([]ops.Value, error) {
	shapes := make([]ops.Shape, len(inputs))
	for i, in := range inputs {
		shapes[i] = in.Shape
	}
	p, err := f.Program(shapes)
	if err != nil {
		return nil, err
	}
	if rc == nil {
		rc = Single{}
	}
	return p.Run(rc, inputs)
}
