//go:build cuda

package kernels

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>

// gk_args carries a launch's parameters by value, so no Go pointer goes
// to C: scalars and pointers in v (a float32 in the low 4 bytes), one
// descriptor struct in d at parameter index desc_at (or -1).
typedef struct {
	unsigned long long v[16];
	long long d[64];
	int n;
	int desc_at;
} gk_args;

// gk_load loads PTX with the JIT's error and info logs in log (errlog
// and infolog bytes each, NUL-terminated by the driver).
static CUresult gk_load(CUmodule *m, const char *ptx, char *errlog, size_t errsize, char *infolog, size_t infosize) {
	CUjit_option o[4] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
	                     CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
	void *v[4] = {errlog, (void *)(uintptr_t)errsize, infolog, (void *)(uintptr_t)infosize};
	return cuModuleLoadDataEx(m, ptx, 4, o, v);
}

static CUresult gk_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, CUstream s, gk_args a) {
	void *p[17];
	int j = 0;
	for (int i = 0; i < a.n; i++) p[i] = (i == a.desc_at) ? (void *)a.d : (void *)&a.v[j++];
	return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, 0, s, p, NULL);
}
*/
import "C"

import (
	"embed"
	"fmt"
	"math"
	"strings"
	"sync"
	"unsafe"

	"gorgonia.org/cu"
)

//go:embed ptx/*.ptx
var ptxFS embed.FS

// The launcher converts cu's handles to the driver's: cu.Function and
// cu.Stream each hold exactly the C handle.
var (
	_ [unsafe.Sizeof(cu.Function{}) - unsafe.Sizeof(C.CUfunction(nil))]struct{}
	_ [unsafe.Sizeof(C.CUfunction(nil)) - unsafe.Sizeof(cu.Function{})]struct{}
	_ [unsafe.Sizeof(cu.Module{}) - unsafe.Sizeof(C.CUmodule(nil))]struct{}
	_ [unsafe.Sizeof(C.CUmodule(nil)) - unsafe.Sizeof(cu.Module{})]struct{}
	_ [unsafe.Sizeof(cu.Stream{}) - unsafe.Sizeof(C.CUstream(nil))]struct{}
	_ [unsafe.Sizeof(C.CUstream(nil)) - unsafe.Sizeof(cu.Stream{})]struct{}
)

// ctxKernels is what one context has loaded: a module per family, a
// function per kernel.
type ctxKernels struct {
	mods map[string]cu.Module
	fns  [numKernels]C.CUfunction
}

var cache struct {
	sync.Mutex
	ctx map[cu.CUContext]*ctxKernels
}

// current returns the kernels of the current context, loading nothing.
func current() (cu.CUContext, *ctxKernels, error) {
	ctx, err := cu.CurrentContext()
	if err != nil {
		return ctx, nil, fmt.Errorf("kernels: no current CUDA context: %w", err)
	}
	var zero cu.CUContext
	if ctx == zero {
		return ctx, nil, fmt.Errorf("kernels: no CUDA context is current on this thread (lock the goroutine to its OS thread and make the device's context current)")
	}
	cache.Lock()
	defer cache.Unlock()
	if cache.ctx == nil {
		cache.ctx = map[cu.CUContext]*ctxKernels{}
	}
	k := cache.ctx[ctx]
	if k == nil {
		k = &ctxKernels{mods: map[string]cu.Module{}}
		cache.ctx[ctx] = k
	}
	return ctx, k, nil
}

// loadFamily loads one family's PTX into the current context (the driver
// JITs it for the device). The cache lock must be held.
func (k *ctxKernels) loadFamily(fam string) (cu.Module, error) {
	if m, ok := k.mods[fam]; ok {
		return m, nil
	}
	ptx, err := ptxFS.ReadFile("ptx/" + fam + ".ptx")
	if err != nil {
		return cu.Module{}, fmt.Errorf("kernels: %s: %w", fam, err)
	}
	m, err := loadPTX(fam, ptx)
	if err != nil {
		return cu.Module{}, err
	}
	k.mods[fam] = m
	return m, nil
}

// jitLogBytes is the size of each of the JIT's log buffers.
const jitLogBytes = 16 << 10

// loadPTX JITs one family's PTX for the current context's device; a
// failure carries the driver's error name and the JIT's error log.
func loadPTX(fam string, ptx []byte) (cu.Module, error) {
	src := C.CString(string(ptx))
	defer C.free(unsafe.Pointer(src))
	errLog := (*C.char)(C.calloc(jitLogBytes, 1))
	infoLog := (*C.char)(C.calloc(jitLogBytes, 1))
	defer C.free(unsafe.Pointer(errLog))
	defer C.free(unsafe.Pointer(infoLog))
	var m C.CUmodule
	if r := C.gk_load(&m, src, errLog, jitLogBytes, infoLog, jitLogBytes); r != C.CUDA_SUCCESS {
		var name *C.char
		C.cuGetErrorName(r, &name)
		what := "unknown error"
		if name != nil {
			what = C.GoString(name)
		}
		jit := strings.TrimSpace(C.GoString(errLog))
		if jit == "" {
			jit = strings.TrimSpace(C.GoString(infoLog))
		}
		if jit == "" {
			jit = "(the JIT logged nothing)"
		}
		return cu.Module{}, fmt.Errorf("kernels: loading the %s PTX (JIT for this device): %s (%d); JIT log: %s", fam, what, int(r), jit)
	}
	return *(*cu.Module)(unsafe.Pointer(&m)), nil
}

