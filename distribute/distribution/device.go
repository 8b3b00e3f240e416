package distribution

import (
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/distribute"
)

// ListDevices returns the devices available for distributed computation,
// as keras.distribution.list_devices: "gpu:0", "gpu:1", ... or "cpu:0",
// "cpu:1", ... Without a type it returns the GPUs if there are any, else
// the CPUs, never a mix. The CPUs are the logical ones
// [distribute.SetLogicalCPUs] made. An unknown type is an error.
func ListDevices(deviceType string) ([]string, error) {
	switch t := strings.ToLower(deviceType); t {
	case "":
		if gpus := distribute.ListLogicalDevices("GPU"); len(gpus) > 0 {
			return short(gpus), nil
		}
		return short(distribute.ListLogicalDevices("CPU")), nil
	case "cpu", "gpu":
		return short(distribute.ListLogicalDevices(t)), nil
	case "tpu":
		return nil, nil
	}
	return nil, fmt.Errorf("distribution: ListDevices(%q): want \"cpu\", \"gpu\", \"tpu\" or \"\"", deviceType)
}

// GetDeviceCount is len(ListDevices(deviceType)), as
// keras.distribution.get_device_count.
func GetDeviceCount(deviceType string) (int, error) {
	d, err := ListDevices(deviceType)
	return len(d), err
}

// short turns distribute's "/cpu:3" into Keras' "cpu:3".
func short(devs []string) []string {
	out := make([]string, len(devs))
	for i, d := range devs {
		out[i] = strings.TrimPrefix(d, "/")
	}
	return out
}

// normDevice parses any spelling distribute.ParseDevice reads into Keras'
// "cpu:3".
func normDevice(d string) (string, error) {
	kind, idx, err := distribute.ParseDevice(d)
	if err != nil {
		return "", fmt.Errorf("distribution: %w", err)
	}
	return fmt.Sprintf("%s:%d", kind, idx), nil
}
