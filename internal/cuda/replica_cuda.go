//go:build cuda

package cuda

/*
#include <cuda.h>
#include <string.h>
*/
import "C"

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// blasWorkspace is the fixed cuBLAS workspace of a replica (NVIDIA
// recommends at least 4 MiB on Hopper for graph capture).
const blasWorkspace = 32 << 20

// Replica is one logical GPU: a replica's streams (compute, and copy for
// host-to-device uploads), its caching allocator (limited to the logical
// device's memory), its cuBLAS handle and its pinned staging buffer.
// Several replicas may share a physical device; each uses only its own
// streams, so their work may overlap on the device.
//
// A Replica is used by one goroutine at a time (its replica's), always
// inside [Replica.Do].
type Replica struct {
	Dev   *Device
	Place Placement
	// Compute runs kernels; Copy uploads batches and variables.
	Compute, Copy cu.Stream
	Alloc         *Caching
	Blas          *Blas

	ws       cu.DevicePtr
	uploaded cu.Event // recorded on Copy after a step's uploads
	staging  unsafe.Pointer
	stageCap int // bytes
	stageOff int
}

// NewReplica opens the replica placed at p.
func NewReplica(p Placement) (*Replica, error) {
	ds, err := Open()
	if err != nil {
		return nil, err
	}
	if p.Device < 0 || p.Device >= len(ds) {
		return nil, fmt.Errorf("cuda: no GPU %d (%d found)", p.Device, len(ds))
	}
	r := &Replica{Dev: ds[p.Device], Place: p, Alloc: &Caching{Backend: driverAlloc{}, Limit: p.LimitBytes}}
	err = r.Do(func() error {
		var err error
		if r.Compute, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return fmt.Errorf("cuda: compute stream: %w", err)
		}
		if r.Copy, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return fmt.Errorf("cuda: copy stream: %w", err)
		}
		if r.uploaded, err = cu.MakeEvent(cu.DisableTiming); err != nil {
			return fmt.Errorf("cuda: event: %w", err)
		}
		ws, err := r.Alloc.Malloc(blasWorkspace)
		if err != nil {
			return fmt.Errorf("cuda: cuBLAS workspace: %w", err)
		}
		r.ws = cu.DevicePtr(ws)
		if r.Blas, err = NewBlas(r.Compute, r.ws, blasWorkspace); err != nil {
			return err
		}
		// A fresh handle initialises itself on its first GEMM (kernel
		// loads, heuristics): do it now, outside any CUDA graph capture.
		if err := r.Blas.WarmUp(r.Compute); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w (replica on %s, logical %d)", err, DeviceName(p.Device), p.Logical)
	}
	return r, nil
}

// Do runs fn with the replica's device current on a locked thread.
func (r *Replica) Do(fn func() error) error { return r.Dev.Do(fn) }

// Malloc returns device memory for n float32s from the caching allocator.
func (r *Replica) Malloc(n int) (cu.DevicePtr, error) {
	p, err := r.Alloc.Malloc(int64(max(n, 1)) * 4)
	return cu.DevicePtr(p), err
}

// Free returns memory to the allocator's cache.
func (r *Replica) Free(p cu.DevicePtr) error { return r.Alloc.Free(uintptr(p)) }

// BeginUploads starts a step's uploads: it waits until the previous
// step's uploads have left the staging buffer.
func (r *Replica) BeginUploads() error {
	r.stageOff = 0
	return r.uploaded.Synchronize()
}

// Upload copies src to dst through the pinned staging buffer on the copy
// stream; the compute stream waits for it after [Replica.EndUploads].
func (r *Replica) Upload(dst cu.DevicePtr, src []float32) error {
	n := len(src) * 4
	if n == 0 {
		return nil
	}
	if r.stageOff+n > r.stageCap {
		// Grow: the copies in flight read the old buffer, so wait for them.
		if err := r.Copy.Synchronize(); err != nil {
			return fmt.Errorf("cuda: copy stream: %w", err)
		}
		if r.staging != nil {
			if err := cu.MemFreeHost(r.staging); err != nil {
				return fmt.Errorf("cuda: freeing pinned memory: %w", err)
			}
			r.staging = nil
		}
		want := max(2*r.stageCap, r.stageOff+n, 1<<20)
		var p unsafe.Pointer
		if err := check("cuMemAllocHost", C.cuMemAllocHost(&p, C.size_t(want))); err != nil {
			r.stageCap = 0
			return err
		}
		r.staging, r.stageCap, r.stageOff = p, want, 0
	}
	host := unsafe.Add(r.staging, r.stageOff)
	C.memcpy(host, unsafe.Pointer(&src[0]), C.size_t(n))
	r.stageOff += n
	if err := cu.MemcpyHtoDAsync(dst, host, int64(n), r.Copy); err != nil {
		return fmt.Errorf("cuda: upload of %d bytes: %w", n, err)
	}
	return nil
}

// EndUploads makes the compute stream wait for the uploads so far.
func (r *Replica) EndUploads() error {
	if err := r.uploaded.Record(r.Copy); err != nil {
		return fmt.Errorf("cuda: recording the upload event: %w", err)
	}
	if err := r.Compute.Wait(r.uploaded, 0); err != nil {
		return fmt.Errorf("cuda: compute stream waiting for uploads: %w", err)
	}
	return nil
}

// UploadSync copies src to dst and returns when it is there (for
// constants, the outputs of steps run on the CPU and one-off copies). The
// copy is queued on the compute stream, after the kernels already queued
// there (which may still read dst) and before those queued next, and the
// stream is synchronised before returning: src is pageable Go memory,
// which the driver may read after an asynchronous call returns, and a
// synchronous cuMemcpyHtoD on the legacy stream is ordered with neither.
func (r *Replica) UploadSync(dst cu.DevicePtr, src []float32) error {
	if len(src) == 0 {
		return nil
	}
	n := int64(len(src)) * 4
	if err := cu.MemcpyHtoDAsync(dst, unsafe.Pointer(&src[0]), n, r.Compute); err != nil {
		return fmt.Errorf("cuda: upload of %d floats: %w", len(src), err)
	}
	if err := r.Compute.Synchronize(); err != nil {
		return fmt.Errorf("cuda: compute stream after an upload of %d floats: %w", len(src), err)
	}
	return nil
}

// Download waits for the compute stream and copies src to dst.
func (r *Replica) Download(dst []float32, src cu.DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	if err := r.Compute.Synchronize(); err != nil {
		return fmt.Errorf("cuda: compute stream: %w", err)
	}
	if err := cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), src, int64(len(dst))*4); err != nil {
		return fmt.Errorf("cuda: download of %d floats: %w", len(dst), err)
	}
	return nil
}

// CopyDevice copies n floats from src to dst on the compute stream.
func (r *Replica) CopyDevice(dst, src cu.DevicePtr, n int) error {
	if n == 0 || dst == src {
		return nil
	}
	return cu.MemcpyDtoDAsync(dst, src, int64(n)*4, r.Compute)
}

// Sync waits for all of the replica's work.
func (r *Replica) Sync() error {
	if err := r.Copy.Synchronize(); err != nil {
		return err
	}
	return r.Compute.Synchronize()
}

// Stats returns the replica's allocator counters (Peak: its peak device
// memory in use; PeakHeld: with the cache).
func (r *Replica) Stats() Stats { return r.Alloc.Stats() }