// function returns kernel id of the current context, loading its family
// on first use.
func function(id kernelID) (C.CUfunction, error) {
	_, k, err := current()
	if err != nil {
		return nil, err
	}
	cache.Lock()
	defer cache.Unlock()
	if f := k.fns[id]; f != nil {
		return f, nil
	}
	spec := kernelTable[id]
	m, err := k.loadFamily(spec.family)
	if err != nil {
		return nil, err
	}
	fn, err := m.Function(spec.name)
	if err != nil {
		return nil, fmt.Errorf("kernels: %s not in the %s PTX: %w", spec.name, spec.family, err)
	}
	f := *(*C.CUfunction)(unsafe.Pointer(&fn))
	k.fns[id] = f
	return f, nil
}

// Load loads every kernel family into the current context now (the
// driver JITs the PTX, a fraction of a second per family; the driver's
// cache makes later processes faster). Call it before capturing a CUDA
// graph, so no module load happens during capture.
func Load() error {
	for id := kernelID(0); id < numKernels; id++ {
		if _, err := function(id); err != nil {
			return err
		}
	}
	return nil
}

// Unload unloads the modules of the current context and forgets them;
// call it before destroying a context that used the kernels.
func Unload() error {
	ctx, k, err := current()
	if err != nil {
		return err
	}
	cache.Lock()
	defer cache.Unlock()
	var first error
	for fam, m := range k.mods {
		if err := m.Unload(); err != nil && first == nil {
			first = fmt.Errorf("kernels: unloading %s: %w", fam, err)
		}
	}
	delete(cache.ctx, ctx)
	return first
}

// args builds one launch's parameters in the order of the kernel's
// signature (kernelSpec.sig), checked at launch.
type args struct {
	a   C.gk_args
	sig [17]byte
	nv  int
}

func (a *args) put(kind byte, v uint64) {
	a.sig[a.a.n] = kind
	a.a.v[a.nv] = C.ulonglong(v)
	a.nv++
	a.a.n++
}

func (a *args) p(d cu.DevicePtr) *args { a.put('p', uint64(d)); return a }
func (a *args) l(v int) *args          { a.put('l', uint64(int64(v))); return a }
func (a *args) f(v float32) *args      { a.put('f', uint64(math.Float32bits(v))); return a }
func (a *args) d(v float64) *args      { a.put('d', math.Float64bits(v)); return a }

// desc adds a descriptor struct (S, R or B) laid out as int64 words.
func (a *args) desc(kind byte, w []int64) *args {
	a.sig[a.a.n] = kind
	a.a.desc_at = C.int(a.a.n)
	for i, x := range w {
		a.a.d[i] = C.longlong(x)
	}
	a.a.n++
	return a
}

func newArgs() *args {
	a := &args{}
	a.a.desc_at = -1
	return a
}

// dims3 is a launch's grid or block size.
type dims3 [3]int

const (
	blockSize = 256
	maxGrid   = 4096 // grid-stride loops: enough blocks to fill the largest GPUs
)

// gridFor returns the 1-D grid for n items of per items a block.
func gridFor(n, per int) dims3 {
	g := (n + per - 1) / per
	return dims3{max(1, min(g, maxGrid)), 1, 1}
}

// launch runs kernel id on stream with the arguments built in a.
func launch(id kernelID, stream cu.Stream, grid, block dims3, a *args) error {
	spec := kernelTable[id]
	if got := string(a.sig[:a.a.n]); got != spec.sig {
		return fmt.Errorf("kernels: %s: arguments %q, want %q (a bug in the wrapper)", spec.name, got, spec.sig)
	}
	f, err := function(id)
	if err != nil {
		return err
	}
	s := *(*C.CUstream)(unsafe.Pointer(&stream))
	if r := C.gk_launch(f, C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), s, a.a); r != C.CUDA_SUCCESS {
		return fmt.Errorf("kernels: launching %s: CUDA error %d", spec.name, int(r))
	}
	return nil
}

// elems launches an elementwise kernel over n items, 256 threads a block.
func elems(id kernelID, stream cu.Stream, n int, a *args) error {
	return launch(id, stream, gridFor(n, blockSize), dims3{blockSize, 1, 1}, a)
}

// checkN validates an element count and the pointers an n > 0 launch
// needs.
func checkN(op string, n int, ptrs ...cu.DevicePtr) error {
	if n < 0 {
		return fmt.Errorf("kernels: %s: negative size %d", op, n)
	}
	if n > 0 {
		for i, p := range ptrs {
			if p == 0 {
				return fmt.Errorf("kernels: %s: pointer argument %d is null", op, i)
			}
		}
	}
	return nil
}
