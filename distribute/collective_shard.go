package distribute

import (
	"fmt"
)

// Block is a box inside a row-major array of shape Shape: the elements
// whose index k lies in [Lo[k], Hi[k]) on every dimension. It is how a
// shard of a weight is named: the part of the whole array one device
// holds. A block of a scalar (empty Shape) is the scalar itself.
type Block struct {
	Shape []int
	Lo    []int
	Hi    []int
}

// FullBlock is the block covering all of an array of this shape.
func FullBlock(shape []int) Block {
	return Block{Shape: append([]int(nil), shape...), Lo: make([]int, len(shape)), Hi: append([]int(nil), shape...)}
}

// Check reports a block that does not fit its shape.
func (b Block) Check() error {
	if len(b.Lo) != len(b.Shape) || len(b.Hi) != len(b.Shape) {
		return fmt.Errorf("distribute: block of rank %d with %d lower and %d upper bounds", len(b.Shape), len(b.Lo), len(b.Hi))
	}
	for k := range b.Shape {
		if b.Lo[k] < 0 || b.Lo[k] > b.Hi[k] || b.Hi[k] > b.Shape[k] {
			return fmt.Errorf("distribute: block [%v, %v) does not fit the shape %v (dimension %d)", b.Lo, b.Hi, b.Shape, k)
		}
	}
	return nil
}

// Dims is the block's own shape, Hi-Lo per dimension.
func (b Block) Dims() []int {
	d := make([]int, len(b.Shape))
	for k := range d {
		d[k] = b.Hi[k] - b.Lo[k]
	}
	return d
}

// Size is the number of elements in the block.
func (b Block) Size() int {
	n := 1
	for k := range b.Shape {
		n *= b.Hi[k] - b.Lo[k]
	}
	return n
}

// Runs calls fn for every contiguous run of the block in the flat array,
// in row-major order: off is the run's offset in the whole array, n its
// length. The runs laid end to end are the block's elements in its own
// row-major order, so a shard stored contiguously is filled by consecutive
// runs. Trailing dimensions the block covers whole merge into longer runs.
func (b Block) Runs(fn func(off, n int)) {
	rank := len(b.Shape)
	if rank == 0 {
		fn(0, 1)
		return
	}
	if b.Size() == 0 {
		return
	}
	strides := make([]int, rank)
	s := 1
	for k := rank - 1; k >= 0; k-- {
		strides[k] = s
		s *= b.Shape[k]
	}
	k := rank - 1
	for k > 0 && b.Lo[k] == 0 && b.Hi[k] == b.Shape[k] {
		k--
	}
	run := (b.Hi[k] - b.Lo[k]) * strides[k]
	idx := append([]int(nil), b.Lo[:k]...)
	for {
		off := b.Lo[k] * strides[k]
		for j, i := range idx {
			off += i * strides[j]
		}
		fn(off, run)
		j := k - 1
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < b.Hi[j] {
				break
			}
			idx[j] = b.Lo[j]
		}
		if j < 0 {
			return
		}
	}
}

// Extract copies the block of full (the whole array) into dst (Size
// values, the block's row-major order).
func (b Block) Extract(dst, full []float32) {
	at := 0
	b.Runs(func(off, n int) {
		copy(dst[at:at+n], full[off:off+n])
		at += n
	})
}

// Insert copies src (the block's values in its row-major order) into its
// place in full.
func (b Block) Insert(full, src []float32) {
	at := 0
	b.Runs(func(off, n int) {
		copy(full[off:off+n], src[at:at+n])
		at += n
	})
}

