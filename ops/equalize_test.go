package ops_test

import (
	"slices"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestEqualizeHistogram: a hand-computed equalization (Keras' lookup
// table of the channel's cumulative histogram, over the batch), a
// channel in one bin passed through, and the gradient: dy there, zero on
// the equalized channel.
func TestEqualizeHistogram(t *testing.T) {
	// Channel 0 over the 2x3 positions: 0, 0, 100, 100, 100, 255; with
	// 256 bins the cdf is 2 at 0, 5 at 100, 6 at 255, cdf_min 2, so the
	// levels are 0, round(3*255/4) = 191 (191.25) and 255. Channel 1 is
	// 40 or 40.5 (one bin): passed through.
	x := []float32{0, 40, 0, 40.5, 100, 40, 100, 40, 100, 40.5, 255, 40}
	want := []float32{0, 40, 0, 40.5, 191, 40, 191, 40, 191, 40.5, 255, 40}
	tr := ops.NewEagerTrace(false, 1)
	if got := ops.EqualizeHistogram(tr.Constant(ops.Shape{2, 3, 2}, x), 256).Float32s(); !slices.Equal(got, want) {
		t.Errorf("EqualizeHistogram = %v, want %v", got, want)
	}
	// 4 bins: bin trunc(v*3/255): 0, 0, 1, 1, 1, 3; cdf 2, 5, 5, 6;
	// levels 0, 191, 191, 255; lookups trunc(v/255*3) alike.
	if got := ops.EqualizeHistogram(tr.Constant(ops.Shape{2, 3, 2}, x), 4).Float32s(); !slices.Equal(got, want) {
		t.Errorf("EqualizeHistogram (4 bins) = %v, want %v", got, want)
	}
	st := ops.NewTrace(true, 0, 1)
	v := ops.NewVariable("x", ops.Shape{2, 3, 2}, x, true)
	g, err := ops.Gradients(ops.Sum(ops.EqualizeHistogram(st.Read(v), 256), false), []*ops.Variable{v})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := engine.Compile(st, g)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := prog.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}; !slices.Equal(outs[0].Data, want) {
		t.Errorf("gradient %v, want %v", outs[0].Data, want)
	}
}
