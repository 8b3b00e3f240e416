package distribution

import (
	"fmt"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// shardedVar is a trained variable's placement on the mesh: the block of
// it every device owns, and the device's shard, which that device's
// optimizer updates.
type shardedVar struct {
	v      *ops.Variable
	layout *TensorLayout
	mask   int                // the mesh axes the layout uses, a bit per axis
	blocks []distribute.Block // per device
	gather [][]int            // per device: the devices whose shards make up the whole
	shard  []*ops.Variable    // per device: its shard
	grad   [][]float32        // per device: its shard of the summed gradient
	zero   [][]float32        // per device, made when first needed: a zero gradient
	bound  [][]float32        // per device: the whole value its step reads, while one runs
}

// shardedOptimizer is one optimizer of the model, instantiated once per
// device over that device's shards (as a parameter server builds its own
// from the worker's config): its slots have the shards' shapes.
type shardedOptimizer struct {
	src    optimizers.Optimizer
	dev    []optimizers.Optimizer
	linked map[*shardedVar]bool // variables whose slots are linked (slots.go)
}

// ApplyGradients registers, on the gradients' trace, the sharded update
// that replaces opt.ApplyGradients under this distribution: after each
// replay, every device reduce-scatters the gradients (it receives the sum
// over all devices of its block of each) and updates its shards with its
// own instance of opt (slots of the shards' size); the next step gathers
// the weights again (gather.go). Replicated variables are all-reduced and
// updated whole on every device. Model.Fit calls it; a custom train step
// may call it instead of opt.ApplyGradients.
//
// opt's settings must act on each element alone: clipnorm and
// global_clipnorm (norms over a whole gradient), use_ema and
// LossScaleOptimizer are refused while a variable is split.
func (c *common) ApplyGradients(opt optimizers.Optimizer, grads []ops.Tensor, vars []*ops.Variable) error {
	return c.run.applyGradients(opt, grads, vars)
}

func (r *runner) applyGradients(opt optimizers.Optimizer, grads []ops.Tensor, vars []*ops.Variable) error {
	if opt == nil {
		return fmt.Errorf("distribution: ApplyGradients: no optimizer")
	}
	if len(grads) != len(vars) {
		return fmt.Errorf("distribution: ApplyGradients: %d gradients for %d variables", len(grads), len(vars))
	}
	if len(vars) == 0 {
		return nil
	}
	var (
		tr      *ops.Trace
		kept    []ops.Tensor
		keptV   []*ops.Variable
		missing []string
	)
	for i, v := range vars {
		if v == nil {
			return fmt.Errorf("distribution: ApplyGradients: variable %d is nil", i)
		}
		if !v.Trainable() {
			return fmt.Errorf("distribution: ApplyGradients: variable %q is not trainable", v.Name())
		}
		g := grads[i]
		if g.IsNone() {
			missing = append(missing, v.Name())
			continue
		}
		if g.Shape().Size() != v.Shape().Size() {
			return fmt.Errorf("distribution: ApplyGradients: gradient %d has shape %v but variable %q has shape %v", i, g.Shape(), v.Name(), v.Shape())
		}
		if tr == nil {
			tr = g.Trace()
		} else if g.Trace() != tr {
			return fmt.Errorf("distribution: ApplyGradients: gradient %d (for %q) is from another trace", i, v.Name())
		}
		kept = append(kept, g)
		keptV = append(keptV, v)
	}
	if len(kept) == 0 {
		return fmt.Errorf("distribution: ApplyGradients: no gradients provided for any variable")
	}
	if len(missing) > 0 {
		logging.Warnf("distribution: gradients do not exist for variables %v when minimizing the loss; they are not updated", missing)
	}
	r.stMu.Lock()
	svs := make([]*shardedVar, len(keptV))
	split := false
	var err error
	for i, v := range keptV {
		if svs[i], err = r.place(v); err != nil {
			r.stMu.Unlock()
			return err
		}
		split = split || svs[i].mask != 0
	}
	so, err := r.optimizer(opt, split)
	if err == nil {
		err = r.linkSlots(so, svs)
	}
	r.stMu.Unlock()
	if err != nil {
		return err
	}
	tr.AddHook(ops.Hook{
		Name:   "distribution/" + opt.Name() + "/apply_gradients",
		Inputs: kept,
		Run: func(rc ops.ReplicaContext, vals []ops.Value) error {
			dc, ok := rc.(deviceCtx)
			if !ok || dc.r != r {
				return fmt.Errorf("distribution: the sharded update of %s ran outside its distribution's devices", opt.Name())
			}
			g := make([][]float32, len(vals))
			for i, val := range vals {
				if len(val.Data) < svs[i].v.Shape().Size() {
					return fmt.Errorf("distribution: gradient of %q has %d values, want %d", svs[i].v.Name(), len(val.Data), svs[i].v.Shape().Size())
				}
				g[i] = val.Data[:svs[i].v.Shape().Size()]
			}
			return r.step(dc.dev, so, svs, g)
		},
		Empty: func(rc ops.ReplicaContext) error {
			dc, ok := rc.(deviceCtx)
			if !ok || dc.r != r {
				return fmt.Errorf("distribution: the sharded update of %s ran outside its distribution's devices", opt.Name())
			}
			g := make([][]float32, len(svs))
			r.stMu.Lock()
			for i, sv := range svs {
				if sv.zero[dc.dev] == nil {
					sv.zero[dc.dev] = make([]float32, sv.v.Shape().Size())
				}
				g[i] = sv.zero[dc.dev]
			}
			r.stMu.Unlock()
			return r.step(dc.dev, so, svs, g)
		},
	})
	return nil
}

// place returns v's placement, made the first time: its layout from the
// distribution, checked against its shape, and every device's shard cut
// from the device's copy. Called with stMu held.
func (r *runner) place(v *ops.Variable) (*shardedVar, error) {
	if sv, ok := r.vars[v]; ok {
		return sv, nil
	}
	mesh := r.d.base().mesh
	n := mesh.Size()
	if v.Replicas() < n {
		return nil, fmt.Errorf("distribution: variable %q has %d copies for %d devices: make it (its model) in the distribution's scope", v.Name(), v.Replicas(), n)
	}
	shape := []int(v.Shape())
	layout, err := r.d.VariableLayout(v.Name(), shape)
	if err != nil {
		return nil, fmt.Errorf("distribution: variable %q: %w", v.Name(), err)
	}
	blocks, err := layout.Shards(shape)
	if err != nil {
		return nil, fmt.Errorf("distribution: variable %q of shape %v: %w", v.Name(), shape, err)
	}
	sv := &shardedVar{v: v, layout: layout, blocks: blocks, gather: make([][]int, n), shard: make([]*ops.Variable, n),
		grad: make([][]float32, n), zero: make([][]float32, n), bound: make([][]float32, n)}
	for _, a := range layout.axes {
		if a != "" {
			sv.mask |= 1 << mesh.AxisIndex(a)
		}
	}
	for dev := 0; dev < n; dev++ {
		// The devices that agree with dev on every axis the layout does
		// not use hold, between them, every shard once.
		c := mesh.Coords(dev)
		for j := 0; j < n; j++ {
			cj := mesh.Coords(j)
			same := true
			for k := range c {
				same = same && (sv.mask&(1<<k) != 0 || c[k] == cj[k])
			}
			if same {
				sv.gather[dev] = append(sv.gather[dev], j)
			}
		}
		b := blocks[dev]
		init := make([]float32, b.Size())
		b.Extract(init, v.Data(dev))
		s := ops.NewVariable(v.Name(), ops.Shape(b.Dims()), init, true)
		s.Mirror(1) // one device's: not mirrored by a scope in force
		sv.shard[dev] = s
		sv.grad[dev] = make([]float32, b.Size())
	}
	// From now on the shards are the weight: its copies are freed, a step
	// gathers the whole value for as long as it runs, and GetWeights,
	// SetWeights and saving read and write the blocks (slots.go).
	v.SetBacking(&weightBacking{shardBacking: shardBacking{sv: sv, parts: sv.shard}, stats: r.gathered})
	r.vars[v] = sv
	r.order = append(r.order, sv)
	return sv, nil
}

// optimizer returns the per-device instances of opt, made the first time
// from its config, starting at its step count. Called with stMu held.
func (r *runner) optimizer(opt optimizers.Optimizer, split bool) (*shardedOptimizer, error) {
	cfg := keras.OptimizerConfig(opt)
	if split {
		inner, _ := cfg["config"].(map[string]any)
		if cfg["class_name"] == "LossScaleOptimizer" {
			return nil, fmt.Errorf("distribution: a LossScaleOptimizer cannot train split variables yet (its skip of non-finite steps needs every shard's verdict)")
		}
		for _, k := range []string{"clipnorm", "global_clipnorm"} {
			if inner[k] != nil {
				return nil, fmt.Errorf("distribution: optimizer %s has %s=%v, a norm over whole gradients, which split variables do not have on one device; use clipvalue or no clipping", opt.Name(), k, inner[k])
			}
		}
		if inner["use_ema"] == true {
			return nil, fmt.Errorf("distribution: optimizer %s has use_ema, which split variables do not support yet", opt.Name())
		}
	}
	if so, ok := r.opts[opt]; ok {
		return so, nil
	}
	n := r.d.base().mesh.Size()
	so := &shardedOptimizer{src: opt, dev: make([]optimizers.Optimizer, n), linked: map[*shardedVar]bool{}}
	for dev := range so.dev {
		o, err := keras.OptimizerFromConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("distribution: cannot make optimizer %s on every device: %w", opt.Name(), err)
		}
		if it := o.Variables()[0]; it != nil {
			if err := it.Assign([]float32{float32(opt.Iterations())}); err != nil {
				return nil, err
			}
		}
		so.dev[dev] = o
	}
	r.opts[opt] = so
	return so, nil
}

