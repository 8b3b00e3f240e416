package ops_test

import (
	"slices"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestFloor: tf.floor's values (toward -inf, integers kept) and no
// gradient.
func TestFloor(t *testing.T) {
	tr := ops.NewEagerTrace(false, 1)
	got := ops.Floor(tr.Constant(ops.Shape{6}, []float32{-1.5, -0.25, 0, 0.999, 3, 254.99998})).Float32s()
	if want := []float32{-2, -1, 0, 0, 3, 254}; !slices.Equal(got, want) {
		t.Errorf("Floor = %v, want %v", got, want)
	}
	st := ops.NewTrace(true, 0, 1)
	v := ops.NewVariable("x", ops.Shape{2}, []float32{0.5, 1.5}, true)
	g, err := ops.Gradients(ops.Sum(ops.Floor(st.Read(v)), false), []*ops.Variable{v})
	if err != nil || !g[0].IsNone() {
		t.Errorf("Floor has a gradient (%v, %v), want none as TensorFlow's", g, err)
	}
}
