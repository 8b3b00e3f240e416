package layers_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// naiveLinear is a user's layer whose weight takes the input's last
// dimension without checking it is known.
type naiveLinear struct {
	layers.Base
	w *ops.Variable
}

func (l *naiveLinear) Build(in []ops.Shape) error {
	l.w = l.AddWeight("w", ops.Shape{in[0][len(in[0])-1], 2}, layers.Ones(), true, nil)
	return nil
}

func (l *naiveLinear) Call(in []ops.Tensor, _ bool) ops.Tensor {
	return ops.MatMul(in[0], in[0].Trace().Read(l.w), false, false)
}

// Dimensions of unknown size (None) follow through the layers whose
// output sizes depend on them and not through those that do not; a
// weight whose shape would depend on one is an error naming the layer,
// not a panic or an allocation.
func TestInputNoneShapes(t *testing.T) {
	layers.ClearSession()
	x := layers.Input([]int{layers.None, 6})
	for _, c := range []struct {
		l    layers.Layer
		want string
	}{
		{layers.NewDense(3), "(None, None, 3)"},
		{layers.NewConv1D(4, 3), "(None, None, 4)"},
		{layers.NewGlobalMaxPooling1D(), "(None, 6)"},
	} {
		y := layers.Apply(c.l, x)
		if y.Err() != nil || y.Shape().String() != c.want {
			t.Errorf("%s on (None, None, 6): %v %v, want %s", c.l.ClassName(), y.Shape(), y.Err(), c.want)
		}
	}
	bad := &naiveLinear{Base: layers.NewBase("NaiveLinear")}
	y := layers.Apply(bad, layers.Input([]int{layers.None}))
	if e := y.Err(); e == nil || !strings.Contains(e.Error(), "naive_linear") || !strings.Contains(e.Error(), "None") {
		t.Errorf("a weight of unknown size: %v", e)
	}
}
