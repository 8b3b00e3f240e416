package distribution

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/distribute"
)

// TensorLayout is keras.distribution.TensorLayout (jax.sharding's
// NamedSharding): per dimension of a tensor, the mesh axis that splits it,
// or "" (Python's None) to keep that dimension whole on every device.
// ("", "model") on a 2x2 ("batch", "model") mesh gives each device half of
// the columns; the two devices of a "batch" row hold the same half.
//
// A layout made without a mesh gets one when a [LayoutMap] stores it.
type TensorLayout struct {
	axes []string
	mesh *DeviceMesh
}

// NewTensorLayout makes a layout; mesh may be nil (set later, once). With
// a mesh, an axis name it does not have is an error, as in Keras.
func NewTensorLayout(axes []string, mesh *DeviceMesh) (*TensorLayout, error) {
	l := &TensorLayout{axes: slices.Clone(axes)}
	if mesh != nil {
		if err := l.SetDeviceMesh(mesh); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Axes returns the mesh axis of each dimension ("" for replicated).
func (l *TensorLayout) Axes() []string { return slices.Clone(l.axes) }

// DeviceMesh returns the layout's mesh, nil before one was set.
func (l *TensorLayout) DeviceMesh() *DeviceMesh { return l.mesh }

// SetDeviceMesh gives the layout its mesh. Replacing a mesh is an error,
// and so is an axis name the mesh does not have (Keras' "Invalid axis
// names for Layout").
func (l *TensorLayout) SetDeviceMesh(m *DeviceMesh) error {
	if l.mesh != nil {
		return fmt.Errorf("distribution: TensorLayout: cannot override the device mesh; it is %v", l.mesh)
	}
	var bad []string
	for _, a := range l.axes {
		if a != "" && m.AxisIndex(a) < 0 && !slices.Contains(bad, a) {
			bad = append(bad, a)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("distribution: TensorLayout: invalid axis names for the layout %s: %q; the mesh's axis names are %q", l, bad, m.axes)
	}
	l.mesh = m
	return nil
}

// Replicated reports whether no dimension is split.
func (l *TensorLayout) Replicated() bool {
	for _, a := range l.axes {
		if a != "" {
			return false
		}
	}
	return true
}

func (l *TensorLayout) String() string {
	q := make([]string, len(l.axes))
	for i, a := range l.axes {
		if a == "" {
			q[i] = "None"
		} else {
			q[i] = fmt.Sprintf("%q", a)
		}
	}
	if len(q) == 1 {
		return "(" + q[0] + ",)"
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// Check reports whether the layout can be applied to a tensor of shape, by
// JAX's rules for a NamedSharding: the layout has a mesh, no more axes
// than the shape has dimensions (fewer leave the last dimensions whole,
// as a shorter jax PartitionSpec does), no mesh axis used twice, and each
// split dimension divisible by its axis's length.
func (l *TensorLayout) Check(shape []int) error {
	_, err := l.shards(shape, "", false)
	return err
}

// ShardShape returns the shape of every device's shard of a tensor of
// shape (jax's sharding.shard_shape).
func (l *TensorLayout) ShardShape(shape []int) ([]int, error) {
	bs, err := l.shards(shape, "", false)
	if err != nil {
		return nil, err
	}
	return bs[0].Dims(), nil
}

// Shards returns, for every device of the mesh in its order, the block of
// a tensor of shape that the device holds.
func (l *TensorLayout) Shards(shape []int) ([]distribute.Block, error) {
	return l.shards(shape, "", false)
}

// shards is Shards; a dimension split along the mesh axis uneven may be
// indivisible, and is then split as tf.distribute splits a batch: parts
// that differ by at most one, the larger first.
func (l *TensorLayout) shards(shape []int, uneven string, allowUneven bool) ([]distribute.Block, error) {
	m := l.mesh
	if m == nil {
		return nil, fmt.Errorf("distribution: the layout %s has no device mesh", l)
	}
	if len(l.axes) > len(shape) {
		return nil, fmt.Errorf("distribution: the layout %s has %d axes, more than the %d dimensions of the shape %v", l, len(l.axes), len(shape), shape)
	}
	for i, a := range l.axes {
		if j := slices.Index(l.axes, a); a != "" && j != i {
			return nil, fmt.Errorf("distribution: the layout %s of the shape %v splits dimensions %d and %d along the same mesh axis %q", l, shape, j, i, a)
		}
	}
	for i, a := range l.axes {
		if a == "" {
			continue
		}
		if m.AxisIndex(a) < 0 {
			return nil, fmt.Errorf("distribution: the layout %s names the axis %q, which the mesh %v does not have", l, a, m)
		}
		if s := m.AxisSize(a); shape[i]%s != 0 && !(allowUneven && a == uneven) {
			return nil, fmt.Errorf("distribution: the layout %s splits dimension %d of the shape %v along the mesh axis %q of %d devices, but %d is not divisible by %d", l, i, shape, a, s, shape[i], s)
		}
	}
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("distribution: shape %v has a negative dimension", shape)
		}
	}
	out := make([]distribute.Block, m.Size())
	for dev := range out {
		c := m.Coords(dev)
		b := distribute.FullBlock(shape)
		for i, a := range l.axes {
			if a == "" {
				continue
			}
			ax := m.AxisIndex(a)
			b.Lo[i], b.Hi[i] = part(shape[i], m.shape[ax], c[ax])
		}
		out[dev] = b
	}
	return out, nil
}

// part is the k-th of n balanced parts of d elements, the larger first
// (exactly d/n each when n divides d).
func part(d, n, k int) (lo, hi int) {
	q, r := d/n, d%n
	lo = k*q + min(k, r)
	hi = lo + q
	if k < r {
		hi++
	}
	return lo, hi
}
