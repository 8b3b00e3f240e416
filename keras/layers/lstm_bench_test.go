package layers_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// lstmBenchShapes are the shapes tools/rnn_bench/lstm_torch.py times in
// PyTorch: the addition example's encoder, and a longer sequence.
var lstmBenchShapes = []struct{ batch, steps, features, units int }{
	{32, 7, 12, 128},
	{64, 50, 64, 128},
}

// benchRecurrent times a forward pass and the gradients of sum(output)
// with respect to the input and the weights (one training step's work
// without the optimizer), as the PyTorch script does.
func benchRecurrent(b *testing.B, mk func(units int) layers.Layer, batch, steps, features, units int) {
	l := mk(units)
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, steps, features}}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	xd := make([]float32, batch*steps*features)
	for i := range xd {
		xd[i] = float32(r.NormFloat64())
	}
	xv := ops.NewVariable("x", ops.Shape{batch, steps, features}, xd, true)
	tr := ops.NewTrace(true, 0, 1)
	y := l.Call([]ops.Tensor{tr.Read(xv)}, true)
	wrt := append([]*ops.Variable{xv}, l.TrainableWeights()...)
	grads, err := ops.Gradients(ops.Sum(y, false), wrt)
	if err != nil {
		b.Fatal(err)
	}
	p, err := engine.Compile(tr, append([]ops.Tensor{y}, grads...))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Run(engine.Single{}, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Run(engine.Single{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/step")
}

// BenchmarkLSTMForwardBackward: LSTM returning sequences, as the fused
// ops.LSTMSequence and as the loop unrolled into the graph.
func BenchmarkLSTMForwardBackward(b *testing.B) {
	for _, mode := range []string{"on", "off"} {
		for _, s := range lstmBenchShapes {
			name := map[string]string{"on": "fused", "off": "unrolled"}[mode]
			b.Run(fmt.Sprintf("%s/b%d_t%d_f%d_u%d", name, s.batch, s.steps, s.features, s.units), func(b *testing.B) {
				defer layers.SetFused(layers.SetFused(mode))
				benchRecurrent(b, func(u int) layers.Layer { return layers.NewLSTM(u, layers.WithReturnSequences(true)) }, s.batch, s.steps, s.features, s.units)
			})
		}
	}
}

// BenchmarkGRUForwardBackward: GRU (reset_after) returning sequences, as
// the fused ops.GRUSequence and as the loop unrolled into the graph.
func BenchmarkGRUForwardBackward(b *testing.B) {
	for _, mode := range []string{"on", "off"} {
		for _, s := range lstmBenchShapes {
			name := map[string]string{"on": "fused", "off": "unrolled"}[mode]
			b.Run(fmt.Sprintf("%s/b%d_t%d_f%d_u%d", name, s.batch, s.steps, s.features, s.units), func(b *testing.B) {
				defer layers.SetFused(layers.SetFused(mode))
				benchRecurrent(b, func(u int) layers.Layer { return layers.NewGRU(u, layers.WithReturnSequences(true)) }, s.batch, s.steps, s.features, s.units)
			})
		}
	}
}
