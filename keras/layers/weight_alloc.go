package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/internal/memlimit"
	"github.com/gokeras/gokeras/ops"
)

// newWeightValues returns the values of a new weight of shape s (zero),
// after checking that the process can hold them: a weight beyond the
// memory left (layers.NewDense(1<<40) built on 4 features: 16 TiB) panics
// with an *ops.Error, which building turns into an error naming the
// layer, where Go's allocation would be a fatal, unrecoverable out of
// memory. Keras raises a catchable error too.
func newWeightValues(s ops.Shape) []float32 {
	if err := memlimit.Check("weight of shape "+s.String(), memlimit.Bytes(4, s...)); err != nil {
		panic(&ops.Error{Op: "AddWeight", Msg: err.Error()})
	}
	return make([]float32, s.Size())
}

// newConstValues returns n zero values of a constant a layer traces (an
// interpolation matrix, a causal mask, category ids), checked as
// newWeightValues: its sizes come from input shapes and configs, whose
// product may be more than the process can take.
func newConstValues(what string, dims ...int) []float32 {
	b := memlimit.Bytes(4, dims...)
	if err := memlimit.Check(fmt.Sprintf("%s of %v values", what, dims), b); err != nil {
		panic(&ops.Error{Op: what, Msg: err.Error()})
	}
	return make([]float32, b/4)
}
