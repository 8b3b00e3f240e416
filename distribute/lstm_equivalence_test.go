package distribute_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras/layers"
	"gorgonia.org/tensor"
)

// sequences returns n sequences of steps timesteps of f features and
// labels in [0, 10).
func sequences(n, steps, f int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 4))
	x := make([]float32, n*steps*f)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(n, steps, f), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// tokens returns n rows of ids in [1, vocab) padded with 0 at the end to
// steps, and labels in [0, 10).
func tokens(n, steps, vocab int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 5))
	x := make([]float32, n*steps)
	for i := 0; i < n; i++ {
		length := 1 + r.IntN(steps)
		for j := 0; j < length; j++ {
			x[i*steps+j] = float32(1 + r.IntN(vocab-1))
		}
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(n, steps), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// lstmModel stacks an LSTM returning sequences, a GRU and a Dense.
func lstmModel() ([]layers.Layer, error) {
	return []layers.Layer{
		layers.NewLSTM(8, layers.WithInputShape(6, 5), layers.WithReturnSequences(true)),
		layers.NewGRU(6),
		layers.NewDense(10),
	}, nil
}

// longModel is an LSTM of 16 timesteps (run by the fused
// ops.LSTMSequence) returning sequences into a GRU, then a Dense.
func longModel() ([]layers.Layer, error) {
	return []layers.Layer{
		layers.NewLSTM(6, layers.WithInputShape(16, 3), layers.WithReturnSequences(true)),
		layers.NewGRU(4),
		layers.NewDense(10),
	}, nil
}

// maskedModel reads padded ids: Embedding(mask_zero) into a
// Bidirectional LSTM, whose masked steps keep their states.
func maskedModel() ([]layers.Layer, error) {
	return []layers.Layer{
		layers.NewEmbedding(12, 4, layers.WithMaskZero(true), layers.WithInputShape(7)),
		layers.NewBidirectional(layers.NewLSTM(5)),
		layers.NewDense(10),
	}, nil
}

// Recurrent models trained with 2, 3 and 4 replicas of MirroredStrategy
// equal 1 replica on the same global batches (weights to 1e-5 relative,
// history to 1e-5), every replica's copy bitwise the primary after each
// step: the time loop, the masks and the recurrent gradients split over
// the batch as the CNN's do (TestMirroredEquivalence).
func TestMirroredEquivalenceRecurrent(t *testing.T) {
	if err := distribute.SetLogicalCPUs(4); err != nil {
		t.Fatal(err)
	}
	x, y := sequences(33, 6, 5, 11)
	ids, yIDs := tokens(33, 7, 12, 12)
	xl, yl := sequences(33, 16, 3, 13)
	for _, opt := range []string{"adam", "sgd"} {
		t.Run("lstm_gru/"+opt, func(t *testing.T) { checkEquivalence(t, x, y, opt, lstmModel) })
		t.Run("masked_bidirectional/"+opt, func(t *testing.T) { checkEquivalence(t, ids, yIDs, opt, maskedModel) })
		t.Run("fused_lstm/"+opt, func(t *testing.T) { checkEquivalence(t, xl, yl, opt, longModel) })
	}
}