// ShardCollective runs the collectives of sharded (FSDP/ZeRO-style)
// training among n in-process replicas: [ShardCollective.ReduceScatter]
// (each replica receives the sum of its own block of buffers every
// replica of a group holds whole) and [ShardCollective.AllGather] (each
// replica assembles whole buffers from the blocks the members of a group
// hold), plus the all-reduce of [MirroredStrategy]. It shares that
// all-reduce's barrier, so the three can be mixed in any order as long
// as every replica calls the same sequence, and one replica's failure
// ([ShardCollective.Abort]) releases the others instead of hanging them.
//
// Sums run in the order the group lists its replicas, element by element
// in float32, starting from the first member's value: with the group
// 0..n-1 every block is bitwise the block of MirroredStrategy's
// all-reduce, whatever the timing.
type ShardCollective struct {
	a *allReducer

	// Deposits, one slot per replica, written by that replica before a
	// barrier and read by the others after it.
	rsFull   [][][]float32
	agShards [][][]float32
	agBlocks [][]Block
}

// NewShardCollective makes the collectives of n replicas.
func NewShardCollective(n int) *ShardCollective {
	if n < 1 {
		n = 1
	}
	return &ShardCollective{a: newAllReducer(n), rsFull: make([][][]float32, n), agShards: make([][][]float32, n), agBlocks: make([][]Block, n)}
}

// Replicas is the number of replicas that take part in every call.
func (c *ShardCollective) Replicas() int { return c.a.n }

// Abort wakes every replica waiting in a collective with err (a replica
// failed and will not arrive).
func (c *ShardCollective) Abort(err error) { c.a.abort(err) }

// Reset readies an aborted collective for the next step; no replica may be
// inside a call.
func (c *ShardCollective) Reset() { c.a.reset() }

// AllReduceSum is MirroredStrategy's deterministic all-reduce: on return
// every replica's bufs hold the sum over replicas, in replica order.
func (c *ShardCollective) AllReduceSum(replica int, bufs [][]float32) error {
	return c.a.allReduceSum(replica, bufs)
}

func (c *ShardCollective) checkReplica(what string, replica int, group []int) error {
	if replica < 0 || replica >= c.a.n {
		return fmt.Errorf("distribute: %s: replica %d of %d", what, replica, c.a.n)
	}
	if len(group) == 0 {
		return fmt.Errorf("distribute: %s: replica %d gave an empty group", what, replica)
	}
	for _, g := range group {
		if g < 0 || g >= c.a.n {
			return fmt.Errorf("distribute: %s: group %v names replica %d of %d", what, group, g, c.a.n)
		}
	}
	return nil
}

// ReduceScatter is called by every replica with its whole buffers full
// (the same lengths on every replica), and per buffer the block it wants
// and out, Size() values. On return out[i] holds the sum, over the
// replicas of group in the order listed, of their full[i] restricted to
// blocks[i]. A replica's group and blocks are its own (the replicas
// holding one shard name the same group); every replica must call, also
// those whose part is not summed by anyone (a replica without data
// deposits zeros). full is read by others until every replica returned.
func (c *ShardCollective) ReduceScatter(replica int, full [][]float32, blocks []Block, group []int, out [][]float32) error {
	err := c.checkReplica("ReduceScatter", replica, group)
	if err == nil && (len(blocks) != len(full) || len(out) != len(full)) {
		err = fmt.Errorf("distribute: ReduceScatter: replica %d gave %d buffers, %d blocks and %d outputs", replica, len(full), len(blocks), len(out))
	}
	for i := 0; err == nil && i < len(full); i++ {
		if err = blocks[i].Check(); err == nil {
			if n := FullBlock(blocks[i].Shape).Size(); len(full[i]) != n {
				err = fmt.Errorf("distribute: ReduceScatter: buffer %d of replica %d has %d values for the shape %v", i, replica, len(full[i]), blocks[i].Shape)
			} else if len(out[i]) != blocks[i].Size() {
				err = fmt.Errorf("distribute: ReduceScatter: output %d of replica %d has %d values for a block of %d", i, replica, len(out[i]), blocks[i].Size())
			}
		}
	}
	if err != nil {
		c.a.abort(err)
		return err
	}
	c.a.mu.Lock()
	c.rsFull[replica] = full
	c.a.mu.Unlock()
	if err := c.a.barrier(); err != nil {
		return err
	}
	for _, g := range group {
		if len(c.rsFull[g]) != len(full) {
			err = fmt.Errorf("distribute: ReduceScatter: replica %d reduces %d buffers but replica %d deposited %d", replica, len(full), g, len(c.rsFull[g]))
			break
		}
		for i := range full {
			if len(c.rsFull[g][i]) != len(full[i]) {
				err = fmt.Errorf("distribute: ReduceScatter: buffer %d has %d values on replica %d but %d on replica %d", i, len(full[i]), replica, len(c.rsFull[g][i]), g)
				break
			}
		}
	}
	if err != nil {
		c.a.abort(err)
		return err
	}
	for i, b := range blocks {
		o := out[i]
		b.Extract(o, c.rsFull[group[0]][i])
		for _, g := range group[1:] {
			src := c.rsFull[g][i]
			at := 0
			b.Runs(func(off, n int) {
				dst, s := o[at:at+n], src[off:off+n]
				for j := range dst {
					dst[j] += s[j]
				}
				at += n
			})
		}
	}
	// Nobody may change its buffers (the next replay) while others read them.
	return c.a.barrier()
}

