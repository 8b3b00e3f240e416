package distribution

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/ops"
)

// gatherStats counts the bytes of whole split weights one device holds
// gathered: now (0 between steps) and at most at once during any step so
// far.
type gatherStats struct {
	now, peak atomic.Int64
}

// weightBacking is a trained weight's backing: its shards. A step's
// programs borrow the whole weight per kernel that reads it (engine's
// program_lend.go): ReadValue gathers it from the shards of the devices
// that hold its blocks (their memory: the in-process all-gather), and
// the loan is counted as that device's gathered bytes. No shard changes
// while a device's kernels run: a device updates its shards only after
// the reduce-scatter, which every device enters after its kernels.
type weightBacking struct {
	shardBacking
	stats []gatherStats
}

// Lent implements ops.Lender.
func (b *weightBacking) Lent(replica, n int) {
	if replica >= 0 && replica < len(b.stats) {
		b.stats[replica].add(4 * int64(n))
	}
}

// Returned implements ops.Lender.
func (b *weightBacking) Returned(replica, n int) {
	if replica >= 0 && replica < len(b.stats) {
		b.stats[replica].add(-4 * int64(n))
	}
}

func (g *gatherStats) add(d int64) {
	now := g.now.Add(d)
	for {
		p := g.peak.Load()
		if now <= p || g.peak.CompareAndSwap(p, now) {
			return
		}
	}
}

// bind makes, before a device's step, the device's own shard its copy of
// every weight whose shard is whole (replicated, or split along axes of
// length 1), read and updated in place; a split weight stays unbound, so
// the step's kernels borrow it whole one at a time (weightBacking).
func (r *runner) bind(dev int, svs []*shardedVar) error {
	for _, sv := range svs {
		if sv.whole() {
			buf := sv.shard[dev].Data(0)
			if err := sv.v.BindCopy(dev, buf); err != nil {
				return fmt.Errorf("distribution: %w", err)
			}
			sv.bound[dev] = buf
		}
	}
	return nil
}

// whole reports whether every device's shard of sv is the whole weight.
func (sv *shardedVar) whole() bool {
	return sv.mask == 0 || sv.blocks[0].Size() == sv.v.Shape().Size()
}

// unbind ends a device's step; a loan a failed kernel did not give back
// ends with it.
func (r *runner) unbind(dev int, svs []*shardedVar) {
	for _, sv := range svs {
		if sv.bound[dev] != nil {
			sv.v.UnbindCopy(dev)
			sv.bound[dev] = nil
		}
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
				buf := make([]float32, sv.v.Shape().Size())
				r.gathered[dev].add(4 * int64(len(buf)))
				defer r.gathered[dev].add(-4 * int64(len(buf)))
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
