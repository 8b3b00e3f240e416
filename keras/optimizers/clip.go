package optimizers

import "math"

// clip applies the configured clipping to the aggregated gradients; Keras
// clips after the cross-replica sum, so every replica clips the same values.
func (b *base) clip(grads [][]float32) {
	c := &b.cfg
	switch {
	case c.clipNorm > 0:
		for _, g := range grads {
			if n := math.Sqrt(sumSquares(g)); n > c.clipNorm {
				scale(g, c.clipNorm/n)
			}
		}
	case c.globalClipNorm > 0:
		var ss float64
		for _, g := range grads {
			ss += sumSquares(g)
		}
		n := math.Sqrt(ss)
		if n > c.globalClipNorm || math.IsNaN(n) || math.IsInf(n, 0) {
			// A non-finite norm poisons every gradient, as in
			// tf.clip_by_global_norm, rather than being silently ignored.
			s := c.globalClipNorm / n
			if math.IsNaN(n) || math.IsInf(n, 0) {
				s = math.NaN()
			}
			for _, g := range grads {
				scale(g, s)
			}
		}
	case c.clipValue > 0:
		hi := float32(c.clipValue)
		for _, g := range grads {
			for j, x := range g {
				g[j] = min(max(x, -hi), hi)
			}
		}
	}
}

func sumSquares(g []float32) float64 {
	var s float64
	for _, x := range g {
		s += float64(x) * float64(x)
	}
	return s
}

func scale(g []float32, s float64) {
	f := float32(s)
	for j := range g {
		g[j] *= f
	}
}