// step is one device's update after a replay; grads are its whole
// gradients of svs.
func (r *runner) step(dev int, so *shardedOptimizer, svs []*shardedVar, grads [][]float32) error {
	// The model's optimizer's settings, read before the first collective
	// (device 0 writes its step count after the last).
	o := so.dev[dev]
	if lr, ok := so.src.GetConfig()["learning_rate"].(float64); ok {
		o.SetLearningRate(lr) // a callback may have changed it; a schedule is o's own
	}
	if it := so.src.Iterations(); it != o.Iterations() {
		// A load or checkpoint restore set the model's step count.
		if err := o.Variables()[0].Assign([]float32{float32(it)}); err != nil {
			return err
		}
	}
	all := r.allDevices()
	var sFull, sOut, rBufs [][]float32
	var sBlocks []distribute.Block
	for i, sv := range svs {
		if sv.mask != 0 {
			sFull = append(sFull, grads[i])
			sBlocks = append(sBlocks, sv.blocks[dev])
			sOut = append(sOut, sv.grad[dev])
		} else {
			copy(sv.grad[dev], grads[i])
			rBufs = append(rBufs, sv.grad[dev])
		}
	}
	// Split variables: each device sums its block over all devices, in
	// device order; replicated ones: the all-reduce (the same order).
	if len(sFull) > 0 {
		if err := r.coll.ReduceScatter(dev, sFull, sBlocks, all, sOut); err != nil {
			return fmt.Errorf("distribution: reduce-scatter of the gradients: %w", err)
		}
	}
	if len(rBufs) > 0 {
		if err := r.coll.AllReduceSum(dev, rBufs); err != nil {
			return fmt.Errorf("distribution: all-reduce of the gradients: %w", err)
		}
	}
	shards := make([]*ops.Variable, len(svs))
	g := make([][]float32, len(svs))
	for i, sv := range svs {
		shards[i], g[i] = sv.shard[dev], sv.grad[dev]
	}
	if err := o.Apply(nil, g, shards); err != nil {
		return fmt.Errorf("distribution: device %d: %w", dev, err)
	}
	// No all-gather: the next step's kernels read the updated shards
	// (gather.go).
	if err := r.constrain(dev, svs); err != nil {
		return err
	}
	// The model's optimizer counts the step, as if it had applied it.
	if it := so.src.Variables()[0]; it != nil && (dev == 0 || dev < it.Replicas()) {
		it.Data(dev)[0] = float32(o.Iterations())
	}
	return nil
}

