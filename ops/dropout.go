package ops

import (
	"math/rand/v2"
)

type dropoutAttrs struct {
	Rate float32
	ID   string // dropout ops are never merged: each draws its own mask
}

// Dropout zeroes each element with probability rate and scales the rest by
// 1/(1-rate), drawing a fresh mask at every replay from the trace's random
// stream. It is the training-time op; layers skip it in inference.
func Dropout(x Tensor, rate float32) Tensor {
	return dropout(x, rate, nil)
}

// SeededDropout is [Dropout] drawing its masks from gen: the mask of a
// replay is a function of gen's state (read as an input of the op) and the
// replica, and the state advances by one after the replay, as Keras 3's
// Dropout draws with seed=self.seed_generator. A run restored from a
// checkpoint holding the state draws the masks of an uninterrupted run.
func SeededDropout(x Tensor, rate float32, gen *SeedGenerator) Tensor {
	if gen == nil {
		fail("Dropout", "nil seed generator")
	}
	return dropout(x, rate, gen)
}

func dropout(x Tensor, rate float32, gen *SeedGenerator) Tensor {
	tr := sameTrace("Dropout", x)
	if rate < 0 || rate >= 1 {
		fail("Dropout", "rate must be in [0, 1), got %v", rate)
	}
	if rate == 0 {
		return x
	}
	mask := make([]float32, x.Shape().Size())
	scale := 1 / (1 - rate)
	draw := func(rng *rand.Rand) {
		for i := range mask {
			if rng.Float32() < rate {
				mask[i] = 0
			} else {
				mask[i] = scale
			}
		}
	}
	inputs := []Tensor{x}
	var rng func(in [][]float32) *rand.Rand
	var d *seedDraw
	if gen == nil {
		r := rand.New(rand.NewPCG(tr.rng.Uint64(), tr.rng.Uint64()))
		rng = func([][]float32) *rand.Rand { return r }
	} else {
		d = gen.draw(tr)
		inputs = append(inputs, d.state)
		rng = func(in [][]float32) *rand.Rand { return d.next(in[1]) }
	}
	wrt := make([]bool, len(inputs))
	wrt[0] = true
	y := tr.apply(&Op{
		name: "Dropout", out: x.Shape(), attrs: dropoutAttrs{Rate: rate, ID: tr.uniqueName("dropout")},
		fwd: func(o []float32, in [][]float32) {
			draw(rng(in))
			for i := range o {
				o[i] = in[0][i] * mask[i]
			}
		},
		wrt: wrt,
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			// y is an input only so the mask is drawn before it is used.
			g := make([]Tensor, len(inputs))
			g[0] = ApplyOp("DropoutGrad", dropoutAttrs{Rate: rate, ID: tr.uniqueName("dropoutgrad")}, dy.Shape(),
				func(o []float32, in [][]float32) {
					for i := range o {
						o[i] = in[0][i] * mask[i]
					}
				}, nil, dy, y)
			return g
		},
	}, inputs...)
	if d != nil {
		d.advance(tr)
	}
	return y
}
