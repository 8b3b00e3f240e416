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
	tr := sameTrace("Dropout", x)
	if rate < 0 || rate >= 1 {
		fail("Dropout", "rate must be in [0, 1), got %v", rate)
	}
	if rate == 0 {
		return x
	}
	rng := rand.New(rand.NewPCG(tr.rng.Uint64(), tr.rng.Uint64()))
	mask := make([]float32, x.Shape().Size())
	scale := 1 / (1 - rate)
	return tr.apply(&Op{
		name: "Dropout", out: x.Shape(), attrs: dropoutAttrs{Rate: rate, ID: tr.uniqueName("dropout")},
		fwd: func(o []float32, in [][]float32) {
			for i := range mask {
				if rng.Float32() < rate {
					mask[i] = 0
				} else {
					mask[i] = scale
				}
			}
			for i := range o {
				o[i] = in[0][i] * mask[i]
			}
		},
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			// y is an input only so the mask is drawn before it is used.
			return []Tensor{ApplyOp("DropoutGrad", dropoutAttrs{Rate: rate, ID: tr.uniqueName("dropoutgrad")}, dy.Shape(),
				func(o []float32, in [][]float32) {
					for i := range o {
						o[i] = in[0][i] * mask[i]
					}
				}, nil, dy, y)}
		},
	}, x)
}
