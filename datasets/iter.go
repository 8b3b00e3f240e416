package datasets

import (
	"context"
	"errors"
	"iter"
	"runtime"
	"sync"
	"weak"
)

// All returns the elements of one pass over d as a Go iterator, each
// range over it starting a new pass; the error that ended the last pass
// is d.Err() afterwards:
//
//	for batch := range ds.All(ctx) {
//		x, y := batch[0], batch[1]
//		...
//	}
//	if err := ds.Err(); err != nil {
//		...
//	}
//
// Breaking out of the loop ends the pass without an error. The error is
// kept per Dataset: passes run at the same time in several goroutines
// share it, so use [Dataset.Iterate] there.
func (d *Dataset) All(ctx context.Context) iter.Seq[Element] {
	return func(yield func(Element) bool) {
		it := d.Iterate(ctx)
		defer it.Close()
		st := passState(d)
		st.set(nil)
		for e, ok := it.Next(); ok; e, ok = it.Next() {
			if !yield(e) {
				return
			}
		}
		st.set(it.Err())
	}
}

// Err returns the error that ended the last pass of [Dataset.All] over d,
// or nil if it ended normally, was stopped by a break, or none ran. A nil
// *Dataset has an error.
func (d *Dataset) Err() error {
	if d == nil {
		return errors.New("datasets: nil *Dataset")
	}
	passErrs.Lock()
	st := passErrs.m[weak.Make(d)]
	passErrs.Unlock()
	if st == nil {
		return nil
	}
	return st.get()
}

// allState is the error of the last All pass of one Dataset. It lives in
// a table keyed by a weak pointer, removed when the Dataset is collected,
// so Datasets stay small, immutable values.
type allState struct {
	mu  sync.Mutex
	err error
}

func (s *allState) set(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
}

func (s *allState) get() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

var passErrs struct {
	sync.Mutex
	m map[weak.Pointer[Dataset]]*allState
}

func passState(d *Dataset) *allState {
	if d == nil {
		return &allState{}
	}
	wp := weak.Make(d)
	passErrs.Lock()
	defer passErrs.Unlock()
	if st := passErrs.m[wp]; st != nil {
		return st
	}
	if passErrs.m == nil {
		passErrs.m = map[weak.Pointer[Dataset]]*allState{}
	}
	st := &allState{}
	passErrs.m[wp] = st
	runtime.AddCleanup(d, func(wp weak.Pointer[Dataset]) {
		passErrs.Lock()
		delete(passErrs.m, wp)
		passErrs.Unlock()
	}, wp)
	return st
}
