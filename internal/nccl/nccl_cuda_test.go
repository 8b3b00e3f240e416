//go:build cuda

package nccl

// The collectives on every GPU of the machine, one rank per GPU, against
// sums computed on the host. With one GPU the calls still run (over one
// rank); the parts that need two are skipped with a message.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"gorgonia.org/cu"
)

// gpus returns the primary context of every device, or skips.
func gpus(t *testing.T) []cu.CUContext {
	t.Helper()
	n, err := cu.NumDevices()
	if err != nil || n == 0 {
		if os.Getenv("GOKERAS_REQUIRE_GPU") == "1" {
			t.Fatalf("no CUDA device (%v), and GOKERAS_REQUIRE_GPU=1 makes that a failure", err)
		}
		t.Skipf("no CUDA device (%v); GOKERAS_REQUIRE_GPU=1 makes this a failure", err)
	}
	ctxs := make([]cu.CUContext, n)
	for i := range ctxs {
		if ctxs[i], err = cu.Device(i).RetainPrimaryCtx(); err != nil {
			t.Fatalf("device %d: RetainPrimaryCtx: %v", i, err)
		}
	}
	if n == 1 {
		t.Logf("one GPU: the collectives run over one rank; the multi-GPU checks are skipped")
	}
	return ctxs
}

func use(t *testing.T, ctx cu.CUContext) {
	t.Helper()
	if err := cu.SetCurrentContext(ctx); err != nil {
		t.Fatalf("SetCurrentContext: %v", err)
	}
}

// buf is a float32 device buffer on one device.
type buf struct {
	p cu.DevicePtr
	n int
}

func upload(t *testing.T, v []float32) buf {
	t.Helper()
	p, err := cu.MemAlloc(int64(4 * len(v)))
	if err != nil {
		t.Fatal(err)
	}
	if err := cu.MemcpyHtoD(p, unsafe.Pointer(&v[0]), int64(4*len(v))); err != nil {
		t.Fatal(err)
	}
	return buf{p, len(v)}
}

func download(t *testing.T, b buf) []float32 {
	t.Helper()
	v := make([]float32, b.n)
	if err := cu.MemcpyDtoH(unsafe.Pointer(&v[0]), b.p, int64(4*b.n)); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVersion(t *testing.T) {
	v, err := Version()
	if err != nil {
		t.Fatal(err)
	}
	if v < 20000 {
		t.Fatalf("version code %d", v)
	}
	t.Logf("NCCL %d.%d.%d", v/10000, v/100%100, v%100)
}

// closeTo compares with a relative tolerance (the ranks' order of
// summation is NCCL's, not ours).
func closeTo(t *testing.T, what string, got []float32, want []float64) {
	t.Helper()
	for i, w := range want {
		if math.Abs(float64(got[i])-w) > 1e-6*math.Max(1, math.Abs(w)) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], w)
		}
	}
}

