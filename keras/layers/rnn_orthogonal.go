package layers

import (
	"math"
	"math/rand/v2"

	"github.com/gokeras/gokeras/ops"
)

// Orthogonal is keras.initializers.Orthogonal, the recurrent layers'
// default recurrent_initializer: a matrix with orthonormal rows or columns
// (whichever are fewer) times gain, from the QR decomposition of a
// standard normal draw with the signs of R's diagonal folded into Q, as
// Keras. A shape of rank > 2 is flattened to (product of leading dims,
// last dim).
//
//	keras.initializers.Orthogonal(gain=1.0)  ->  layers.Orthogonal(1)
func Orthogonal(gain float64) Initializer { return orthogonalInit{gain: gain} }

type orthogonalInit struct{ gain float64 }

func (o orthogonalInit) Name() string { return "Orthogonal" }

// Config returns the Keras arguments: the gain.
func (o orthogonalInit) Config() map[string]any {
	return map[string]any{"gain": o.gain, "seed": nil}
}

// Init implements Initializer.
func (o orthogonalInit) Init(s ops.Shape, rng *rand.Rand) []float32 {
	n := s.Size()
	out := newWeightValues(s)
	if n == 0 {
		return out
	}
	cols := 1
	if len(s) > 0 {
		cols = s[len(s)-1]
	}
	rows := n / cols
	// Orthonormalise the columns of a tall (m, k) draw, m >= k, by
	// modified Gram-Schmidt (equal to QR with R's diagonal made positive),
	// then transpose back when the shape is wide.
	m, k := rows, cols
	if rows < cols {
		m, k = cols, rows
	}
	a := make([]float64, m*k) // column-major: column j at a[j*m:]
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for j := 0; j < k; j++ {
		cj := a[j*m : (j+1)*m]
		for p := 0; p < j; p++ {
			cp := a[p*m : (p+1)*m]
			var d float64
			for i := range cj {
				d += cp[i] * cj[i]
			}
			for i := range cj {
				cj[i] -= d * cp[i]
			}
		}
		var norm float64
		for _, v := range cj {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		if norm == 0 {
			norm = 1
		}
		for i := range cj {
			cj[i] /= norm
		}
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			var v float64
			if rows >= cols {
				v = a[c*m+r]
			} else {
				v = a[r*m+c]
			}
			out[r*cols+c] = float32(o.gain * v)
		}
	}
	return out
}
