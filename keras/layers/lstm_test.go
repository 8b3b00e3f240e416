package layers_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"

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

// runLSTMWithGrads runs l on x (with an optional timestep mask) and
// returns the output, the gradients of sum(y*r) for a fixed r with
// respect to x and the weights, and the op kinds of the program.
func runLSTMWithGrads(t *testing.T, l layers.Layer, x ops.Value, mask []float32) ([][]float32, map[string]bool) {
	t.Helper()
	tr := ops.NewTrace(false, 0, 1)
	xv := ops.NewVariable("x", x.Shape, x.Data, true)
	in := tr.Read(xv)
	if mask != nil {
		layers.SetMask(in, tr.Constant(x.Shape[:2], mask))
	}
	y := l.Call([]ops.Tensor{in}, false)
	r := randValue(rand.New(rand.NewPCG(3, 3)), y.Shape())
	loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), r.Data)), false)
	grads, err := ops.Gradients(loss, append([]*ops.Variable{xv}, l.TrainableWeights()...))
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, append([]ops.Tensor{y}, grads...))
	if err != nil {
		t.Fatal(err)
	}
	outs, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, st := range p.Plan().Steps {
		kinds[st.Kind] = true
	}
	res := make([][]float32, len(outs))
	for i, o := range outs {
		res[i] = append([]float32(nil), o.Data...)
	}
	return res, kinds
}

// The fused ops.LSTMSequence and ops.GRUSequence (hand-written BPTT)
// equal the loop unrolled into the graph, output and gradients, with
// masks, both directions, sequences or the last output,
// zero_output_for_mask and no bias.
func TestFusedEqualsUnrolled(t *testing.T) {
	defer layers.SetFused(layers.SetFused("on"))
	rng := rand.New(rand.NewPCG(11, 12))
	x := randValue(rng, ops.Shape{3, 6, 4})
	mask := []float32{1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1}
	lstm := func(o ...layers.Option) layers.Layer { return layers.NewLSTM(5, o...) }
	gru := func(o ...layers.Option) layers.Layer { return layers.NewGRU(5, o...) }
	for _, tc := range []struct {
		name string
		mk   func(...layers.Option) layers.Layer
		kind string
		opts []layers.Option
		mask []float32
	}{
		{"lstm_last", lstm, "LSTMSequence", nil, nil},
		{"lstm_sequences_backwards", lstm, "LSTMSequence", []layers.Option{layers.WithReturnSequences(true), layers.WithGoBackwards(true)}, nil},
		{"lstm_masked_sequences", lstm, "LSTMSequence", []layers.Option{layers.WithReturnSequences(true)}, mask},
		{"lstm_masked_last_backwards", lstm, "LSTMSequence", []layers.Option{layers.WithGoBackwards(true)}, mask},
		{"lstm_masked_zero_output", lstm, "LSTMSequence", []layers.Option{layers.WithReturnSequences(true), layers.WithZeroOutputForMask(true)}, mask},
		{"lstm_no_bias", lstm, "LSTMSequence", []layers.Option{layers.WithUseBias(false), layers.WithUnitForgetBias(false)}, nil},
		{"gru_last", gru, "GRUSequence", nil, nil},
		{"gru_sequences_backwards", gru, "GRUSequence", []layers.Option{layers.WithReturnSequences(true), layers.WithGoBackwards(true)}, nil},
		{"gru_masked_sequences", gru, "GRUSequence", []layers.Option{layers.WithReturnSequences(true)}, mask},
		{"gru_masked_last_backwards", gru, "GRUSequence", []layers.Option{layers.WithGoBackwards(true)}, mask},
		{"gru_no_bias", gru, "GRUSequence", []layers.Option{layers.WithUseBias(false)}, nil},
	} {
		l := tc.mk(tc.opts...)
		if _, err := layers.OutputShape(l, []ops.Shape{{-1, 6, 4}}); err != nil {
			t.Fatal(err)
		}
		for _, w := range l.Weights() { // non-zero biases, so their gradients matter
			d := w.Numpy()
			for i := range d {
				d[i] += 0.1 * float32(rng.NormFloat64())
			}
			w.Assign(d)
		}
		layers.SetFused("on")
		fused, kf := runLSTMWithGrads(t, l, x, tc.mask)
		layers.SetFused("off")
		unrolled, ku := runLSTMWithGrads(t, l, x, tc.mask)
		if !kf[tc.kind] || !kf[tc.kind+"Grad"] || ku[tc.kind] {
			t.Fatalf("%s: fused program kinds %v, unrolled %v", tc.name, kf, ku)
		}
		for i := range fused {
			for j := range fused[i] {
				a, b := float64(fused[i][j]), float64(unrolled[i][j])
				if math.Abs(a-b) > 1e-5*math.Max(1, math.Abs(b)) {
					t.Fatalf("%s: output %d [%d]: fused %v, unrolled %v", tc.name, i, j, a, b)
				}
			}
		}
	}
}
