package layers

// SetFusedLSTM sets how LSTM runs its time loop: "auto", "on" (always
// ops.LSTMSequence) or "off" (always unrolled), for tests and benchmarks
// that compare them; it returns the previous setting.
func SetFusedLSTM(mode string) string {
	old := fusedLSTM
	fusedLSTM = mode
	return old
}
