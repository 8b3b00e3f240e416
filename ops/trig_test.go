package ops_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestTrig: Sin and Cos give math's values (rounded to float32) and their
// gradients match finite differences.
func TestTrig(t *testing.T) {
	tr := ops.NewEagerTrace(false, 1)
	x := []float32{-3, -1, 0, 0.5, 2, 7}
	s, c := ops.Sin(tr.Constant(ops.Shape{6}, x)).Float32s(), ops.Cos(tr.Constant(ops.Shape{6}, x)).Float32s()
	for i, v := range x {
		if s[i] != float32(math.Sin(float64(v))) || c[i] != float32(math.Cos(float64(v))) {
			t.Errorf("sin, cos(%v) = %v, %v", v, s[i], c[i])
		}
	}
	checkGrad(t, gradCase{name: "Sin", shapes: []ops.Shape{{3, 4}}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Sin(ops.Scale(x[0], 3)) }})
	checkGrad(t, gradCase{name: "Cos", shapes: []ops.Shape{{3, 4}}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Cos(ops.Scale(x[0], 3)) }})
}
