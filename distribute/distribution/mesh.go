package distribution

import (
	"fmt"
	"slices"
	"strings"
)

// DeviceMesh is keras.distribution.DeviceMesh (jax.sharding.Mesh): devices
// arranged in a grid whose axes have names. Layouts name those axes to
// say which dimensions of a tensor they split.
//
// A DeviceMesh is immutable once made.
type DeviceMesh struct {
	shape   []int
	axes    []string
	devices []string // row-major over shape
}

// NewDeviceMesh makes a mesh of the given shape and axis names over
// devices, laid out in row-major order (the last axis varies fastest, as
// numpy's reshape). With no devices it takes [ListDevices]'s. Keras'
// errors: an empty shape or axis list, a different number of each, a
// device count that is not the shape's product; and JAX's: an axis named
// twice, a device given twice, a device that does not exist.
func NewDeviceMesh(shape []int, axisNames []string, devices []string) (*DeviceMesh, error) {
	if len(shape) == 0 || len(axisNames) == 0 {
		return nil, fmt.Errorf("distribution: DeviceMesh: shape and axis_names cannot be empty; got shape=%v, axis_names=%v", shape, axisNames)
	}
	if len(shape) != len(axisNames) {
		return nil, fmt.Errorf("distribution: DeviceMesh: shape and axis_names should have the same size; got shape=%v, axis_names=%v", shape, axisNames)
	}
	n := 1
	for _, d := range shape {
		if d < 1 {
			return nil, fmt.Errorf("distribution: DeviceMesh: shape %v has a dimension below 1", shape)
		}
		if n > 1<<20/d {
			return nil, fmt.Errorf("distribution: DeviceMesh: shape %v has more devices than any machine", shape)
		}
		n *= d
	}
	for i, a := range axisNames {
		if a == "" {
			return nil, fmt.Errorf("distribution: DeviceMesh: axis %d has an empty name (%q)", i, axisNames)
		}
		if slices.Index(axisNames, a) != i {
			return nil, fmt.Errorf("distribution: DeviceMesh: axis name %q is used twice in %q", a, axisNames)
		}
	}
	if devices == nil {
		var err error
		if devices, err = ListDevices(""); err != nil {
			return nil, err
		}
	}
	if len(devices) != n {
		return nil, fmt.Errorf("distribution: DeviceMesh: shape %v (%d devices) does not match the number of devices, %d (%v)", shape, n, len(devices), devices)
	}
	norm := make([]string, len(devices))
	for i, d := range devices {
		nd, err := normDevice(d)
		if err != nil {
			return nil, err
		}
		if slices.Contains(norm[:i], nd) {
			return nil, fmt.Errorf("distribution: DeviceMesh: device %s is given twice", nd)
		}
		kind, _, _ := strings.Cut(nd, ":")
		have, err := ListDevices(kind)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(have, nd) {
			return nil, fmt.Errorf("distribution: DeviceMesh: device not found: %s (the %s devices are %v; distribute.SetLogicalCPUs makes more)", nd, kind, have)
		}
		norm[i] = nd
	}
	return &DeviceMesh{shape: slices.Clone(shape), axes: slices.Clone(axisNames), devices: norm}, nil
}

// Shape returns the mesh's shape.
func (m *DeviceMesh) Shape() []int { return slices.Clone(m.shape) }

// AxisNames returns the names of the mesh's axes.
func (m *DeviceMesh) AxisNames() []string { return slices.Clone(m.axes) }

// Devices returns the devices in row-major order over the shape.
func (m *DeviceMesh) Devices() []string { return slices.Clone(m.devices) }

// Size is the number of devices.
func (m *DeviceMesh) Size() int { return len(m.devices) }

// AxisIndex returns the position of the named axis, or -1.
func (m *DeviceMesh) AxisIndex(name string) int { return slices.Index(m.axes, name) }

// AxisSize returns the length of the named axis, or 0 if there is none.
func (m *DeviceMesh) AxisSize(name string) int {
	if i := m.AxisIndex(name); i >= 0 {
		return m.shape[i]
	}
	return 0
}

// Coords returns device i's position on each axis.
func (m *DeviceMesh) Coords(i int) []int {
	c := make([]int, len(m.shape))
	for k := len(m.shape) - 1; k >= 0; k-- {
		c[k] = i % m.shape[k]
		i /= m.shape[k]
	}
	return c
}

// Index returns the device at coords (the inverse of Coords).
func (m *DeviceMesh) Index(coords []int) int {
	i := 0
	for k, c := range coords {
		i = i*m.shape[k] + c
	}
	return i
}

func (m *DeviceMesh) String() string {
	return fmt.Sprintf("DeviceMesh(shape=%v, axis_names=%q)", m.shape, m.axes)
}
