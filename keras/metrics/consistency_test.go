package metrics_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
)

// TestMatchesLosses checks that the crossentropy and regression metrics
// agree with the losses of the same name (two independent
// implementations: float64 loops here, composed float32 ops there).
func TestMatchesLosses(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, k = 5, 4
	logits, probs, onehot, binary, sparse := make([]float64, n*k), make([]float64, n*k), make([]float64, n*k), make([]float64, n*k), make([]float64, n)
	for i := range logits {
		logits[i] = r.Float64()*8 - 4
		probs[i] = 0.05 + 0.9*r.Float64()
		binary[i] = float64(r.IntN(2))
	}
	for i := range sparse {
		sparse[i] = float64(r.IntN(k))
		onehot[i*k+int(sparse[i])] = 1
	}
	s := shp(n, k)
	for _, tc := range []struct {
		name   string
		loss   losses.Loss
		metric metrics.LabelMetric
		yt     ops.Value
		yp     []float64
	}{
		{"sparse logits", losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), metrics.NewSparseCategoricalCrossentropy(metrics.FromLogits(true)), val(shp(n), sparse...), logits},
		{"sparse probabilities", losses.NewSparseCategoricalCrossentropy(), metrics.NewSparseCategoricalCrossentropy(), val(shp(n, 1), sparse...), probs},
		{"categorical logits", losses.NewCategoricalCrossentropy(losses.FromLogits(true), losses.LabelSmoothing(0.2)), metrics.NewCategoricalCrossentropy(metrics.FromLogits(true), metrics.LabelSmoothing(0.2)), val(s, onehot...), logits},
		{"categorical probabilities", losses.NewCategoricalCrossentropy(), metrics.NewCategoricalCrossentropy(), val(s, onehot...), probs},
		{"binary logits", losses.NewBinaryCrossentropy(losses.FromLogits(true), losses.LabelSmoothing(0.1)), metrics.NewBinaryCrossentropy(metrics.FromLogits(true), metrics.LabelSmoothing(0.1)), val(s, binary...), logits},
		{"binary probabilities", losses.NewBinaryCrossentropy(), metrics.NewBinaryCrossentropy(), val(s, binary...), probs},
		{"mse", losses.NewMeanSquaredError(), metrics.NewMeanSquaredError(), val(s, binary...), logits},
		{"mae", losses.NewMeanAbsoluteError(), metrics.NewMeanAbsoluteError(), val(s, binary...), logits},
	} {
		yp := val(s, tc.yp...)
		tr := ops.NewTrace(false, 0, 1)
		out := tc.loss.Call(tr.Constant(tc.yt.Shape, tc.yt.Data), tr.Constant(s, yp.Data))
		tc.metric.UpdateState(tr.Constant(tc.yt.Shape, tc.yt.Data), tr.Constant(s, yp.Data))
		p, err := engine.Compile(tr, []ops.Tensor{out})
		if err != nil {
			t.Fatal(err)
		}
		vals, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		near(t, tc.name, tc.metric.Result(), float64(vals[0].Data[0]), 1e-5)
	}
}
