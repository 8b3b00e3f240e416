package ops

import "fmt"

// Backing keeps the value of a variable outside the variable: a
// distribution that splits a weight over its devices
// (distribute/distribution) stores it as the devices' shards, so that no
// device holds the whole weight between steps. A variable handed to a
// Backing ([Variable.SetBacking]) frees its copies; a device's step binds
// a buffer of its own as its copy ([Variable.BindCopy]) for as long as
// the step needs the whole value.
type Backing interface {
	// ReadValue writes the variable's whole value into dst (of the
	// variable's size), for copy replica (0 outside a replica's step).
	ReadValue(replica int, dst []float32)
	// WriteValue sets the variable's whole value from src.
	WriteValue(src []float32)
}

// SetBacking hands v's value to b, which must already hold it, and frees
// every copy; Replicas is unchanged. Until a copy is bound with
// [Variable.BindCopy], Data of it returns a new slice holding the value
// b reads (writes to that slice are lost; use Assign), and Assign,
// AssignFrom, AssignAdd and AssignSub write through b (and into the bound
// copies). SetBacking(nil) takes the value back from the old backing into
// copies of the variable's own.
func (v *Variable) SetBacking(b Backing) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if b == nil {
		if v.backing == nil {
			return
		}
		val := v.readBacking(0)
		v.backing = nil
		for i := range v.copies {
			v.copies[i] = append([]float32(nil), val...)
		}
		return
	}
	v.backing = b
	for i := range v.copies {
		v.copies[i] = nil
	}
}

// Backed returns v's backing, nil when v holds its own copies.
func (v *Variable) Backed() Backing {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.backing
}

// BindCopy makes buf (of v's size, holding the value the step should
// read) the storage of copy replica of a backed variable until
// [Variable.UnbindCopy]: what executors bind and hooks update in place.
func (v *Variable) BindCopy(replica int, buf []float32) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.backing == nil {
		return fmt.Errorf("ops: BindCopy %q: the variable has no backing", v.name)
	}
	if replica < 0 || replica >= len(v.copies) {
		return fmt.Errorf("ops: BindCopy %q: replica %d of %d copies", v.name, replica, len(v.copies))
	}
	if len(buf) != v.shape.Size() {
		return fmt.Errorf("ops: BindCopy %q: %d values for shape %v", v.name, len(buf), v.shape)
	}
	v.copies[replica] = buf
	return nil
}

// UnbindCopy releases copy replica of a backed variable and returns the
// buffer it was bound to (nil if none), so the caller can keep what the
// step wrote into it.
func (v *Variable) UnbindCopy(replica int) []float32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.backing == nil || replica < 0 || replica >= len(v.copies) {
		return nil
	}
	buf := v.copies[replica]
	v.copies[replica] = nil
	return buf
}

// readBacking returns a new slice holding the backed value of copy
// replica. Called with v.mu held.
func (v *Variable) readBacking(replica int) []float32 {
	buf := make([]float32, v.shape.Size())
	v.backing.ReadValue(replica, buf)
	return buf
}

// Lender is implemented by a Backing that counts the whole values it
// lends to executors ([Variable.LendCopy]): a distribution's bytes
// gathered per device.
type Lender interface {
	// Lent: a value of n floats was read for copy replica.
	Lent(replica, n int)
	// Returned: that value is no longer used.
	Returned(replica, n int)
}

// Unbound reports whether copy replica of v has no storage: v is backed
// and the copy is not bound, so each read makes a new value.
func (v *Variable) Unbound(replica int) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.backing != nil && replica >= 0 && replica < len(v.copies) && v.copies[replica] == nil
}

// LendCopy returns, for one use by an executor, copy replica's value:
// its storage, or for an unbound copy (see [Variable.Unbound]) a new
// value read from the backing, counted as lent when the backing is a
// [Lender]. Hand a lent value back with [Variable.ReturnCopy] when the
// use is over, so that an executor holds a backed weight whole only
// while a kernel reads it.
func (v *Variable) LendCopy(replica int) (buf []float32, lent bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	r := replica
	if r >= len(v.copies) {
		r = 0
	}
	if v.copies[r] != nil {
		return v.copies[r], false
	}
	buf = v.readBacking(r)
	if l, ok := v.backing.(Lender); ok {
		l.Lent(r, len(buf))
	}
	return buf, true
}

// ReturnCopy hands back a value [Variable.LendCopy] lent.
func (v *Variable) ReturnCopy(replica int, buf []float32) {
	v.mu.RLock()
	b := v.backing
	v.mu.RUnlock()
	if l, ok := b.(Lender); ok {
		l.Returned(replica, len(buf))
	}
}

// mirrorBackedLocked makes a backed variable count n copies, all unbound.
func (v *Variable) mirrorBackedLocked(n int) {
	v.copies = make([][]float32, n)
}

// RowReader is implemented by a Backing that can read some rows of a
// rank-2 variable without the others (a distribution reads them from the
// shards that hold them).
type RowReader interface {
	// ReadRows writes row rows[k] of the value into row k of dst, for copy
	// replica.
	ReadRows(replica int, rows []int, dst []float32)
}

// LendRows lends, for one kernel that reads only these rows of the
// rank-2 variable v (see [Op.RowsRead]), a table of them alone: row k is
// row rows[k] of v, counted as lent when the backing is a [Lender]. Give
// it back with [Variable.ReturnCopy]. ok is false, and nothing is lent,
// unless copy replica is unbound and the backing is a [RowReader].
func (v *Variable) LendRows(replica int, rows []int) (buf []float32, ok bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	rr, isRR := v.backing.(RowReader)
	if !isRR || len(v.shape) != 2 || replica < 0 || replica >= len(v.copies) || v.copies[replica] != nil {
		return nil, false
	}
	for _, r := range rows {
		if r < 0 || r >= v.shape[0] {
			return nil, false
		}
	}
	buf = make([]float32, len(rows)*v.shape[1])
	rr.ReadRows(replica, rows, buf)
	if l, ok := v.backing.(Lender); ok {
		l.Lent(replica, len(buf))
	}
	return buf, true
}
