package ops

import (
	"fmt"
	"math"
)

type projectiveAttrs struct {
	FillMode, Interpolation string
	FillValue               float32
}

// ImageProjectiveTransform resamples the NHWC images x by the projective
// transforms given as a tensor of shape (N, 8) (one row per image) or
// (1, 8) (one for all), as TensorFlow's ImageProjectiveTransformV3 (which
// Keras 3's ops.image.affine_transform and perspective_transform call):
// a row (a0, a1, a2, b0, b1, b2, c0, c1) maps output (x, y) to input
// ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1
// (the fill value where k is 0); the coordinates are then mapped by
// fillMode ("reflect", "wrap", "nearest", or "constant", which leaves
// them and reads fillValue outside the image) and read by "nearest"
// (rounded half away from zero) or "bilinear" interpolation, in
// TensorFlow's order of operations. Unlike the Seeded random transforms,
// the transforms are an input, so a layer can draw them (Keras'
// get_random_transformation) and tests can feed Keras' own. The
// gradient with respect to x adds dy back into the pixels each output
// read, with the same weights; the transforms have none (nor in
// TensorFlow).
func ImageProjectiveTransform(x, transforms Tensor, fillMode string, fillValue float32, interpolation string) Tensor {
	const op = "ImageProjectiveTransform"
	tr := sameTrace(op, x, transforms)
	n, h, w, c := imageShape(op, x)
	ts := transforms.Shape()
	if len(ts) != 2 || ts[1] != 8 || (ts[0] != n && ts[0] != 1) {
		fail(op, "transforms must have shape (%d, 8) or (1, 8) for images %v, got %v", n, x.Shape(), ts)
	}
	switch fillMode {
	case "reflect", "wrap", "nearest", "constant":
	default:
		fail(op, "fill mode must be \"reflect\", \"wrap\", \"nearest\" or \"constant\", got %q", fillMode)
	}
	if interpolation != "nearest" && interpolation != "bilinear" {
		fail(op, "interpolation must be \"nearest\" or \"bilinear\", got %q", interpolation)
	}
	pt := projTaps{n: n, h: h, w: w, perImage: ts[0] == n, mode: fillMode, nearest: interpolation == "nearest"}
	attrs := projectiveAttrs{fillMode, interpolation, fillValue}
	xs := x.Shape()
	return tr.apply(&Op{
		name: op, out: xs.Clone(), attrs: attrs,
		fwd: func(o []float32, in [][]float32) {
			src, tf := in[0], in[1]
			parallelFor(n, func(lo, hi int) {
				for b := lo; b < hi; b++ {
					for p := b * h * w; p < (b+1)*h*w; p++ {
						dst := o[p*c : (p+1)*c]
						idx, wt, k := pt.taps(tf, p)
						if k == 0 { // k == 0 in the projection: outside
							for i := range dst {
								dst[i] = fillValue
							}
							continue
						}
						if pt.nearest {
							if idx[0] < 0 {
								for i := range dst {
									dst[i] = fillValue
								}
							} else {
								copy(dst, src[idx[0]*c:(idx[0]+1)*c])
							}
							continue
						}
						// TensorFlow: ((x_ceil - x) f00 + (x - x_floor) f01) along
						// x for each row, then (y_ceil - y) r0 + (y - y_floor) r1.
						read := func(j, i int) float32 {
							if idx[j] < 0 {
								return fillValue
							}
							return src[idx[j]*c+i]
						}
						for i := range dst {
							r0 := wt[0]*read(0, i) + wt[1]*read(1, i)
							r1 := wt[0]*read(2, i) + wt[1]*read(3, i)
							dst[i] = wt[2]*r0 + wt[3]*r1
						}
					}
				}
			})
		},
		wrt: []bool{true, false},
		grad: func(_ []Tensor, y, dy Tensor) []Tensor {
			g := tr.apply(&Op{
				name: op + "Grad", out: xs.Clone(), attrs: fmt.Sprintf("%+v %s", attrs, tr.uniqueName("grad")),
				fwd: func(o []float32, in [][]float32) {
					tf, g := in[0], in[1]
					clear(o)
					// An image's outputs read only its own pixels: the images
					// sum in parallel, each one's taps in order.
					parallelFor(n, func(lo, hi int) {
						for b := lo; b < hi; b++ {
							for p := b * h * w; p < (b+1)*h*w; p++ {
								idx, wt, k := pt.taps(tf, p)
								if k == 0 {
									continue
								}
								gp := g[p*c : (p+1)*c]
								if pt.nearest {
									if idx[0] >= 0 {
										d := o[idx[0]*c : (idx[0]+1)*c]
										for i, v := range gp {
											d[i] += v
										}
									}
									continue
								}
								ws := [4]float32{wt[2] * wt[0], wt[2] * wt[1], wt[3] * wt[0], wt[3] * wt[1]}
								for j := range 4 {
									if idx[j] < 0 {
										continue
									}
									d := o[idx[j]*c : (idx[j]+1)*c]
									for i, v := range gp {
										d[i] += ws[j] * v
									}
								}
							}
						}
					})
				},
				wrt: []bool{false, false},
			}, transforms, dy)
			return []Tensor{g, {}}
		},
	}, x, transforms)
}