func TestCollectivesInitAll(t *testing.T) {
	ctxs := gpus(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n := len(ctxs)
	devices := make([]int, n)
	for i := range devices {
		devices[i] = i
	}
	use(t, ctxs[0])
	comms, err := InitAll(devices)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for i, c := range comms {
			use(t, ctxs[i])
			if err := c.Destroy(); err != nil {
				t.Error(err)
			}
		}
	}()
	for i, c := range comms {
		if c.Rank() != i || c.Size() != n || c.Device() != i {
			t.Fatalf("communicator %d: %s", i, c)
		}
	}
	const count = 1<<16 + 3 // not a multiple of anything NCCL likes
	r := rand.New(rand.NewPCG(1, 2))
	data := make([][]float32, n)
	sum := make([]float64, count)
	send, recv, gather := make([]buf, n), make([]buf, n), make([]buf, n)
	for i := range data {
		data[i] = make([]float32, count)
		for j := range data[i] {
			data[i][j] = r.Float32()*2 - 1
			sum[j] += float64(data[i][j])
		}
		use(t, ctxs[i])
		send[i] = upload(t, data[i])
		recv[i] = upload(t, make([]float32, count))
		gather[i] = upload(t, make([]float32, n*count))
	}
	defer func() {
		for i := range send {
			use(t, ctxs[i])
			cu.MemFree(send[i].p)
			cu.MemFree(recv[i].p)
			cu.MemFree(gather[i].p)
		}
	}()
	// One thread drives every rank: the calls go in one group.
	group := func(name string, f func(i int, c *Comm) error) {
		t.Helper()
		if err := GroupStart(); err != nil {
			t.Fatal(err)
		}
		for i, c := range comms {
			use(t, ctxs[i])
			if err := f(i, c); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if err := GroupEnd(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, c := range comms {
			use(t, ctxs[i])
			if err := c.Wait(cu.Stream{}, time.Minute); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}

	group("all-reduce", func(i int, c *Comm) error {
		return c.AllReduce(send[i].p, recv[i].p, count, Float32, Sum, cu.Stream{})
	})
	for i := range comms {
		use(t, ctxs[i])
		closeTo(t, fmt.Sprintf("all-reduce on rank %d", i), download(t, recv[i]), sum)
	}

	group("in-place all-reduce", func(i int, c *Comm) error {
		return c.AllReduce(send[i].p, send[i].p, count, Float32, Sum, cu.Stream{})
	})
	for i := range comms {
		use(t, ctxs[i])
		closeTo(t, fmt.Sprintf("in-place all-reduce on rank %d", i), download(t, send[i]), sum)
	}

	root := n - 1
	group("broadcast", func(i int, c *Comm) error {
		return c.Broadcast(recv[i].p, recv[i].p, count, Float32, root, cu.Stream{})
	})
	for i := range comms {
		use(t, ctxs[i])
		closeTo(t, fmt.Sprintf("broadcast on rank %d", i), download(t, recv[i]), sum)
	}

	// Restore each rank's own data, then gather.
	for i := range comms {
		use(t, ctxs[i])
		if err := cu.MemcpyHtoD(send[i].p, unsafe.Pointer(&data[i][0]), int64(4*count)); err != nil {
			t.Fatal(err)
		}
	}
	group("all-gather", func(i int, c *Comm) error {
		return c.AllGather(send[i].p, gather[i].p, count, Float32, cu.Stream{})
	})
	want := make([]float64, 0, n*count)
	for i := range data {
		for _, v := range data[i] {
			want = append(want, float64(v))
		}
	}
	for i := range comms {
		use(t, ctxs[i])
		closeTo(t, fmt.Sprintf("all-gather on rank %d", i), download(t, gather[i]), want)
		if err := comms[i].AsyncError(); err != nil {
			t.Errorf("rank %d: %v", i, err)
		}
	}
	if n == 1 {
		t.Log("one GPU: a sum over one rank is a copy; run on two or more GPUs to check the reduction itself")
	}
}

// TestInitRank builds the communicator the multi-process way (unique id,
// one InitRank per rank), one goroutine per GPU, and all-reduces ones.
func TestInitRank(t *testing.T) {
	ctxs := gpus(t)
	n := len(ctxs)
	id, err := GetUniqueID()
	if err != nil {
		t.Fatal(err)
	}
	if id == (UniqueID{}) {
		t.Fatal("unique id is all zeros")
	}
	const count = 1000
	var wg sync.WaitGroup
	errs := make([]error, n)
	for rank := 0; rank < n; rank++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			errs[rank] = func() error {
				if err := cu.SetCurrentContext(ctxs[rank]); err != nil {
					return err
				}
				c, err := InitRank(n, id, rank)
				if err != nil {
					return err
				}
				defer c.Destroy()
				ones := make([]float32, count)
				for i := range ones {
					ones[i] = float32(rank + 1)
				}
				p, err := cu.MemAlloc(4 * count)
				if err != nil {
					return err
				}
				defer cu.MemFree(p)
				if err := cu.MemcpyHtoD(p, unsafe.Pointer(&ones[0]), 4*count); err != nil {
					return err
				}
				if err := c.AllReduce(p, p, count, Float32, Sum, cu.Stream{}); err != nil {
					return err
				}
				if err := c.Wait(cu.Stream{}, time.Minute); err != nil {
					return err
				}
				if err := cu.MemcpyDtoH(unsafe.Pointer(&ones[0]), p, 4*count); err != nil {
					return err
				}
				want := float32(n * (n + 1) / 2)
				for i, v := range ones {
					if v != want {
						return fmt.Errorf("rank %d: element %d = %v, want %v", rank, i, v, want)
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func TestAbortAndErrors(t *testing.T) {
	ctxs := gpus(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	use(t, ctxs[0])
	if _, err := InitAll(nil); err == nil {
		t.Error("InitAll(nil): no error")
	}
	if _, err := InitRank(2, UniqueID{}, 5); err == nil {
		t.Error("InitRank with rank 5 of 2: no error")
	}
	comms, err := InitAll([]int{0})
	if err != nil {
		t.Fatal(err)
	}
	c := comms[0]
	// An invalid call is reported with the library's message.
	err = c.Broadcast(0, 0, 10, Float32, 7, cu.Stream{})
	var ne *Error
	if !errors.As(err, &ne) || ne.Result == Success {
		t.Errorf("broadcast from root 7 of 1: %v", err)
	} else {
		t.Logf("error text: %v", err)
	}
	if err := c.Abort(); err != nil {
		t.Fatalf("Abort: %v", err)
	}
	if err := c.Destroy(); err != nil {
		t.Errorf("Destroy after Abort: %v", err)
	}
}
