package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// The 3-D layers (Conv3D, MaxPooling3D, AveragePooling3D) run as their
// 2-D counterparts over height and width, with the depth axis taken by
// windows of slices: the i-th tap of every output depth position od is the
// input depth od*stride + i*dilation - padBefore, one Slice (and a
// Reshape that picks every stride-th depth) for all od at once.

// depthGeom is the geometry of a window scan along the depth axis.
type depthGeom struct {
	k, stride, dil   int
	out, before, pad int // output size; padding before; and after
}

func newDepthGeom(in, k, stride, dil int, padding string) (depthGeom, error) {
	out, before, err := ops.ConvOutputSize(in, k, stride, dil, padding)
	if err != nil {
		return depthGeom{}, err
	}
	total := 0
	if padding == "same" {
		total = max((out-1)*stride+(k-1)*dil+1-in, 0)
	}
	return depthGeom{k: k, stride: stride, dil: dil, out: out, before: before, pad: total - before}, nil
}

// padDepth pads axis 1 of x (batch, depth, ...) as g's "same" padding
// needs, plus the zeros after that the taps' strided views read past the
// end (never used), and returns it with the offset of input depth 0.
func (g depthGeom) padDepth(x ops.Tensor) ops.Tensor {
	d := x.Shape()[1]
	need := (g.k-1)*g.dil + g.out*g.stride // every tap's view of out*stride depths
	after := max(need-(d+g.before), g.pad)
	if g.before == 0 && after == 0 {
		return x
	}
	p := make([][2]int, x.Rank())
	p[1] = [2]int{g.before, after}
	return ops.Pad(x, p)
}

// tap returns tap i of every output depth position of the padded xp:
// (batch, out, ...) holding xp[:, od*stride + i*dil].
func (g depthGeom) tap(xp ops.Tensor, i int) ops.Tensor {
	s := xp.Shape()
	begin := make([]int, len(s))
	size := s.Clone()
	begin[1], size[1] = i*g.dil, g.out*g.stride
	v := ops.Slice(xp, begin, size)
	if g.stride == 1 {
		return v
	}
	split := append(ops.Shape{s[0], g.out, g.stride}, s[2:]...)
	begin = make([]int, len(split))
	size = split.Clone()
	size[2] = 1
	v = ops.Slice(ops.Reshape(v, split), begin, size)
	return ops.Reshape(v, append(ops.Shape{s[0], g.out}, s[2:]...))
}

// validTaps counts, for each output depth position, the taps that read
// the input rather than the "same" padding.
func (g depthGeom) validTaps(in int) []float32 {
	n := make([]float32, g.out)
	for od := range n {
		for i := range g.k {
			if d := od*g.stride + i*g.dil - g.before; d >= 0 && d < in {
				n[od]++
			}
		}
	}
	return n
}

// paddingMask is 0 at the input's depths and -MaxFloat32 at the padding
// of the padded depth axis of length dp (shape (1, dp, 1, ..., 1) of the
// given rank): added before a maximum, the padding never wins.
func (g depthGeom) paddingMask(tr *ops.Trace, in, dp, rank int) ops.Tensor {
	shape := make(ops.Shape, rank)
	for i := range shape {
		shape[i] = 1
	}
	shape[1] = dp
	m := make([]float32, dp)
	for d := range m {
		if d < g.before || d >= g.before+in {
			m[d] = -3.4028234663852886e38
		}
	}
	return tr.Constant(shape, m)
}
