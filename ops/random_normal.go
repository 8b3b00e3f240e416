package ops

import "math/rand/v2"

type randomAttrs struct {
	A, B float32 // mean and stddev, or the bounds
	ID   string  // random ops are never merged
}

// RandomNormal adds to tr a tensor of the given shape drawn from a normal
// distribution of mean and stddev, afresh at every replay from gen's
// state, which advances by one after each replay: Keras'
// keras.random.normal(shape, mean, stddev, seed=seed_generator) in a
// traced step. In an eager trace it draws at once, as
// [SeedGenerator.Next] does.
func RandomNormal(tr *Trace, shape Shape, mean, stddev float32, gen *SeedGenerator) Tensor {
	return randomFill(tr, "RandomNormal", shape, randomAttrs{A: mean, B: stddev}, gen,
		func(o []float32, r *rand.Rand) { normalFill(o, r, mean, stddev) })
}

// RandomUniform is [RandomNormal] for values uniform in [minval, maxval).
func RandomUniform(tr *Trace, shape Shape, minval, maxval float32, gen *SeedGenerator) Tensor {
	if !(minval < maxval) {
		fail("RandomUniform", "minval %v must be below maxval %v", minval, maxval)
	}
	return randomFill(tr, "RandomUniform", shape, randomAttrs{A: minval, B: maxval}, gen,
		func(o []float32, r *rand.Rand) { uniformFill(o, r, minval, maxval) })
}

func randomFill(tr *Trace, name string, shape Shape, attrs randomAttrs, gen *SeedGenerator, fill func([]float32, *rand.Rand)) Tensor {
	if tr == nil {
		fail(name, "nil trace")
	}
	if gen == nil {
		fail(name, "nil seed generator")
	}
	for _, d := range shape {
		if d <= 0 {
			fail(name, "shape %v has a non-positive dimension", shape)
		}
	}
	d := gen.draw(tr)
	attrs.ID = tr.uniqueName(name)
	y := tr.apply(&Op{
		name: name, out: shape.Clone(), attrs: attrs,
		fwd: func(o []float32, in [][]float32) { fill(o, d.next(in[0])) },
		wrt: []bool{false},
	}, d.state)
	d.advance(tr)
	return y
}

// FillNormal fills out as [RandomNormal] would with the generator's
// current state on replica 0, and advances the state: an eager
// keras.random.normal(shape, mean, stddev, seed=g).
func (g *SeedGenerator) FillNormal(out []float32, mean, stddev float32) {
	normalFill(out, g.Next(), mean, stddev)
}

// FillUniform is [SeedGenerator.FillNormal] for [RandomUniform].
func (g *SeedGenerator) FillUniform(out []float32, minval, maxval float32) {
	uniformFill(out, g.Next(), minval, maxval)
}
