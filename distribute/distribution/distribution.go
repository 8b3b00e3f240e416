package distribution

import (
	"fmt"
	"sync"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/ops"
)

// DefaultBatchDimName is the mesh axis a [DataParallel] made from a device
// list splits the batch along, Keras' DEFAULT_BATCH_DIM_NAME.
const DefaultBatchDimName = "batch"

// Interface is what [DataParallel] and [ModelParallel] share, Keras'
// Distribution base class: where variables and data live on a mesh. Every
// Interface is also an engine strategy with one replica per mesh device,
// so models made in its [Interface.Scope] (or after [SetDistribution])
// train under it.
type Interface interface {
	engine.Strategy
	// DeviceMesh is the mesh the distribution places tensors on.
	DeviceMesh() *DeviceMesh
	// BatchDimName is the mesh axis that splits input batches.
	BatchDimName() string
	// NumModelReplicas is the length of that axis: how many parts each
	// global batch is cut into.
	NumModelReplicas() int
	// DataLayout is the layout of an input of this shape: its first
	// dimension split along the batch axis.
	DataLayout(shape []int) *TensorLayout
	// VariableLayout is the layout of the variable at path of this shape
	// (replicated unless a layout map says otherwise).
	VariableLayout(path string, shape []int) (*TensorLayout, error)
	// TensorLayout is the layout of an intermediate tensor named path, or
	// nil to leave it as it is.
	TensorLayout(path string) (*TensorLayout, error)
	// Scope makes the distribution current until exit is called, Keras'
	// `with distribution.scope():`.
	Scope() (exit func())
	base() *common
}

// common holds what both distributions share, and their execution.
type common struct {
	self     Interface
	mesh     *DeviceMesh
	batchDim string
	run      *runner
}

func (c *common) base() *common           { return c }
func (c *common) DeviceMesh() *DeviceMesh { return c.mesh }
func (c *common) BatchDimName() string    { return c.batchDim }

// NumModelReplicas implements [Interface].
func (c *common) NumModelReplicas() int { return c.mesh.AxisSize(c.batchDim) }

// DataLayout implements [Interface].
func (c *common) DataLayout(shape []int) *TensorLayout {
	axes := make([]string, max(len(shape), 1))
	axes[0] = c.batchDim
	return &TensorLayout{axes: axes, mesh: c.mesh}
}

// DataShards returns the block of an input of shape that every device
// receives, in mesh order: rows split along the batch axis, the same rows
// for devices that differ only on other axes. Unlike JAX, a batch the
// batch axis does not divide is split into parts that differ by one row,
// the larger first (as tf.distribute splits batches).
func (c *common) DataShards(shape []int) ([]distribute.Block, error) {
	return c.DataLayout(shape).shards(shape, c.batchDim, true)
}

// NumReplicasInSync implements engine.Strategy: one replica per device.
func (c *common) NumReplicasInSync() int { return c.mesh.Size() }

// RunReplicas implements engine.Strategy (runner.go).
func (c *common) RunReplicas(fn func(rc ops.ReplicaContext) error) error {
	return c.run.runReplicas(fn)
}

// Scope implements [Interface]. It also enters the distribution's strategy
// scope, so models and variables made inside belong to it; entering it
// while another strategy's scope is active fails the models made inside,
// as distribute's scopes do.
func (c *common) Scope() (exit func()) {
	exitEngine := engine.EnterScope(c.self)
	curMu.Lock()
	prev := current
	current = c.self
	curMu.Unlock()
	return func() {
		curMu.Lock()
		current = prev
		curMu.Unlock()
		exitEngine()
	}
}

var (
	curMu      sync.Mutex
	current    Interface
	globalExit func()
)

// SetDistribution makes d the global distribution, Keras'
// set_distribution: models made from now on are distributed by it. nil
// clears it. It returns the error of entering d's strategy scope while
// another strategy's scope is active.
func SetDistribution(d Interface) error {
	curMu.Lock()
	defer curMu.Unlock()
	if globalExit != nil {
		globalExit()
		globalExit = nil
	}
	current = nil
	if d == nil {
		return nil
	}
	exit, err := engine.TryEnterScope(d)
	if err != nil {
		return fmt.Errorf("distribution: SetDistribution: %w", err)
	}
	current, globalExit = d, exit
	return nil
}

// Distribution returns the current distribution (from [SetDistribution]
// or a scope), nil if there is none, Keras' keras.distribution.distribution().
func Distribution() Interface {
	curMu.Lock()
	defer curMu.Unlock()
	return current
}

// DataParallel is keras.distribution.DataParallel: every variable
// replicated on every device of a 1-D mesh, each device training on its
// part of the batch.
type DataParallel struct{ common }

