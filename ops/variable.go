package ops

import (
	"fmt"
	"sync"
	"sync/atomic"
)

var varCounter atomic.Int64

// Variable is a named float32 array that outlives graphs: weights, optimizer
// slots, moving statistics. A mirrored variable keeps one copy per replica;
// copy 0 is the primary. Traces bind a copy's storage directly to a graph
// input, so updates made in place are seen by the next replay.
//
// Values are never reallocated after creation: Assign copies into place.
type Variable struct {
	id        int64
	name      string
	shape     Shape
	trainable bool

	mu     sync.RWMutex
	copies [][]float32
	// backing, when set, holds the value instead of copies; a nil copy is
	// then unbound (variable_backing.go).
	backing Backing
}

// NewVariable makes a variable with the given initial value (copied).
// len(init) must equal shape.Size().
func NewVariable(name string, shape Shape, init []float32, trainable bool) *Variable {
	if len(init) != shape.Size() {
		panic(&Error{Op: "NewVariable", Msg: fmt.Sprintf("%q: %d values for shape %v", name, len(init), shape)})
	}
	v := &Variable{id: varCounter.Add(1), name: name, shape: shape.Clone(), trainable: trainable}
	v.copies = [][]float32{append([]float32(nil), init...)}
	if n := ReplicasInScope(); n > 1 {
		v.Mirror(n)
	}
	return v
}

// NewVariableOwned is NewVariable keeping values as the variable's
// storage instead of a copy of them: for a caller that made values for
// this variable alone (a layer's initializer), so that building a model
// holds its weights once, not twice. The caller must not use values
// afterwards.
func NewVariableOwned(name string, shape Shape, values []float32, trainable bool) *Variable {
	if len(values) != shape.Size() {
		panic(&Error{Op: "NewVariable", Msg: fmt.Sprintf("%q: %d values for shape %v", name, len(values), shape)})
	}
	v := &Variable{id: varCounter.Add(1), name: name, shape: shape.Clone(), trainable: trainable}
	v.copies = [][]float32{values}
	if n := ReplicasInScope(); n > 1 {
		v.Mirror(n)
	}
	return v
}

// ReplicasInScope reports how many replicas the distribution strategy in
// scope has (1 outside any scope). Package engine sets it; variables made
// while a strategy is in scope are mirrored, one copy per replica, as in
// TensorFlow.
var ReplicasInScope = func() int { return 1 }

// Name returns the variable's name, such as "dense/kernel".
func (v *Variable) Name() string { return v.name }

// Shape returns the variable's shape.
func (v *Variable) Shape() Shape { return v.shape.Clone() }

// Trainable reports whether optimizers update the variable.
func (v *Variable) Trainable() bool { return v.trainable }

// SetTrainable changes whether the variable is trainable.
func (v *Variable) SetTrainable(t bool) { v.trainable = t }

// Replicas is the number of copies the variable holds.
func (v *Variable) Replicas() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.copies)
}

// Mirror makes the variable hold n copies, each initialised from the
// primary. Existing copies beyond the first are overwritten.
func (v *Variable) Mirror(n int) {
	if n < 1 {
		n = 1
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.backing != nil {
		v.mirrorBackedLocked(n)
		return
	}
	for len(v.copies) < n {
		v.copies = append(v.copies, make([]float32, len(v.copies[0])))
	}
	v.copies = v.copies[:n]
	for i := 1; i < n; i++ {
		copy(v.copies[i], v.copies[0])
	}
}

// Data returns the storage of copy replica (not a copy): executors bind it,
// optimizers update it in place. Replicas beyond those held read the primary.
// A copy of a backed variable that is not bound (variable_backing.go) is
// the exception: Data returns a new slice holding the backing's value.
func (v *Variable) Data(replica int) []float32 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if replica >= len(v.copies) {
		replica = 0
	}
	if v.copies[replica] == nil {
		return v.readBacking(replica)
	}
	return v.copies[replica]
}

// Numpy returns a copy of the primary value.
func (v *Variable) Numpy() []float32 { return append([]float32(nil), v.Data(0)...) }

// Assign copies data into every copy of the variable.
func (v *Variable) Assign(data []float32) error {
	if len(data) != v.shape.Size() {
		return fmt.Errorf("ops: assign to %q: %d values for shape %v", v.name, len(data), v.shape)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range v.copies {
		copy(c, data)
	}
	if v.backing != nil {
		v.backing.WriteValue(data)
	}
	return nil
}

// AssignFrom sets the variable's values by letting fill write them into
// its storage (then into every replica's copy): a reader of a weights
// file stores them without a slice of its own in between. When fill
// fails, the variable's values are undefined.
func (v *Variable) AssignFrom(fill func(dst []float32) error) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.backing != nil {
		buf := make([]float32, v.shape.Size())
		if err := fill(buf); err != nil {
			return fmt.Errorf("ops: assign to %q: %w", v.name, err)
		}
		for _, c := range v.copies {
			copy(c, buf)
		}
		v.backing.WriteValue(buf)
		return nil
	}
	if err := fill(v.copies[0]); err != nil {
		return fmt.Errorf("ops: assign to %q: %w", v.name, err)
	}
	for _, c := range v.copies[1:] {
		copy(c, v.copies[0])
	}
	return nil
}

// AssignAdd adds delta to every copy of the variable, as Keras'
// variable.assign_add.
func (v *Variable) AssignAdd(delta []float32) error {
	return v.update("assign_add", delta, 1)
}

// AssignSub subtracts delta from every copy of the variable, as Keras'
// variable.assign_sub.
func (v *Variable) AssignSub(delta []float32) error {
	return v.update("assign_sub", delta, -1)
}

// update adds sign*delta to every copy.
func (v *Variable) update(op string, delta []float32, sign float32) error {
	if len(delta) != v.shape.Size() {
		return fmt.Errorf("ops: %s to %q: %d values for shape %v", op, v.name, len(delta), v.shape)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.backing != nil {
		buf := v.readBacking(0)
		for i, d := range delta {
			buf[i] += sign * d
		}
		for _, c := range v.copies {
			copy(c, buf)
		}
		v.backing.WriteValue(buf)
		return nil
	}
	for _, c := range v.copies {
		for i, d := range delta {
			c[i] += sign * d
		}
	}
	return nil
}

func (v *Variable) String() string {
	return fmt.Sprintf("Variable(%s, shape=%v)", v.name, v.shape)
}
