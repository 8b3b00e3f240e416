package ops_test

import (
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// TestFloorModScalar against integer arithmetic: the remainder with the
// divisor's sign.
func TestFloorModScalar(t *testing.T) {
	var xs []float32
	for v := -20; v <= 20; v++ {
		xs = append(xs, float32(v))
	}
	xs = append(xs, 16777216, -16777215)
	tr := ops.NewTrace(false, 0, 1)
	y := ops.FloorModScalar(tr.Constant(ops.Shape{len(xs)}, xs), 7)
	p, err := engine.Compile(tr, []ops.Tensor{y})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		want := int64(x) % 7
		if want < 0 {
			want += 7
		}
		if v[0].Data[i] != float32(want) {
			t.Errorf("floormod(%v, 7) = %v, want %d", x, v[0].Data[i], want)
		}
	}
}
