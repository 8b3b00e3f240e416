package layers

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestWrappersLimitWeights: the weights of a wrapped layer or an RNN's cell
// count against the budget a file gives: built beyond it, each is an
// error naming the inner layer, not an allocation.
func TestWrappersLimitWeights(t *testing.T) {
	for _, c := range []struct {
		name string
		l    Layer
		in   ops.Shape
	}{
		{"LSTM", NewLSTM(64), ops.Shape{-1, 3, 1 << 12}},
		{"GRU", NewGRU(64), ops.Shape{-1, 3, 1 << 12}},
		{"SimpleRNN", NewSimpleRNN(64), ops.Shape{-1, 3, 1 << 12}},
		{"TimeDistributed", NewTimeDistributed(NewDense(64)), ops.Shape{-1, 3, 1 << 12}},
		{"Bidirectional", NewBidirectional(NewLSTM(64)), ops.Shape{-1, 3, 1 << 12}},
	} {
		budget := int64(1000)
		c.l.(interface{ LimitWeights(*int64) }).LimitWeights(&budget)
		_, err := OutputShape(c.l, []ops.Shape{c.in})
		if err == nil || !strings.Contains(err.Error(), "more values than the 1000 the file holds") {
			t.Errorf("%s: error %v; want the budget's", c.name, err)
		}
	}
}
