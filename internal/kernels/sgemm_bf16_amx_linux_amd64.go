//go:build linux && amd64 && !noasm

package kernels

import (
	"os"
	"syscall"

	"golang.org/x/sys/cpu"
)

// bf16KernelAMXTiles is the AMX micro-kernel: TDPBF16PS on tiles 32x32
// tiles of C down one 32-column panel of B, each held in four 16x16
// float32 tile registers. Its operands differ from the AVX-512 kernel's:
// kp is a multiple of 16, A is in row layout (row stride rsa pairs, 32
// rows readable a tile, tile t's rows from a[t*stride]), B is a packed
// panel of 32 columns, tile t of C starts at c[t*32*ldc]; and it only
// computes C = A*B (beta == 0) or C += A*B (beta != 0, meaning 1) with
// alpha = 1: the caller handles other alpha and beta through a scratch
// tile. The tile unit sums each 16-pair block in its own order, flushing
// subnormals, so results match the Go twin only to within float32
// rounding.
//
//go:noescape
func bf16KernelAMXTiles(tiles, kp int, a *uint32, rsa, stride int, b *uint32, c *float32, ldc int, beta float32)

// bf16Kernel32x32AMX is bf16KernelAMXTiles of one tile, in the kernel
// signature (csa and alpha ignored: 1).
func bf16Kernel32x32AMX(kp int, a *uint32, rsa, csa int, b *uint32, c *float32, ldc int, alpha, beta float32) {
	bf16KernelAMXTiles(1, kp, a, rsa, 0, b, c, ldc, beta)
}

// amxTileConfig is the LDTILECFG operand: palette 1, tiles 0-7 of 16 rows
// of 64 bytes.
var amxTileConfig = func() (cfg [64]byte) {
	cfg[0] = 1
	for t := 0; t < 8; t++ {
		cfg[16+2*t] = 64
		cfg[48+t] = 16
	}
	return cfg
}()

var bf16KernelAMX = &bf16KernelImpl{name: "amx-32x32", mr: 32, nr: 32, fn: bf16Kernel32x32AMX, tiles: bf16KernelAMXTiles, amx: true, kc: 1024}

// amxUsable asks Linux for permission to use the AMX tile data state
// (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), which the kernel
// grants to the whole process (it runs on the first SgemmBF16 call, see
// bf16Probes). GOKERAS_NO_AMX=1 turns AMX off.
func amxUsable() bool {
	if !cpu.X86.HasAMXTile || !cpu.X86.HasAMXBF16 || !hasAVX512BF16 || os.Getenv("GOKERAS_NO_AMX") == "1" {
		return false
	}
	const archReqXcompPerm, xfeatureXtiledata = 0x1023, 18
	_, _, errno := syscall.RawSyscall(syscall.SYS_ARCH_PRCTL, archReqXcompPerm, xfeatureXtiledata, 0)
	return errno == 0
}

func init() {
	bf16Probes = append(bf16Probes, func() {
		if amxUsable() {
			availableBF16Kernels = append(availableBF16Kernels, bf16KernelAMX)
			activeBF16 = bf16KernelAMX
		}
	})
}