// projTaps finds the input pixels an output pixel reads.
type projTaps struct {
	n, h, w  int
	perImage bool
	mode     string
	nearest  bool
}

// taps returns, for output pixel p (flat over batch, rows, columns), the
// flat input pixels read (-1 outside the image): nearest, idx[0]; bilinear,
// (y0,x0), (y0,x1), (y1,x0), (y1,x1) with wt the x weights (x1-x, x-x0)
// and the y weights (y1-y, y-y0). k is 0 when the projection is 0.
func (pt projTaps) taps(tf []float32, p int) (idx [4]int, wt [4]float32, k float32) {
	b, r := p/(pt.h*pt.w), p%(pt.h*pt.w)
	oy, ox := float32(r/pt.w), float32(r%pt.w)
	t := tf[0:8]
	if pt.perImage {
		t = tf[b*8 : b*8+8]
	}
	k = t[6]*ox + t[7]*oy + 1
	if k == 0 {
		return idx, wt, 0
	}
	ix := (t[0]*ox + t[1]*oy + t[2]) / k
	iy := (t[3]*ox + t[4]*oy + t[5]) / k
	xf := projectCoordF(pt.mode, ix, pt.w)
	yf := projectCoordF(pt.mode, iy, pt.h)
	at := func(y, x float32) int {
		if !(y >= 0 && x >= 0 && y < float32(pt.h) && x < float32(pt.w)) {
			return -1
		}
		return (b*pt.h+int(y))*pt.w + int(x)
	}
	if pt.nearest {
		idx[0] = at(float32(math.Round(float64(yf))), float32(math.Round(float64(xf))))
		return idx, wt, k
	}
	y0, x0 := float32(math.Floor(float64(yf))), float32(math.Floor(float64(xf)))
	y1, x1 := y0+1, x0+1
	idx = [4]int{at(y0, x0), at(y0, x1), at(y1, x0), at(y1, x1)}
	wt = [4]float32{x1 - xf, xf - x0, y1 - yf, yf - y0}
	return idx, wt, k
}

// ComputeHomography is Keras 3's ops.image.compute_homography_matrix
// (TensorFlow backend): for start and end points of shape (N, 4, 2)
// (four (x, y) corners each), the (N, 8) projective transforms that map
// each output (end) corner to its input (start) corner, solving the 8x8
// system by Gaussian elimination with partial pivoting (as
// tf.linalg.solve's LU) in float64, rounded to float32. It has no
// gradient.
func ComputeHomography(start, end Tensor) Tensor {
	const op = "ComputeHomography"
	tr := sameTrace(op, start, end)
	s := start.Shape()
	if len(s) != 3 || s[1] != 4 || s[2] != 2 || !s.Equal(end.Shape()) {
		fail(op, "start and end points must have the same shape (N, 4, 2), got %v and %v", s, end.Shape())
	}
	n := s[0]
	return tr.apply(&Op{
		name: op, out: Shape{n, 8},
		fwd: func(o []float32, in [][]float32) {
			for b := range n {
				st, en := in[0][b*8:b*8+8], in[1][b*8:b*8+8]
				var a [8][9]float64
				for i := range 4 {
					sx, sy := float64(st[2*i]), float64(st[2*i+1])
					ex, ey := float64(en[2*i]), float64(en[2*i+1])
					a[2*i] = [9]float64{ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey, sx}
					a[2*i+1] = [9]float64{0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey, sy}
				}
				sol := solve8(a)
				for i, v := range sol {
					o[b*8+i] = float32(v)
				}
			}
		},
		wrt: []bool{false, false},
	}, start, end)
}

// solve8 solves the augmented 8x8 system a (NaN for a singular one).
func solve8(a [8][9]float64) [8]float64 {
	for col := range 8 {
		piv := col
		for r := col + 1; r < 8; r++ {
			if math.Abs(a[r][col]) > math.Abs(a[piv][col]) {
				piv = r
			}
		}
		a[col], a[piv] = a[piv], a[col]
		for r := col + 1; r < 8; r++ {
			f := a[r][col] / a[col][col]
			for k := col; k < 9; k++ {
				a[r][k] -= f * a[col][k]
			}
		}
	}
	var x [8]float64
	for r := 7; r >= 0; r-- {
		s := a[r][8]
		for k := r + 1; k < 8; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x
}