func (r *runner) allDevices() []int {
	n := r.coll.Replicas()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}

// DeviceMemory is the training state one device holds under a
// distribution, in bytes of float32.
type DeviceMemory struct {
	Device string
	// Shards: the device's shards of the trained weights, all it holds of
	// them between steps.
	Shards int64
	// Slots: its optimizers' slot variables (their shards) and counters.
	Slots int64
	// Gathered: the whole split weights it holds gathered now, lent to
	// the kernel that reads them (a replicated weight's copy is its
	// shard, not counted twice); 0 between steps.
	Gathered int64
	// StepGathered: the most Gathered was at once during any step so far
	// (the largest weights one kernel reads), so the peak of a step is
	// Shards + Slots + StepGathered.
	StepGathered int64
}

// Memory reports, per device in mesh order, the bytes of the training
// state the distribution placed so far (after a first train step).
func (c *common) Memory() []DeviceMemory {
	r := c.run
	r.stMu.Lock()
	defer r.stMu.Unlock()
	out := make([]DeviceMemory, c.mesh.Size())
	for dev := range out {
		out[dev].Device = c.mesh.devices[dev]
		out[dev].Gathered = r.gathered[dev].now.Load()
		out[dev].StepGathered = r.gathered[dev].peak.Load()
	}
	for _, sv := range r.order {
		for dev := range out {
			out[dev].Shards += 4 * int64(sv.shard[dev].Shape().Size())
		}
	}
	for _, so := range r.opts {
		for dev, o := range so.dev {
			for _, v := range o.Variables() {
				out[dev].Slots += 4 * int64(v.Shape().Size()*v.Replicas())
			}
		}
	}
	return out
}
