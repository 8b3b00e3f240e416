package ops

type padAttrs struct{ Paddings [][2]int }

// Pad adds zeros around x: paddings[d] = {before, after} for each dimension
// d, as tf.pad in "CONSTANT" mode with value 0. The gradient slices dy back.
func Pad(x Tensor, paddings [][2]int) Tensor {
	tr := sameTrace("Pad", x)
	xs := x.Shape()
	if len(paddings) != len(xs) {
		fail("Pad", "%d paddings for rank-%d input %v", len(paddings), len(xs), xs)
	}
	out := xs.Clone()
	at := make([]int, len(xs))
	zero := true
	for d, p := range paddings {
		if p[0] < 0 || p[1] < 0 {
			fail("Pad", "paddings %v must be non-negative", paddings)
		}
		out[d] += p[0] + p[1]
		at[d] = p[0]
		zero = zero && p == [2]int{}
	}
	if zero {
		return x
	}
	ps := append([][2]int(nil), paddings...)
	c := newBoxCopier(out, at, xs, make([]int, len(xs)), xs)
	return tr.apply(&Op{
		name: "Pad", out: out, attrs: padAttrs{Paddings: ps},
		fwd: func(o []float32, in [][]float32) {
			clear(o)
			c.copy(o, in[0])
		},
		grad: func(_ []Tensor, _, dy Tensor) []Tensor {
			return []Tensor{Slice(dy, at, xs)}
		},
	}, x)
}
