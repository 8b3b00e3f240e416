package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestIdentityConformance(t *testing.T) {
	layertest.Run(t, layers.NewIdentity(), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 0)
	x := ops.Value{Shape: ops.Shape{1, 2}, Data: []float32{7, -3}}
	layertest.AllClose(t, "Identity", layertest.Forward(t, layers.NewIdentity(), false, x).Data, []float64{7, -3}, 0)
}
