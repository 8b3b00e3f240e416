//go:build !(amd64 || arm64) || noasm

package kernels

func f32ToBF16(dst []uint16, src []float32, ftz bool) { f32ToBF16Generic(dst, src, ftz) }

func bf16ToF32(dst []float32, src []uint16) { bf16ToF32Generic(dst, src) }
