package layers

// SetFused sets how LSTM and GRU run their time loop: "auto", "on"
// (always ops.LSTMSequence / ops.GRUSequence) or "off" (always unrolled),
// for tests and benchmarks that compare them; it returns the previous
// setting.
func SetFused(mode string) string {
	old := fusedMode
	fusedMode = mode
	return old
}
