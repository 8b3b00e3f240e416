package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// The 3-D layers (Conv3D, MaxPooling3D, AveragePooling3D) run as their
// 2-D counterparts over height and width, with the depth axis taken by
// taps: the i-th tap of every output depth position od is the input depth
// od*stride + i*dilation - padBefore, one Slice (and a Reshape that picks
// every stride-th depth) for all od at once. Only the taps that read the
// input for some od are made (lo to hi): the others read the "same"
// padding alone, which adds nothing to a sum or a maximum, so a window far
// larger than the input costs no more than one as large as the input.

// depthGeom is the geometry of a window scan along the depth axis.
type depthGeom struct {
	in, k, stride, dil int
	out, before        int // output size; "same" padding before the input
	lo, hi             int // the taps that read the input
	front, after       int // the zeros padDepth adds
	base               int // where tap lo starts in the padded axis
}

// floorDiv and ceilDiv divide by a positive d, rounding down or up.
func floorDiv(a, d int) int {
	q := a / d
	if a%d != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, d int) int { return -floorDiv(-a, d) }

func newDepthGeom(in, k, stride, dil int, padding string) (depthGeom, error) {
	out, before, err := ops.ConvOutputSize(in, k, stride, dil, padding)
	if err != nil {
		return depthGeom{}, err
	}
	g := depthGeom{in: in, k: k, stride: stride, dil: dil, out: out, before: before}
	// tap i reads the input for some od iff i*dil is in
	// [before - (out-1)*stride, before + in - 1].
	g.lo = max(0, ceilDiv(before-(out-1)*stride, dil))
	g.hi = min(k-1, floorDiv(before+in-1, dil))
	g.front = max(0, before-g.lo*dil)
	g.base = g.lo*dil - before + g.front
	need := g.base + (g.hi-g.lo)*dil + out*stride // tap hi's view of out*stride depths
	g.after = max(0, need-g.front-in)
	return g, nil
}

// padDepth pads axis 1 of x (batch, depth, ...) with the zeros the taps
// read: the "same" padding and the end of the taps' strided views.
func (g depthGeom) padDepth(x ops.Tensor) ops.Tensor {
	if g.front == 0 && g.after == 0 {
		return x
	}
	p := make([][2]int, x.Rank())
	p[1] = [2]int{g.front, g.after}
	return ops.Pad(x, p)
}

// tap returns tap i (lo <= i <= hi) of every output depth position of the
// padded xp: (batch, out, ...) holding input depth od*stride + i*dil -
// before (zero where that is padding).
func (g depthGeom) tap(xp ops.Tensor, i int) ops.Tensor {
	s := xp.Shape()
	begin := make([]int, len(s))
	size := s.Clone()
	begin[1], size[1] = g.base+(i-g.lo)*g.dil, g.out*g.stride
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
func (g depthGeom) validTaps() []float32 {
	n := make([]float32, g.out)
	for od := range n {
		first := od*g.stride - g.before // input depth of tap 0
		lo := max(0, ceilDiv(-first, g.dil))
		hi := min(g.k-1, floorDiv(g.in-1-first, g.dil))
		n[od] = float32(max(0, hi-lo+1))
	}
	return n
}

// paddingMask is 0 at the input's depths and -MaxFloat32 at the padding
// of the padded depth axis of length dp (shape (1, dp, 1, ..., 1) of the
// given rank): added before a maximum, the padding never wins.
func (g depthGeom) paddingMask(tr *ops.Trace, dp, rank int) ops.Tensor {
	shape := make(ops.Shape, rank)
	for i := range shape {
		shape[i] = 1
	}
	shape[1] = dp
	m := make([]float32, dp)
	for d := range m {
		if d < g.front || d >= g.front+g.in {
			m[d] = -3.4028234663852886e38
		}
	}
	return tr.Constant(shape, m)
}
