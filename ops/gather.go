package ops

import "fmt"

type gatherAttrs struct{ Rows, Cols int }

// gatherID converts the float32 id v to a row of a table of rows rows,
// truncating toward zero as a cast to int does; it panics with an *Error
// (which the executor returns) when the row does not exist.
func gatherID(op string, v float32, i, rows int) int {
	if !(v > -1 && v < float32(rows)) { // also rejects NaN
		panic(&Error{Op: op, Msg: fmt.Sprintf("index %v (at position %d) is out of range [0, %d)", v, i, rows)})
	}
	return int(v)
}

// Gather selects rows of params (V, D) by the ids in indices (any shape;
// float32 values, truncated to integers), as tf.gather on axis 0: the output
// has shape indices.shape + (D,). An id outside [0, V) makes the replay fail
// with an *Error. The gradient with respect to params adds each row of dy
// into the row it came from; indices have no gradient.
func Gather(params, indices Tensor) Tensor {
	tr := sameTrace("Gather", params, indices)
	ps := params.Shape()
	if len(ps) != 2 {
		fail("Gather", "params must be rank 2 (rows, columns), got %v", ps)
	}
	rows, cols := ps[0], ps[1]
	out := append(indices.Shape().Clone(), cols)
	attrs := gatherAttrs{Rows: rows, Cols: cols}
	return tr.apply(&Op{
		name: "Gather", out: out, attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			p, ids := in[0], in[1]
			for i, v := range ids[:len(o)/max(cols, 1)] {
				r := gatherID("Gather", v, i, rows)
				copy(o[i*cols:(i+1)*cols], p[r*cols:(r+1)*cols])
			}
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			g := tr.apply(&Op{
				name: "GatherGrad", out: ps.Clone(), attrs: attrs,
				fwd: func(o []float32, in [][]float32) {
					clear(o)
					ids, g := in[0], in[1]
					for i, v := range ids[:len(g)/max(cols, 1)] {
						r := gatherID("GatherGrad", v, i, rows)
						dst, src := o[r*cols:(r+1)*cols], g[i*cols:(i+1)*cols]
						for j, x := range src {
							dst[j] += x
						}
					}
				},
				wrt: []bool{false, false},
			}, in[1], dy)
			return []Tensor{g, {}}
		},
		wrt:  []bool{true, false},
		rows: &[2]int{0, 1},
	}, params, indices)
}