// AllGather is called by every replica with its shards (shards[i] the
// values of block blocks[i] of buffer i, in the block's row-major order)
// and its whole buffers full; on return full[i] holds, for every member p
// of group, p's shard of buffer i at p's block. Members of one group hold
// disjoint blocks that together cover the buffer (this is not checked:
// the part no member holds keeps its value). A replica may be in no one's
// group, but every replica must call.
func (c *ShardCollective) AllGather(replica int, shards [][]float32, blocks []Block, group []int, full [][]float32) error {
	err := c.checkReplica("AllGather", replica, group)
	if err == nil && (len(blocks) != len(shards) || len(full) != len(shards)) {
		err = fmt.Errorf("distribute: AllGather: replica %d gave %d shards, %d blocks and %d outputs", replica, len(shards), len(blocks), len(full))
	}
	for i := 0; err == nil && i < len(shards); i++ {
		if err = blocks[i].Check(); err == nil && len(shards[i]) != blocks[i].Size() {
			err = fmt.Errorf("distribute: AllGather: shard %d of replica %d has %d values for a block of %d", i, replica, len(shards[i]), blocks[i].Size())
		} else if err == nil && len(full[i]) != FullBlock(blocks[i].Shape).Size() {
			err = fmt.Errorf("distribute: AllGather: output %d of replica %d has %d values for the shape %v", i, replica, len(full[i]), blocks[i].Shape)
		}
	}
	if err != nil {
		c.a.abort(err)
		return err
	}
	c.a.mu.Lock()
	c.agShards[replica] = shards
	c.agBlocks[replica] = blocks
	c.a.mu.Unlock()
	if err := c.a.barrier(); err != nil {
		return err
	}
	for _, g := range group {
		if len(c.agShards[g]) != len(full) {
			err = fmt.Errorf("distribute: AllGather: replica %d gathers %d buffers but replica %d deposited %d", replica, len(full), g, len(c.agShards[g]))
			break
		}
		for i := range full {
			if b := c.agBlocks[g][i]; len(b.Shape) != len(c.agBlocks[replica][i].Shape) || FullBlock(b.Shape).Size() != len(full[i]) {
				err = fmt.Errorf("distribute: AllGather: buffer %d has the shape %v on replica %d but %v on replica %d", i, blocks[i].Shape, replica, b.Shape, g)
				break
			}
		}
	}
	if err != nil {
		c.a.abort(err)
		return err
	}
	for _, g := range group {
		for i := range full {
			c.agBlocks[g][i].Insert(full[i], c.agShards[g][i])
		}
	}
	// The shards may change (the next update) only once everyone copied.
	return c.a.barrier()
}
