//go:build cuda

package cuda

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"gorgonia.org/cu"
)

// Enabled reports whether this build has the CUDA backend (the cuda tag).
const Enabled = true

// Device is an opened physical GPU: its primary context, retained once
// for the life of the process.
type Device struct {
	DeviceInfo
	dev cu.Device
	ctx cu.CUContext
}

var (
	devOnce sync.Once
	devs    []*Device
	devErr  error
)

func openAll() {
	n, err := cu.NumDevices()
	if err != nil {
		devErr = fmt.Errorf("cuda: counting devices: %w", err)
		return
	}
	if n == 0 {
		devErr = ErrNotAvailable
		return
	}
	for i := 0; i < n; i++ {
		d, err := cu.GetDevice(i)
		if err != nil {
			devErr = fmt.Errorf("cuda: device %d: %w", i, err)
			return
		}
		info := DeviceInfo{Ordinal: i}
		if info.Name, err = d.Name(); err != nil {
			devErr = fmt.Errorf("cuda: device %d name: %w", i, err)
			return
		}
		if info.TotalMem, err = d.TotalMem(); err != nil {
			devErr = fmt.Errorf("cuda: device %d memory: %w", i, err)
			return
		}
		info.Major, _ = d.Attribute(cu.ComputeCapabilityMajor)
		info.Minor, _ = d.Attribute(cu.ComputeCapabilityMinor)
		ctx, err := d.RetainPrimaryCtx()
		if err != nil {
			devErr = fmt.Errorf("cuda: device %d (%s) primary context: %w", i, info.Name, err)
			return
		}
		devs = append(devs, &Device{DeviceInfo: info, dev: d, ctx: ctx})
	}
}

// Open returns the opened physical GPUs (their primary contexts retained).
func Open() ([]*Device, error) {
	devOnce.Do(openAll)
	return devs, devErr
}

// Devices lists the physical GPUs.
func Devices() ([]DeviceInfo, error) {
	ds, err := Open()
	if err != nil {
		return nil, err
	}
	out := make([]DeviceInfo, len(ds))
	for i, d := range ds {
		out[i] = d.DeviceInfo
	}
	return out, nil
}

// Do runs fn on the calling goroutine, locked to its OS thread, with the
// device's primary context current. Every driver, cuBLAS, cuDNN, NCCL and
// kernel call of gokeras happens inside a Do. Nested calls are fine: the
// context current before (another device's, or one the caller made) is
// current again when Do returns.
func (d *Device) Do(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var prev C.CUcontext
	if err := check("cuCtxGetCurrent", C.cuCtxGetCurrent(&prev)); err != nil {
		return fmt.Errorf("cuda: %s: %w", d.Name, err)
	}
	mine := *(*C.CUcontext)(unsafe.Pointer(&d.ctx))
	if prev != mine {
		if err := check("cuCtxSetCurrent", C.cuCtxSetCurrent(mine)); err != nil {
			return fmt.Errorf("cuda: making %s's context current: %w", d.Name, err)
		}
	}
	err := fn()
	if prev != mine {
		if e := check("cuCtxSetCurrent", C.cuCtxSetCurrent(prev)); e != nil && err == nil {
			err = fmt.Errorf("cuda: restoring the context current before %s's: %w", d.Name, e)
		}
	}
	return err
}

// MemInfo returns the free and total bytes of the device.
func (d *Device) MemInfo() (free, total int64, err error) {
	err = d.Do(func() error {
		var e error
		free, total, e = cu.MemInfo()
		return e
	})
	return free, total, err
}

// driverAlloc is the Backend of a device's allocators: cuMemAlloc and
// cuMemFree, called inside the device's Do by the allocator's users.
type driverAlloc struct{}

func (driverAlloc) Malloc(n int64) (uintptr, error) {
	p, err := cu.MemAlloc(n)
	return uintptr(p), err
}

func (driverAlloc) Free(p uintptr) error { return cu.MemFree(cu.DevicePtr(p)) }

// Do converts cu's context handle to the driver's: cu.CUContext holds
// exactly the C handle.
var (
	_ [unsafe.Sizeof(cu.CUContext{}) - unsafe.Sizeof(C.CUcontext(nil))]struct{}
	_ [unsafe.Sizeof(C.CUcontext(nil)) - unsafe.Sizeof(cu.CUContext{})]struct{}
)

// cstream converts gorgonia's stream handle to this package's C type.
func cstream(s cu.Stream) C.CUstream { return C.CUstream(unsafe.Pointer(s.C())) }

func check(what string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	var s *C.char
	C.cuGetErrorString(r, &s)
	msg := "unknown error"
	if s != nil {
		msg = C.GoString(s)
	}
	return fmt.Errorf("cuda: %s: %s (%d)", what, msg, int(r))
}
