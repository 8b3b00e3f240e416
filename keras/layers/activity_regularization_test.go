package layers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// ActivityRegularization passes its input through (its penalty, checked
// against Keras' training losses by keras' TestConstraintsTrainLikeKeras,
// is added by layers.Call), writes l1 and l2 without the
// activity_regularizer they make, and refuses bad penalties by name.
func TestActivityRegularization(t *testing.T) {
	layertest.Run(t, layers.NewActivityRegularization(0.01, 0.02), ops.Shape{3, 4}, ops.Shape{3, 4}, 0)
	x := ops.Value{Shape: ops.Shape{2, 3}, Data: []float32{-2, -1, 0, 1, 2, 3}}
	if y := layertest.Forward(t, layers.NewActivityRegularization(0.5, 0.5), true, x); !equal32(y.Data, x.Data) {
		t.Errorf("training output %v, want the input", y.Data)
	}
	cfg := layers.NewActivityRegularization(0.01, 0.02).GetConfig()
	if cfg["l1"] != 0.01 || cfg["l2"] != 0.02 || cfg["activity_regularizer"] != nil {
		t.Errorf("config %v", cfg)
	}
	for _, c := range []struct {
		l    *layers.ActivityRegularization
		want string
	}{
		{layers.NewActivityRegularization(-1, 0, layers.WithName("neg")), `"neg": l1 and l2 must be finite and >= 0`},
		{layers.NewActivityRegularization(0, math.NaN(), layers.WithName("nan")), `"nan"`},
		{layers.NewActivityRegularization(0, 1, layers.WithActivityRegularizer(layers.L2(1))), "WithActivityRegularizer is not taken"},
	} {
		if err := c.l.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error with %q", err, c.want)
		}
	}
}
