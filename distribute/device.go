package distribute

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Device names follow TensorFlow's short form: "/cpu:0", "/gpu:1". A
// physical device can be split into logical devices (as
// tf.config.set_logical_device_configuration does), so one CPU can host
// several replicas for tests and examples.
var (
	devMu      sync.Mutex
	cpuLogical = 1
)

// ParseDevice normalises a device name: "/cpu:0", "CPU:0", "/device:GPU:1",
// "/job:localhost/replica:0/task:0/device:CPU:0" all work. It returns the
// kind ("cpu" or "gpu") and the index.
func ParseDevice(name string) (kind string, index int, err error) {
	s := strings.ToLower(name)
	if i := strings.LastIndex(s, "device:"); i >= 0 {
		s = s[i+len("device:"):]
	}
	s = strings.TrimPrefix(s, "/")
	k, idx, ok := strings.Cut(s, ":")
	if !ok {
		return "", 0, fmt.Errorf("distribute: device %q: want a name like /cpu:0 or /gpu:1", name)
	}
	index, err = strconv.Atoi(idx)
	if err != nil || index < 0 || (k != "cpu" && k != "gpu") {
		return "", 0, fmt.Errorf("distribute: device %q: want a name like /cpu:0 or /gpu:1", name)
	}
	return k, index, nil
}

// MaxLogicalDevices bounds [SetLogicalCPUs]: more replicas than this would
// only allocate (every replica holds its own buffers) and hang a Fit.
const MaxLogicalDevices = 1024

// SetLogicalCPUs splits the CPU into n logical devices, /cpu:0 ../cpu:n-1,
// like configuring n LogicalDeviceConfigurations on the physical CPU. It
// must be called before strategies are created; later strategies see the
// new devices.
//
// In a cuda build on a machine with GPUs, and unless [SetLogicalGPUs] was
// called, it also splits the GPUs into n logical GPUs in all (n must be a
// multiple of their number, else they stay whole), so that
// NewMirroredStrategy() mirrors over n GPU replicas: a program written for
// n replicas on logical CPUs runs on the GPUs unchanged.
func SetLogicalCPUs(n int) error {
	if n < 1 {
		return fmt.Errorf("distribute: SetLogicalCPUs(%d): need at least one", n)
	}
	if n > MaxLogicalDevices {
		return fmt.Errorf("distribute: SetLogicalCPUs(%d): at most %d logical devices (each replica is a goroutine with its own copy of the step's buffers)", n, MaxLogicalDevices)
	}
	devMu.Lock()
	cpuLogical = n
	devMu.Unlock()
	return nil
}

// ListLogicalDevices returns the logical devices of a kind ("CPU" or "GPU",
// any case), as tf.config.list_logical_devices.
func ListLogicalDevices(kind string) []string {
	switch strings.ToLower(kind) {
	case "cpu":
		devMu.Lock()
		n := cpuLogical
		devMu.Unlock()
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("/cpu:%d", i)
		}
		return out
	case "gpu":
		return logicalGPUs()
	}
	return nil
}

// ListPhysicalDevices returns the physical devices of a kind.
func ListPhysicalDevices(kind string) []string {
	switch strings.ToLower(kind) {
	case "cpu":
		return []string{"/cpu:0"}
	case "gpu":
		return physicalGPUs()
	}
	return nil
}
