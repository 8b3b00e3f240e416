package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// The merge layers of issue 31 (Average, Subtract, Maximum, Minimum, Dot)
// share Keras' base Merge checks: how many inputs a layer takes.

// checkMergeArity returns an error unless there are between lo and hi
// inputs (hi 0: no upper bound).
func checkMergeArity(class string, n, lo, hi int) error {
	switch {
	case hi == lo && n != lo:
		return fmt.Errorf("a %s layer should be called on exactly %d inputs, got %d", class, lo, n)
	case n < lo:
		return fmt.Errorf("a %s layer should be called on at least %d input(s), got %d", class, lo, n)
	case hi > 0 && n > hi:
		return fmt.Errorf("a %s layer should be called on at most %d inputs, got %d", class, hi, n)
	}
	return nil
}

// mergeCall panics with an *ops.Error naming l unless in has between lo
// and hi tensors.
func mergeCall(l Layer, in []ops.Tensor, lo, hi int) {
	if err := checkMergeArity(l.ClassName(), len(in), lo, hi); err != nil {
		panic(&ops.Error{Op: fmt.Sprintf("layer %q (%s)", l.Name(), l.ClassName()), Msg: err.Error()})
	}
}
