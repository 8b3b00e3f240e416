package kernels

// Saxpy computes y[i] += alpha*x[i] for i in [0, len(x)). It panics if
// len(y) < len(x).
func Saxpy(alpha float32, x, y []float32) {
	if len(y) < len(x) {
		panic("kernels: Saxpy: len(y) < len(x)")
	}
	if len(x) == 0 || alpha == 0 {
		return
	}
	saxpy(alpha, x, y[:len(x)])
}

// Sdot returns sum(x[i]*y[i]) for i in [0, len(x)). It panics if
// len(y) < len(x).
func Sdot(x, y []float32) float32 {
	if len(y) < len(x) {
		panic("kernels: Sdot: len(y) < len(x)")
	}
	if len(x) == 0 {
		return 0
	}
	return sdot(x, y[:len(x)])
}
