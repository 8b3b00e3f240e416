//go:build !(amd64 || arm64) || noasm

package kernels

// Without assembly only the portable Go micro-kernel (kernelGeneric, the
// default value of active) is available.

func saxpy(alpha float32, x, y []float32) { saxpyGeneric(alpha, x, y) }

func sdot(x, y []float32) float32 { return sdotGeneric(x, y) }
