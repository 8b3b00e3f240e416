//go:build cuda

// Command preflight is the first thing tools/gpu/call1.sh runs on a GPU
// machine: in a few seconds it proves that a cuda build of gokeras reaches
// the GPU, or says why not. It lists the devices, opens a replica (streams,
// allocator, cuBLAS handle with its warm-up GEMM), loads our PTX kernels,
// makes one round trip (upload, our Scale kernel, a cuBLAS GEMM, download)
// checked against the CPU, and asks cuDNN and NCCL for their versions.
// Each check prints one "preflight: ok|FAIL ..." line; the exit status is
// 1 if any failed.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/gokeras/gokeras/internal/cuda"
	"github.com/gokeras/gokeras/internal/cuda/kernels"
	"github.com/gokeras/gokeras/internal/cudnn"
	"github.com/gokeras/gokeras/internal/nccl"
)

func main() {
	t0 := time.Now()
	failed := false
	report := func(what string, err error) bool {
		if err != nil {
			failed = true
			fmt.Printf("preflight: FAIL %s: %v\n", what, err)
			return false
		}
		fmt.Printf("preflight: ok   %s\n", what)
		return true
	}
	ds, err := cuda.Devices()
	if err == nil && len(ds) == 0 {
		err = cuda.ErrNotAvailable
	}
	if !report(fmt.Sprintf("devices: %d", len(ds)), err) {
		os.Exit(1)
	}
	for _, d := range ds {
		fmt.Printf("preflight: GPU %d: %s, %.1f GiB, compute capability %d.%d\n", d.Ordinal, d.Name, float64(d.TotalMem)/(1<<30), d.Major, d.Minor)
	}
	r, err := cuda.NewReplica(cuda.Placement{Device: 0})
	if !report("replica on GPU 0 (streams, allocator, cuBLAS handle and its warm-up GEMM)", err) {
		os.Exit(1)
	}
	report("our PTX kernels load (JIT)", r.Do(kernels.Load))
	report("round trip: upload, Scale kernel, cuBLAS GEMM, download", r.Do(func() error { return roundTrip(r) }))
	if v, err := cudnn.Version(); report(fmt.Sprintf("cuDNN version %d", v), err) {
		err := r.Do(func() error {
			h, err := cudnn.NewHandle(r.Compute)
			if err != nil {
				return err
			}
			return h.Destroy()
		})
		report("cuDNN handle", err)
	}
	v, err := nccl.Version()
	report(fmt.Sprintf("NCCL version %d", v), err)
	fmt.Printf("preflight: %s in %.1fs\n", map[bool]string{false: "passed", true: "FAILED"}[failed], time.Since(t0).Seconds())
	if failed {
		os.Exit(1)
	}
}

// roundTrip uploads x, scales it by 2 with our kernel, multiplies the 4x4
// result by the identity with cuBLAS and downloads it: every value must
// be exactly 2x.
func roundTrip(r *cuda.Replica) error {
	const n = 16
	x := make([]float32, n)
	id := make([]float32, n)
	for i := range x {
		x[i] = float32(i) - 7.5
	}
	for i := 0; i < 4; i++ {
		id[i*4+i] = 1
	}
	a, err := r.Malloc(n)
	if err != nil {
		return err
	}
	defer r.Free(a)
	b, err := r.Malloc(n)
	if err != nil {
		return err
	}
	defer r.Free(b)
	c, err := r.Malloc(n)
	if err != nil {
		return err
	}
	defer r.Free(c)
	if err := r.UploadSync(a, x); err != nil {
		return err
	}
	if err := r.UploadSync(b, id); err != nil {
		return err
	}
	if err := kernels.Scale(r.Compute, a, a, n, 2); err != nil {
		return err
	}
	if err := r.Blas.Sgemm(false, false, 4, 4, 4, 1, a, 4, b, 4, 0, c); err != nil {
		return err
	}
	got := make([]float32, n)
	if err := r.Download(got, c); err != nil {
		return err
	}
	for i, v := range got {
		if v != 2*x[i] {
			return fmt.Errorf("element %d is %v, want %v (all: %v)", i, v, 2*x[i], got)
		}
	}
	return nil
}
