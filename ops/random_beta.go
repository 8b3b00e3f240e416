package ops

import (
	"math"
	"math/rand/v2"
)

type randomBetaAttrs struct{ ID string }

// RandomBeta adds to tr a tensor of the given shape drawn from the Beta
// distribution of parameters alpha and beta (scalar tensors, so that a
// layer may draw them too, as Keras' CutMix draws its alpha), afresh at
// every replay from gen's state: keras.random.beta(shape, alpha, beta,
// seed=seed_generator), as X / (X + Y) of Gamma(alpha) and Gamma(beta)
// draws. The gammas are drawn in log space (Marsaglia and Tsang's method,
// boosted below 1 by U^(1/a)), so that parameters near 0 (CutMix's
// factor 0 gives alpha 1e-6) give values at 0 or 1, not NaN. A
// parameter that is not positive makes the draw NaN. The values are gokeras'
// draws, not TensorFlow's bits. It has no gradient.
func RandomBeta(tr *Trace, shape Shape, alpha, beta Tensor, gen *SeedGenerator) Tensor {
	const op = "RandomBeta"
	if tr == nil || gen == nil {
		fail(op, "nil trace or seed generator")
	}
	for _, t := range []Tensor{alpha, beta} {
		if t.IsNone() || t.Shape().Size() != 1 {
			fail(op, "alpha and beta must be scalar tensors")
		}
	}
	for _, d := range shape {
		if d <= 0 {
			fail(op, "shape %v has a non-positive dimension", shape)
		}
	}
	d := gen.draw(tr)
	y := tr.apply(&Op{
		name: op, out: shape.Clone(), attrs: randomBetaAttrs{tr.uniqueName(op)},
		fwd: func(o []float32, in [][]float32) {
			r := d.next(in[0])
			a, b := float64(in[1][0]), float64(in[2][0])
			for i := range o {
				la, lb := logGamma(r, a), logGamma(r, b)
				o[i] = float32(1 / (1 + math.Exp(lb-la)))
			}
		},
		wrt: []bool{false, false, false},
	}, d.state, alpha, beta)
	d.advance(tr)
	return y
}

// logGamma draws the logarithm of a Gamma(a, 1) value.
func logGamma(r *rand.Rand, a float64) float64 {
	if !(a > 0) {
		return math.NaN()
	}
	if a < 1 {
		u := r.Float64()
		for u == 0 {
			u = r.Float64()
		}
		return logGamma(r, a+1) + math.Log(u)/a
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if u > 0 && math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return math.Log(d) + math.Log(v)
		}
	}
}

// RandomPermutation adds to tr a permutation of 0, ..., n-1 (as float32
// values, the ids Gather reads), drawn afresh at every replay from gen's
// state: Keras' keras.random.shuffle(arange(n), seed=seed_generator), as
// MixUp and CutMix pair each image with another of the batch.
func RandomPermutation(tr *Trace, n int, gen *SeedGenerator) Tensor {
	if n <= 0 {
		fail("RandomPermutation", "n must be positive, got %d", n)
	}
	return randomFill(tr, "RandomPermutation", Shape{n}, randomAttrs{A: float32(n)}, gen,
		func(o []float32, r *rand.Rand) {
			for i, j := range r.Perm(n) {
				o[i] = float32(j)
			}
		})
}
