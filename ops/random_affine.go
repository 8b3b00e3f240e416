package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// affineDraw returns, for image b, the affine map of output (x, y) to
// input (a0*x + a1*y + a2, b0*x + b1*y + b2).
type affineDraw func(r *rand.Rand, b int) (a0, a1, a2, b0, b1, b2 float32)

// randomAffine applies a random affine resampling to NHWC x drawn from
// gen at every replay, as TensorFlow's ImageProjectiveTransform: the
// input coordinates are mapped by fillMode (projectCoordF), then read by
// nearest (rounded half away from zero) or bilinear interpolation, a
// neighbour outside the image reading fill.
func randomAffine(tr *Trace, op string, attrs any, x Tensor, gen *SeedGenerator, fillMode string, fill float32, interpolation string, m affineDraw) Tensor {
	n, h, w, c := imageShape(op, x)
	switch interpolation {
	case "nearest":
		return pixelMap{
			gen: gen, name: op, attrs: attrs,
			n: n, ih: h, iw: w, oh: h, ow: w, c: c, fill: fill,
			draw: func(r *rand.Rand, from []int32) {
				for b := 0; b < n; b++ {
					a0, a1, a2, b0, b1, b2 := m(r, b)
					for y := 0; y < h; y++ {
						for xx := 0; xx < w; xx++ {
							fx, fy := float32(xx), float32(y)
							sx := roundIndex(projectCoordF(fillMode, a0*fx+a1*fy+a2, w), w)
							sy := roundIndex(projectCoordF(fillMode, b0*fx+b1*fy+b2, h), h)
							p := (b*h+y)*w + xx
							if sy < 0 || sx < 0 {
								from[p] = -1
							} else {
								from[p] = int32((b*h+sy)*w + sx)
							}
						}
					}
				}
			},
		}.apply(tr, x)
	case "bilinear":
		return pixelBlend{
			gen: gen, name: op + "Bilinear", attrs: attrs,
			n: n, h: h, w: w, c: c, fill: fill,
			draw: func(r *rand.Rand, idx []int32, wt []float32) {
				for b := 0; b < n; b++ {
					a0, a1, a2, b0, b1, b2 := m(r, b)
					for y := 0; y < h; y++ {
						for xx := 0; xx < w; xx++ {
							fx, fy := float32(xx), float32(y)
							sx := projectCoordF(fillMode, a0*fx+a1*fy+a2, w)
							sy := projectCoordF(fillMode, b0*fx+b1*fy+b2, h)
							xf, yf := float32(math.Floor(float64(sx))), float32(math.Floor(float64(sy)))
							p := ((b*h+y)*w + xx) * 4
							k := 0
							for _, dy := range [2]float32{0, 1} {
								for _, dx := range [2]float32{0, 1} {
									iy, ix := yf+dy, xf+dx
									wy := (yf + 1 - sy)
									if dy == 1 {
										wy = sy - yf
									}
									wx := (xf + 1 - sx)
									if dx == 1 {
										wx = sx - xf
									}
									wt[p+k] = wy * wx
									if iy < 0 || ix < 0 || iy >= float32(h) || ix >= float32(w) {
										idx[p+k] = -1
									} else {
										idx[p+k] = int32((b*h+int(iy))*w + int(ix))
									}
									k++
								}
							}
						}
					}
				}
			},
		}.apply(tr, x)
	}
	fail(op, "interpolation must be \"nearest\" or \"bilinear\", got %q", interpolation)
	return Tensor{}
}

func roundIndex(v float32, n int) int {
	i := math.Round(float64(v))
	if i < 0 || i >= float64(n) {
		return -1
	}
	return int(i)
}

// pixelBlend is a random resampling of NHWC images in which every output
// pixel is a weighted sum of 4 input pixels (or of the fill value, index
// -1), drawn at every replay from gen's state; the gradient scatters dy
// back with the same weights.
type pixelBlend struct {
	name       string
	attrs      any
	n, h, w, c int
	fill       float32
	draw       func(r *rand.Rand, idx []int32, wt []float32)
	gen        *SeedGenerator
}

func (pb pixelBlend) apply(tr *Trace, x Tensor) Tensor {
	d := pb.gen.draw(tr)
	inputs := []Tensor{x, d.state}
	per := pb.h * pb.w
	idx := make([]int32, pb.n*per*4)
	wt := make([]float32, pb.n*per*4)
	c := pb.c
	xs := x.Shape()
	y := tr.apply(&Op{
		name: pb.name, out: xs.Clone(), attrs: pb.attrs,
		fwd: func(o []float32, in [][]float32) {
			pb.draw(d.next(in[1]), idx, wt)
			src := in[0]
			parallelFor(pb.n, func(lo, hi int) {
				for p := lo * per; p < hi*per; p++ {
					dst := o[p*c : (p+1)*c]
					clear(dst)
					for k := 0; k < 4; k++ {
						f, wk := idx[p*4+k], wt[p*4+k]
						if f < 0 {
							for i := range dst {
								dst[i] += wk * pb.fill
							}
							continue
						}
						for i, v := range src[int(f)*c : int(f+1)*c] {
							dst[i] += wk * v
						}
					}
				}
			})
		},
		wrt: []bool{true, false},
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			img := per * c
			g := tr.apply(&Op{
				name: pb.name + "Grad", out: xs.Clone(), attrs: fmt.Sprintf("%+v %s", pb.attrs, tr.uniqueName("grad")),
				fwd: func(o []float32, in [][]float32) {
					g := in[1]
					parallelFor(pb.n, func(lo, hi int) {
						clear(o[lo*img : hi*img])
						for p := lo * per; p < hi*per; p++ {
							for k := 0; k < 4; k++ {
								f, wk := int(idx[p*4+k]), wt[p*4+k]
								if f < 0 {
									continue
								}
								dst := o[f*c : (f+1)*c]
								for i, v := range g[p*c : (p+1)*c] {
									dst[i] += wk * v
								}
							}
						}
					})
				},
				wrt: []bool{false, false},
			}, y, dy)
			return []Tensor{g, {}}
		},
	}, inputs...)
	d.advance(tr)
	return y
}