// NewDataParallel distributes over mesh, or else over devices (a 1-D mesh
// with the axis "batch"), or with neither over [ListDevices]. A mesh with
// more than one axis splits the batch along its first, with a warning, as
// Keras does; giving both a mesh and devices is an error.
func NewDataParallel(mesh *DeviceMesh, devices ...string) (*DataParallel, error) {
	if mesh != nil && len(devices) > 0 {
		return nil, fmt.Errorf("distribution: NewDataParallel: give a device mesh or devices, not both")
	}
	if mesh == nil {
		if len(devices) == 0 {
			var err error
			if devices, err = ListDevices(""); err != nil {
				return nil, err
			}
		}
		var err error
		if mesh, err = NewDeviceMesh([]int{len(devices)}, []string{DefaultBatchDimName}, devices); err != nil {
			return nil, err
		}
	} else if len(mesh.shape) != 1 {
		logging.Warnf("distribution: DataParallel expects a 1-D mesh, got %v; the first axis %q splits the batch", mesh, mesh.axes[0])
	}
	if err := checkRunnable(mesh); err != nil {
		return nil, err
	}
	d := &DataParallel{common{mesh: mesh, batchDim: mesh.axes[0]}}
	d.self = d
	d.run = newRunner(d)
	return d, nil
}

// VariableLayout implements [Interface]: replicated.
func (d *DataParallel) VariableLayout(path string, shape []int) (*TensorLayout, error) {
	return &TensorLayout{axes: make([]string, len(shape)), mesh: d.mesh}, nil
}

// TensorLayout implements [Interface]: data parallelism leaves
// intermediate tensors alone (nil).
func (d *DataParallel) TensorLayout(path string) (*TensorLayout, error) { return nil, nil }

// ModelParallel is keras.distribution.ModelParallel: variables split over
// the devices as a [LayoutMap] says, batches split along one mesh axis.
type ModelParallel struct {
	common
	layoutMap *LayoutMap
}

// NewModelParallel distributes by layoutMap over its mesh; batchDimName
// ("" for the mesh's first axis) is the axis that splits batches.
func NewModelParallel(layoutMap *LayoutMap, batchDimName string) (*ModelParallel, error) {
	if layoutMap == nil {
		return nil, fmt.Errorf("distribution: NewModelParallel: you must give a layout map")
	}
	mesh := layoutMap.DeviceMesh()
	if mesh == nil {
		return nil, fmt.Errorf("distribution: NewModelParallel: the layout map has no device mesh")
	}
	if batchDimName == "" {
		batchDimName = mesh.axes[0]
	}
	if mesh.AxisIndex(batchDimName) < 0 {
		return nil, fmt.Errorf("distribution: NewModelParallel: batch_dim_name %q is not an axis of the mesh %v", batchDimName, mesh)
	}
	for i, l := range layoutMap.layouts {
		if l.mesh != mesh {
			return nil, fmt.Errorf("distribution: NewModelParallel: the layout of %q is on another mesh (%v) than the layout map's (%v)", layoutMap.keys[i], l.mesh, mesh)
		}
	}
	if err := checkRunnable(mesh); err != nil {
		return nil, err
	}
	d := &ModelParallel{common: common{mesh: mesh, batchDim: batchDimName}, layoutMap: layoutMap}
	d.self = d
	d.run = newRunner(d)
	return d, nil
}

// LayoutMap returns the distribution's layout map.
func (d *ModelParallel) LayoutMap() *LayoutMap { return d.layoutMap }

// VariableLayout implements [Interface]: the layout map's layout for path,
// or replicated where no key matches. The layout is not checked against
// shape here; placing the variable is (with the variable's name).
func (d *ModelParallel) VariableLayout(path string, shape []int) (*TensorLayout, error) {
	l, err := d.layoutMap.Get(path)
	if err != nil || l != nil {
		return l, err
	}
	return &TensorLayout{axes: make([]string, len(shape)), mesh: d.mesh}, nil
}

// TensorLayout implements [Interface]: the layout map's entry for path.
func (d *ModelParallel) TensorLayout(path string) (*TensorLayout, error) {
	return d.layoutMap.Get(path)
}

// DistributeTensor splits value by layout, Keras' distribute_tensor: the
// shard of every device of the layout's mesh, in mesh order (copies).
// JAX's rules apply (see [TensorLayout.Check]).
func DistributeTensor(value ops.Value, layout *TensorLayout) ([]ops.Value, error) {
	if layout == nil {
		return nil, fmt.Errorf("distribution: DistributeTensor: nil layout")
	}
	if len(value.Data) != value.Shape.Size() {
		return nil, fmt.Errorf("distribution: DistributeTensor: %d values for the shape %v", len(value.Data), value.Shape)
	}
	bs, err := layout.Shards(value.Shape)
	if err != nil {
		return nil, err
	}
	out := make([]ops.Value, len(bs))
	for i, b := range bs {
		d := make([]float32, b.Size())
		b.Extract(d, value.Data)
		out[i] = ops.Value{Shape: ops.Shape(b.Dims()), Data: d}
	}
	return out, nil
}
