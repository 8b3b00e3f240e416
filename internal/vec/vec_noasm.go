//go:build !(amd64 || arm64) || noasm

package vec

// Without the assembly kernels every wrapper in vec.go runs its Go loop;
// these stubs are never called.
const useAsm, usePoolAsm, useAdamAsm, useTransposeAsm = false, false, false, false

func reluAsm(dst, x *float32, n int)                                  { panic("vec: no asm") }
func reluGradAsm(dst, y, dy *float32, n int)                          { panic("vec: no asm") }
func addAsm(dst, a, b *float32, n int)                                { panic("vec: no asm") }
func addReluAsm(dst, a, b *float32, n int)                            { panic("vec: no asm") }
func subAsm(dst, a, b *float32, n int)                                { panic("vec: no asm") }
func mulAsm(dst, a, b *float32, n int)                                { panic("vec: no asm") }
func maxAsm(dst, a, b *float32, n int)                                { panic("vec: no asm") }
func scaleAsm(dst, x *float32, n int, c float32)                      { panic("vec: no asm") }
func addScalarAsm(dst, x *float32, n int, c float32)                  { panic("vec: no asm") }
func axpyAsm(dst, x *float32, n int, c float32)                       { panic("vec: no asm") }
func squareAsm(dst, x *float32, n int)                                { panic("vec: no asm") }
func roundBF16Asm(dst, x *float32, n int)                             { panic("vec: no asm") }
func addRoundAsm(dst, a, b *float32, n int)                           { panic("vec: no asm") }
func addReluRoundAsm(dst, a, b *float32, n int)                       { panic("vec: no asm") }
func scaleShiftRoundAsm(dst, x, s, t *float32, n int)                 { panic("vec: no asm") }
func scaleShiftReluRoundAsm(dst, x, s, t *float32, n int)             { panic("vec: no asm") }
func dualAffineRoundAsm(dst, a, p, b, q, r *float32, n int)           { panic("vec: no asm") }
func scaleShiftAsm(dst, x, s, t *float32, n int)                      { panic("vec: no asm") }
func scaleShiftReluAsm(dst, x, s, t *float32, n int)                  { panic("vec: no asm") }
func dualAffineAsm(dst, a, p, b, q, r *float32, n int)                { panic("vec: no asm") }
func accRowsAsm(acc *float64, x *float32, n int)                      { panic("vec: no asm") }
func accRowsSqAsm(sum, sq *float64, x *float32, n int)                { panic("vec: no asm") }
func accCenteredAsm(acc0, acc1 *float64, x, dy, mean *float32, n int) { panic("vec: no asm") }
func adamAsm(w, g, m, v *float32, n int, alpha, c1, c2, eps float32)  { panic("vec: no asm") }
func transpose8x8Asm(dst *float32, ldd int, src *float32, lds int)    { panic("vec: no asm") }
