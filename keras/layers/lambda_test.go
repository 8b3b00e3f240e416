package layers_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestLambda(t *testing.T) {
	l := layers.NewLambda(func(x ops.Tensor) ops.Tensor { return ops.Square(ops.Sum(x, false, -1)) })
	x := ops.Value{Shape: ops.Shape{2, 3}, Data: []float32{1, 2, 3, -1, 0, 4}}
	y := layertest.Forward(t, l, false, x)
	layertest.AllClose(t, "Lambda", y.Data, []float64{36, 9}, 0)
	if _, err := json.Marshal(l.GetConfig()); !errors.Is(err, layers.ErrLambdaNotSerializable) {
		t.Errorf("encoding the config: %v, want ErrLambdaNotSerializable", err)
	}
	if l := layers.NewLambda(nil); l.Err() == nil {
		t.Error("nil function: no error")
	}
	bad := layers.NewLambda(func(ops.Tensor) ops.Tensor { return ops.Tensor{} })
	if _, err := layers.OutputShape(bad, []ops.Shape{{-1, 3}}); err == nil {
		t.Error("a function returning no tensor: no error")
	}
}
