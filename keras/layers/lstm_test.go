package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// LSTM parameters: 4*(units*(features+units)+units).
func TestLSTMLayer(t *testing.T) {
	const units, feat = 5, 3
	params := 4 * (units*(feat+units) + units)
	layertest.Run(t, layers.NewLSTM(units), ops.Shape{2, 4, feat}, ops.Shape{2, units}, params)
	layertest.Run(t, layers.NewLSTM(units, layers.WithReturnSequences(true)), ops.Shape{2, 4, feat}, ops.Shape{2, 4, units}, params)
	layertest.Run(t, layers.NewLSTM(units, layers.WithGoBackwards(true), layers.WithUseBias(false)), ops.Shape{2, 4, feat}, ops.Shape{2, units}, params-4*units)
}
