package ops

import (
	"testing"
)

// TestEagerOpReleasesScratch: an eager transposed convolution, which
// works in the trace's scratch arena, leaves the arena empty when it is
// done (its column matrix is garbage, not kept by the trace as long as an
// eager tensor keeps the trace), and so do its gradient ops, which take
// scratch again. TestEagerConvTransposeMatchesProgram checks the values.
func TestEagerOpReleasesScratch(t *testing.T) {
	tr := NewEagerTrace(true, 1)
	x := NewVariable("x", Shape{2, 5, 5, 3}, make([]float32, 2*5*5*3), true)
	w := NewVariable("w", Shape{3, 3, 4, 3}, make([]float32, 3*3*4*3), true)
	for i := range x.Data(0) {
		x.Data(0)[i] = float32(i%7) - 3
	}
	for i := range w.Data(0) {
		w.Data(0)[i] = float32(i%5)*0.25 - 0.5
	}
	y := Conv2DTranspose(tr.Read(x), tr.Read(w), Conv2DTransposeAttrs{Strides: [2]int{2, 2}, Padding: "same"})
	_ = y.Float32s() // runs the op, if it has not run yet
	arena, ok := tr.Attr(scratchKey{}).(*scratchArena)
	if !ok {
		t.Fatal("the transposed convolution made no scratch arena: this test no longer tests the release")
	}
	if arena.buf != nil {
		t.Errorf("after the eager op the arena holds %d floats", cap(arena.buf))
	}
	grads, err := Gradients(Sum(Square(y), false), []*Variable{x, w})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range grads {
		_ = g.Float32s() // computes the gradient ops
	}
	if arena.buf != nil {
		t.Errorf("after the gradient ops the arena holds %d floats", cap(arena.buf))
	}
}
