//go:build cuda

package distribute

import (
	"fmt"
	"log"
	"os"
	"sync"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/cuda"
	"github.com/gokeras/gokeras/internal/gpuexec"
	"github.com/gokeras/gokeras/internal/logging"
)

// physicalGPUs lists the GPUs the driver sees.
func physicalGPUs() []string {
	ds, err := cuda.Devices()
	if err != nil {
		return nil
	}
	out := make([]string, len(ds))
	for i := range ds {
		out[i] = cuda.DeviceName(i)
	}
	return out
}

func gpuPlan() []cuda.Placement {
	ds, err := cuda.Devices()
	if err != nil {
		return nil
	}
	devMu.Lock()
	n, mb := gpuPerDevice, gpuLimitMB
	if !gpuSet && cpuLogical > 1 && cpuLogical%len(ds) == 0 {
		// A program that asked for n logical CPUs gets n replicas on the GPUs.
		n = cpuLogical / len(ds)
	}
	devMu.Unlock()
	plan, err := cuda.Plan(len(ds), n, mb)
	if err != nil {
		return nil
	}
	return plan
}

// logicalGPUs lists the logical GPUs (see SetLogicalGPUs).
func logicalGPUs() []string {
	plan := gpuPlan()
	out := make([]string, len(plan))
	for i := range plan {
		out[i] = cuda.DeviceName(i)
	}
	return out
}

var noGPUOnce sync.Once

// noGPUs says once per process that a cuda build found no GPU. Where
// GOKERAS_REQUIRE_GPU=1 (tools/gpu's checks: a run on the CPU must not
// pass for a GPU result) it ends the process instead, with that message.
func noGPUs() {
	noGPUOnce.Do(func() {
		_, err := cuda.Devices()
		if os.Getenv("GOKERAS_REQUIRE_GPU") == "1" {
			log.Fatalf("distribute: built with cuda but no GPU is usable (%v), and GOKERAS_REQUIRE_GPU=1 forbids mirroring over CPUs", err)
		}
		logging.Warnf("distribute: built with cuda but no GPU is usable (%v): mirroring over CPUs", err)
	})
}

// Executors are made once per logical GPU and configuration, and shared
// by the strategies placed there (a strategy runs one step at a time; two
// strategies must not step concurrently on one logical GPU).
var (
	execMu sync.Mutex
	execs  = map[cuda.Placement]engine.Executor{}
)

// deviceExecutors returns one executor per replica: the GPU executor of a
// /gpu:i replica, nil for a CPU replica; nil altogether when all are CPUs.
func deviceExecutors(devices []string) ([]engine.Executor, error) {
	var out []engine.Executor
	plan := gpuPlan()
	for r, d := range devices {
		kind, idx, err := ParseDevice(d)
		if err != nil {
			return nil, err
		}
		if kind != "gpu" {
			continue
		}
		if idx >= len(plan) {
			return nil, fmt.Errorf("distribute: no device %s (%d logical GPUs)", d, len(plan))
		}
		execMu.Lock()
		x := execs[plan[idx]]
		if x == nil {
			x, err = gpuexec.New(plan[idx])
			if err != nil {
				execMu.Unlock()
				return nil, fmt.Errorf("distribute: %s: %w", d, err)
			}
			execs[plan[idx]] = x
		}
		execMu.Unlock()
		if out == nil {
			out = make([]engine.Executor, len(devices))
		}
		out[r] = x
	}
	return out, nil
}
