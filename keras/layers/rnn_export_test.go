package layers

// SetFusedLSTM switches LSTM between ops.LSTMSequence and the unrolled
// loop, for tests and benchmarks that compare them; it returns the
// previous setting.
func SetFusedLSTM(on bool) bool {
	old := fusedLSTM
	fusedLSTM = on
	return old
}
