package distribution

import (
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/ops"
)

// shardBacking keeps a variable of the model (a weight, or a slot of the
// model's optimizer) as the blocks the devices own: the whole value is
// what saving reads (the blocks gathered from one device of each) and
// what loading writes (each device's block cut from it), so a sharded
// model saves to and loads from the files an unsharded one does.
type shardBacking struct {
	sv    *shardedVar
	parts []*ops.Variable // per device: the variable holding its block
}

// ReadValue implements ops.Backing: every block once, from the devices
// that share the reading device's coordinates on the axes the layout
// leaves whole (device 0's outside a step).
func (b *shardBacking) ReadValue(replica int, dst []float32) {
	if replica < 0 || replica >= len(b.parts) {
		replica = 0
	}
	for _, j := range b.sv.gather[replica] {
		b.sv.blocks[j].Insert(dst, b.parts[j].Data(0))
	}
}

// ReadRows implements ops.RowReader for a table (rank 2): row rows[k] of
// the whole value into row k of dst, each part of it from the device of
// the reading device's set whose block holds it, so that an embedding
// lookup gathers the rows it reads, not the table.
func (b *shardBacking) ReadRows(replica int, rows []int, dst []float32) {
	if replica < 0 || replica >= len(b.parts) {
		replica = 0
	}
	cols := b.sv.v.Shape()[1]
	for _, j := range b.sv.gather[replica] {
		bl := b.sv.blocks[j]
		w := bl.Hi[1] - bl.Lo[1]
		part := b.parts[j].Data(0)
		for k, r := range rows {
			if r >= bl.Lo[0] && r < bl.Hi[0] {
				at := (r - bl.Lo[0]) * w
				copy(dst[k*cols+bl.Lo[1]:k*cols+bl.Hi[1]], part[at:at+w])
			}
		}
	}
}

// WriteValue implements ops.Backing: every device's block.
func (b *shardBacking) WriteValue(src []float32) {
	for dev, p := range b.parts {
		b.sv.blocks[dev].Extract(p.Data(0), src)
	}
}

// linkSlots makes the slots of the devices' optimizers for svs, and the
// model's optimizer's slots of the same variables backed by them (an
// optimizer that has not trained gets them made here, as a load makes
// them). A slot the model's optimizer already had (a file loaded before
// the first step, a run before the distribution) seeds the devices'
// blocks; from then on its value is theirs: Variables() of the model's
// optimizer reads it gathered, Assign writes the blocks. Called with stMu
// held, at trace time.
func (r *runner) linkSlots(so *shardedOptimizer, svs []*shardedVar) error {
	var need []*shardedVar
	for _, sv := range svs {
		if !so.linked[sv] {
			need = append(need, sv)
		}
	}
	if len(need) == 0 {
		return nil
	}
	// The devices' slots of their shards: one update of zero gradients,
	// undone (shards and step count as they were).
	devSlots := make([]map[string]*ops.Variable, len(so.dev))
	for dev, o := range so.dev {
		shards := make([]*ops.Variable, len(need))
		for i, sv := range need {
			shards[i] = sv.shard[dev]
		}
		if err := zeroStep(o, shards); err != nil {
			return fmt.Errorf("distribution: making the slots of %s on device %d: %w", so.src.Name(), dev, err)
		}
		devSlots[dev] = byName(o.Variables())
	}
	// The model's optimizer's slots of the variables it has none for.
	model := byName(so.src.Variables())
	var bare []*ops.Variable
	for _, sv := range need {
		if len(slotsOf(model, devSlots[0], sv.v)) == 0 {
			bare = append(bare, sv.v)
		}
	}
	if len(bare) > 0 {
		if err := zeroStep(so.src, bare); err != nil {
			return fmt.Errorf("distribution: making the slots of %s: %w", so.src.Name(), err)
		}
		model = byName(so.src.Variables())
	}
	for _, sv := range need {
		for _, s := range slotsOf(model, devSlots[0], sv.v) {
			b := &shardBacking{sv: sv, parts: make([]*ops.Variable, len(so.dev))}
			for dev := range so.dev {
				p := devSlots[dev][s.Name()]
				if p == nil || !p.Shape().Equal(ops.Shape(sv.blocks[dev].Dims())) {
					return fmt.Errorf("distribution: optimizer %s on device %d has no slot %q of the shard's shape %v", so.src.Name(), dev, s.Name(), sv.blocks[dev].Dims())
				}
				b.parts[dev] = p
			}
			if old, ok := s.Backed().(*shardBacking); !ok || old.sv != sv {
				b.WriteValue(s.Data(0)) // the model's value (loaded, or fresh) seeds the blocks
				s.SetBacking(b)
			}
		}
		so.linked[sv] = true
	}
	return nil
}

// slotsOf returns the model optimizer's slots of v: the variables named
// as a device optimizer names its slots of v's shard (the shard has v's
// name, the optimizers one config), of v's shape.
func slotsOf(model, dev map[string]*ops.Variable, v *ops.Variable) []*ops.Variable {
	suffix := "/" + strings.ReplaceAll(v.Name(), "/", "_")
	var out []*ops.Variable
	for name, s := range model {
		if strings.HasSuffix(name, suffix) && dev[name] != nil && s.Shape().Equal(v.Shape()) {
			out = append(out, s)
		}
	}
	return out
}

func byName(vs []*ops.Variable) map[string]*ops.Variable {
	m := make(map[string]*ops.Variable, len(vs))
	for _, v := range vs {
		m[v.Name()] = v
	}
	return m
}

// zeroStep makes opt create its slots for vars by one update of zero
// gradients, then puts back what it changed: the variables (weight decay
// moves them) and the step count.
func zeroStep(opt interface {
	Apply(ops.ReplicaContext, [][]float32, []*ops.Variable) error
	Variables() []*ops.Variable
}, vars []*ops.Variable) error {
	it := opt.Variables()[0]
	savedIt := it.Numpy()
	saved := make([][]float32, len(vars))
	grads := make([][]float32, len(vars))
	for i, v := range vars {
		saved[i] = v.Numpy()
		grads[i] = make([]float32, v.Shape().Size())
	}
	err := opt.Apply(nil, grads, vars)
	for i, v := range vars {
		if aerr := v.Assign(saved[i]); err == nil {
			err = aerr
		}
	}
	if aerr := it.Assign(savedIt); err == nil {
		err = aerr
	}
	return err
}
