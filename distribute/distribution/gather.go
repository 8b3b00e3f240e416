package distribution

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/ops"
)

// gatherStats counts the bytes of whole weights one device holds
// gathered: now (0 between steps) and at most during any step so far.
type gatherStats struct {
	now, peak atomic.Int64
}

// bind gathers, before a device's step, every weight it holds a shard of
// into a buffer of the step (one all-gather per set of mesh axes the
// layouts use, every device walking the same sets in the same order) and
// binds it as the device's copy of the weight, which the step's programs
// read. A weight whose shard is whole (replicated, or split along axes
// of length 1) has the device's own shard as its copy, updated in place.
func (r *runner) bind(dev int, svs []*shardedVar) error {
	var masks []int
	var bytes int64
	for _, sv := range svs {
		if sv.whole() {
			buf := sv.shard[dev].Data(0)
			if err := sv.v.BindCopy(dev, buf); err != nil {
				return fmt.Errorf("distribution: %w", err)
			}
			sv.bound[dev] = buf
		} else if !slices.Contains(masks, sv.mask) {
			masks = append(masks, sv.mask)
		}
	}
	slices.Sort(masks) // whether a shard is whole depends on the mask alone
	for _, m := range masks {
		var sh, full [][]float32
		var bs []distribute.Block
		var group []int
		var bound []*shardedVar
		for _, sv := range svs {
			if sv.mask == m && !sv.whole() {
				buf := make([]float32, sv.v.Shape().Size())
				sh = append(sh, sv.shard[dev].Data(0))
				bs = append(bs, sv.blocks[dev])
				full = append(full, buf)
				group = sv.gather[dev]
				bound = append(bound, sv)
				bytes += 4 * int64(len(buf))
			}
		}
		if err := r.coll.AllGather(dev, sh, bs, group, full); err != nil {
			return fmt.Errorf("distribution: all-gather of the weights: %w", err)
		}
		for i, sv := range bound {
			if err := sv.v.BindCopy(dev, full[i]); err != nil {
				return fmt.Errorf("distribution: %w", err)
			}
			sv.bound[dev] = full[i]
		}
	}
	st := &r.gathered[dev]
	st.now.Store(bytes)
	if bytes > st.peak.Load() {
		st.peak.Store(bytes)
	}
	return nil
}

// whole reports whether every device's shard of sv is the whole weight.
func (sv *shardedVar) whole() bool {
	return sv.mask == 0 || sv.blocks[0].Size() == sv.v.Shape().Size()
}

// unbind ends a device's step: its block of each gathered weight goes back
// into its shard (what a hook after the update, such as a constraint,
// wrote there), and the buffers are dropped.
func (r *runner) unbind(dev int, svs []*shardedVar) {
	for _, sv := range svs {
		sv.v.UnbindCopy(dev)
		if buf := sv.bound[dev]; buf != nil && !sv.whole() { // bound: gathered whole
			sv.blocks[dev].Extract(sv.shard[dev].Data(0), buf)
		}
		sv.bound[dev] = nil
	}
	r.gathered[dev].now.Store(0)
}

// constrain applies the weights' constraints after a device's update, as
// an optimizer does after its own: a norm constraint reads whole rows or
// columns, which a block may cut, so a constrained split weight is
// gathered (the updated shards, every device the same sets in the same
// order), projected whole, and the device keeps its block of the result.
// A whole shard is projected in place.
func (r *runner) constrain(dev int, svs []*shardedVar) error {
	var masks []int
	for _, sv := range svs {
		c := ops.VariableConstraint(sv.v)
		if c == nil {
			continue
		}
		if sv.whole() {
			c.Project(sv.shard[dev].Data(0), sv.v.Shape())
		} else if !slices.Contains(masks, sv.mask) {
			masks = append(masks, sv.mask)
		}
	}
	slices.Sort(masks)
	for _, m := range masks {
		var sh, full [][]float32
		var bs []distribute.Block
		var group []int
		var cs []*shardedVar
		for _, sv := range svs {
			if sv.mask == m && !sv.whole() && ops.VariableConstraint(sv.v) != nil {
				buf := sv.bound[dev]
				if buf == nil {
					buf = make([]float32, sv.v.Shape().Size())
				}
				sh = append(sh, sv.shard[dev].Data(0))
				bs = append(bs, sv.blocks[dev])
				full = append(full, buf)
				group = sv.gather[dev]
				cs = append(cs, sv)
			}
		}
		if err := r.coll.AllGather(dev, sh, bs, group, full); err != nil {
			return fmt.Errorf("distribution: all-gather of the constrained weights: %w", err)
		}
		for i, sv := range cs {
			ops.VariableConstraint(sv.v).Project(full[i], sv.v.Shape())
			sv.blocks[dev].Extract(sv.shard[dev].Data(0), full[i])
		}
	}
	return nil
}
