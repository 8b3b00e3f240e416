package layers

// Wrappers build the layers they wrap: the weight budget of a model loaded
// from a file (see [Base.LimitWeights]) reaches those too, so that a
// config cannot ask a wrapped layer for weights the file does not hold.

// limitWeights sets the budget of l when it takes one.
func limitWeights(l any, budget *int64) {
	if lw, ok := l.(interface{ LimitWeights(*int64) }); ok {
		lw.LimitWeights(budget)
	}
}

// LimitWeights implements the weight budget for the RNN and its cell
// (LSTM, GRU and SimpleRNN too).
func (l *RNN) LimitWeights(budget *int64) {
	l.Base.LimitWeights(budget)
	limitWeights(l.cell, budget)
}

// LimitWeights implements the weight budget for the wrapper and the
// layer it wraps.
func (l *TimeDistributed) LimitWeights(budget *int64) {
	l.Base.LimitWeights(budget)
	limitWeights(l.Layer, budget)
}

// LimitWeights implements the weight budget for the wrapper and both of
// its recurrent layers.
func (l *Bidirectional) LimitWeights(budget *int64) {
	l.Base.LimitWeights(budget)
	limitWeights(l.Forward, budget)
	limitWeights(l.Backward, budget)
}
