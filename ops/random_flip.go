package ops

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
)

// replayRand gives a random op fresh draws at every replay of its graph,
// from a generator seeded by the trace's random stream when the op is made
// (as Dropout draws its masks).
type replayRand struct {
	s1, s2, n uint64
	pcg       *rand.PCG
	r         *rand.Rand
}

// frozenReplays makes every replay of a random op draw what the first one
// did. Tests set it (through export_more_test.go) to check gradients by
// finite differences, which need the same draws at every replay.
var frozenReplays atomic.Bool

func newReplayRand(tr *Trace) *replayRand {
	rr := &replayRand{s1: tr.rng.Uint64(), s2: tr.rng.Uint64()}
	rr.pcg = rand.NewPCG(rr.s1, rr.s2)
	rr.r = rand.New(rr.pcg)
	return rr
}

// next returns the generator for the replay about to run.
func (rr *replayRand) next() *rand.Rand {
	if !frozenReplays.Load() {
		rr.n++
	}
	rr.pcg.Seed(rr.s1, rr.s2^(rr.n*0x9e3779b97f4a7c15))
	return rr.r
}

// pixelMap is a random spatial transform of NHWC images that moves whole
// pixels: at every replay, draw fills from[p], for each output pixel p
// (index (b*oh+y)*ow+x), with the input pixel it copies (index
// (b*h+y)*w+x), or -1 for the fill value. The gradient adds dy back into
// the pixels each output came from, with the same draw.
type pixelMap struct {
	name   string
	attrs  any
	n      int // batch
	ih, iw int // input height and width
	oh, ow int // output height and width
	c      int // channels
	fill   float32
	draw   func(r *rand.Rand, from []int32)
	gen    *SeedGenerator // if set, draws come from its state, not the trace's stream
}

func (pm pixelMap) apply(tr *Trace, x Tensor) Tensor {
	inputs := []Tensor{x}
	var next func(in [][]float32) *rand.Rand
	var d *seedDraw
	if pm.gen == nil {
		rr := newReplayRand(tr)
		next = func([][]float32) *rand.Rand { return rr.next() }
	} else {
		d = pm.gen.draw(tr)
		inputs = append(inputs, d.state)
		next = func(in [][]float32) *rand.Rand { return d.next(in[1]) }
	}
	wrt := make([]bool, len(inputs))
	wrt[0] = true
	from := make([]int32, pm.n*pm.oh*pm.ow)
	per := pm.oh * pm.ow // output pixels per image
	c := pm.c
	xs := x.Shape()
	y := tr.apply(&Op{
		name: pm.name, out: Shape{pm.n, pm.oh, pm.ow, c}, attrs: pm.attrs,
		fwd: func(o []float32, in [][]float32) {
			pm.draw(next(in), from)
			src := in[0]
			parallelFor(pm.n, func(lo, hi int) {
				for p := lo * per; p < hi*per; p++ {
					dst := o[p*c : (p+1)*c]
					if f := from[p]; f >= 0 {
						copy(dst, src[int(f)*c:int(f+1)*c])
					} else {
						for i := range dst {
							dst[i] = pm.fill
						}
					}
				}
			})
		},
		// The gradient reads the draw of the forward pass: it takes the
		// forward output y as an input so that it runs after it.
		wrt: wrt,
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			img := pm.ih * pm.iw * c
			g := make([]Tensor, len(inputs))
			g[0] = tr.apply(&Op{
				name: pm.name + "Grad", out: xs.Clone(), attrs: fmt.Sprintf("%+v %s", pm.attrs, tr.uniqueName("grad")),
				fwd: func(o []float32, in [][]float32) {
					g := in[1]
					parallelFor(pm.n, func(lo, hi int) {
						clear(o[lo*img : hi*img])
						for p := lo * per; p < hi*per; p++ {
							if f := int(from[p]); f >= 0 {
								dst := o[f*c : (f+1)*c]
								for i, v := range g[p*c : (p+1)*c] {
									dst[i] += v
								}
							}
						}
					})
				},
				wrt: []bool{false, false},
			}, y, dy)
			return g
		},
	}, inputs...)
	if d != nil {
		d.advance(tr)
	}
	return y
}

func imageShape(op string, x Tensor) (n, h, w, c int) {
	s := x.Shape()
	if len(s) != 4 {
		fail(op, "needs a rank-4 NHWC input, got shape %v", s)
	}
	return s[0], s[1], s[2], s[3]
}

type randomFlipAttrs struct {
	Horizontal, Vertical bool
	ID                   string // random ops are never merged
}

// RandomFlip flips each image of NHWC x left-right with probability 1/2 if
// horizontal, and independently upside-down with probability 1/2 if
// vertical, drawing afresh at every replay from the trace's random stream.
// It is the training-time op of RandomFlip layers; the gradient flips dy
// back the same way.
func RandomFlip(x Tensor, horizontal, vertical bool) Tensor {
	return randomFlip(x, horizontal, vertical, nil)
}

// SeededRandomFlip is [RandomFlip] drawing from gen's state, which advances by one
// after each replay (see [SeededDropout]).
func SeededRandomFlip(x Tensor, horizontal, vertical bool, gen *SeedGenerator) Tensor {
	if gen == nil {
		fail("RandomFlip", "nil seed generator")
	}
	return randomFlip(x, horizontal, vertical, gen)
}

func randomFlip(x Tensor, horizontal, vertical bool, gen *SeedGenerator) Tensor {
	tr := sameTrace("RandomFlip", x)
	n, h, w, c := imageShape("RandomFlip", x)
	if !horizontal && !vertical {
		fail("RandomFlip", "flips neither horizontally nor vertically")
	}
	return pixelMap{
		gen:  gen,
		name: "RandomFlip", attrs: randomFlipAttrs{horizontal, vertical, tr.uniqueName("randomflip")},
		n: n, ih: h, iw: w, oh: h, ow: w, c: c,
		draw: func(r *rand.Rand, from []int32) {
			for b := 0; b < n; b++ {
				fh := horizontal && r.IntN(2) == 1
				fv := vertical && r.IntN(2) == 1
				for y := 0; y < h; y++ {
					sy := y
					if fv {
						sy = h - 1 - y
					}
					for x := 0; x < w; x++ {
						sx := x
						if fh {
							sx = w - 1 - x
						}
						from[(b*h+y)*w+x] = int32((b*h+sy)*w + sx)
					}
				}
			}
		},
	}.apply(tr, x)
}
