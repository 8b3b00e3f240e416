//go:build !amd64 || noasm

package kernels

func cvtPairs(dst []uint32, src []float32) { cvtPairsGeneric(dst, src) }
