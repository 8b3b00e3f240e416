// Package vec holds the float32 elementwise and per-channel reduction
// kernels behind package ops: Relu, the binary arithmetic, scale and
// shift, and column sums accumulated in float64.
//
// On amd64 CPUs with AVX-512 the bulk of each slice runs in assembly
// (vec_amd64.s, 16 floats per instruction), and so it does on arm64
// (vec_arm64.s, ASIMD, 16 floats per loop iteration); the tail, other CPUs and
// -tags noasm builds use the plain Go loops here. Every function requires
// its sources to be at least as long as dst (or acc); dst may be the same
// slice as a source (elementwise in place), never a shifted overlap.
package vec

import "math"

// RoundBF16 sets dst[i] to x[i] rounded to the nearest bfloat16 (ties to
// even, on the bits: subnormals round to bfloat16 subnormals, overflow
// goes to ±inf), kept in a float32; a NaN stays a NaN of the same sign and
// upper payload, made quiet. dst and x may be the same slice.
func RoundBF16(dst, x []float32) {
	x = x[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		roundBF16Asm(&dst[0], &x[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = roundBF16(x[i])
	}
}

// roundBF16 is one value of RoundBF16.
func roundBF16(v float32) float32 {
	u := math.Float32bits(v)
	if u&0x7fffffff > 0x7f800000 {
		u |= 0x00400000
	} else {
		u += 0x7fff + (u>>16)&1
	}
	return math.Float32frombits(u &^ 0xffff)
}

// AddRoundBF16 is Add, its result rounded as RoundBF16 rounds, in one
// pass.
func AddRoundBF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		addRoundAsm(&dst[0], &a[0], &b[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = roundBF16(a[i] + b[i])
	}
}

// AddReluRoundBF16 is AddRelu, its result rounded as RoundBF16 rounds,
// in one pass.
func AddReluRoundBF16(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		addReluRoundAsm(&dst[0], &a[0], &b[0], i)
	}
	for ; i < len(dst); i++ {
		v := a[i] + b[i]
		if v < 0 {
			v = 0
		}
		dst[i] = roundBF16(v)
	}
}

// ScaleShiftRoundBF16 is ScaleShift, its result rounded as RoundBF16
// rounds, in one pass.
func ScaleShiftRoundBF16(dst, x, s, t []float32) {
	x, s, t = x[:len(dst)], s[:len(dst)], t[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		scaleShiftRoundAsm(&dst[0], &x[0], &s[0], &t[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = roundBF16(x[i]*s[i] + t[i])
	}
}

// ScaleShiftReluRoundBF16 is ScaleShiftRelu, its result rounded as
// RoundBF16 rounds, in one pass.
func ScaleShiftReluRoundBF16(dst, x, s, t []float32) {
	x, s, t = x[:len(dst)], s[:len(dst)], t[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		scaleShiftReluRoundAsm(&dst[0], &x[0], &s[0], &t[0], i)
	}
	for ; i < len(dst); i++ {
		v := x[i]*s[i] + t[i]
		if v < 0 {
			v = 0
		}
		dst[i] = roundBF16(v)
	}
}

// DualAffineRoundBF16 is DualAffine, its result rounded as RoundBF16
// rounds, in one pass.
func DualAffineRoundBF16(dst, a, p, b, q, r []float32) {
	a, p, b, q, r = a[:len(dst)], p[:len(dst)], b[:len(dst)], q[:len(dst)], r[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		dualAffineRoundAsm(&dst[0], &a[0], &p[0], &b[0], &q[0], &r[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = roundBF16(a[i]*p[i] + b[i]*q[i] + r[i])
	}
}

// Relu sets dst[i] = max(x[i], 0), NaN where x[i] is NaN (Go's max; so
// do AddRelu and ScaleShiftRelu, which must match it).
func Relu(dst, x []float32) {
	x = x[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		reluAsm(&dst[0], &x[0], i)
	}
	for ; i < len(dst); i++ {
		v := x[i]
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}

// ReluGrad sets dst[i] = dy[i] where y[i] > 0, else 0.
func ReluGrad(dst, y, dy []float32) {
	y, dy = y[:len(dst)], dy[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		reluGradAsm(&dst[0], &y[0], &dy[0], i)
	}
	for ; i < len(dst); i++ {
		if y[i] > 0 {
			dst[i] = dy[i]
		} else {
			dst[i] = 0
		}
	}
}

// Add sets dst = a + b.
func Add(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		addAsm(&dst[0], &a[0], &b[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i] + b[i]
	}
}

// AddRelu sets dst = max(a + b, 0).
func AddRelu(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		addReluAsm(&dst[0], &a[0], &b[0], i)
	}
	for ; i < len(dst); i++ {
		v := a[i] + b[i]
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}

// Sub sets dst = a - b.
func Sub(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		subAsm(&dst[0], &a[0], &b[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i] - b[i]
	}
}

// Mul sets dst = a * b.
func Mul(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		mulAsm(&dst[0], &a[0], &b[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i] * b[i]
	}
}

// Max sets dst = max(a, b) (b where either is NaN, as MAXPS does).
func Max(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		maxAsm(&dst[0], &a[0], &b[0], i)
	}
	for ; i < len(dst); i++ {
		if a[i] > b[i] {
			dst[i] = a[i]
		} else {
			dst[i] = b[i]
		}
	}
}

// Scale sets dst = c * x.
func Scale(dst, x []float32, c float32) {
	x = x[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		scaleAsm(&dst[0], &x[0], i, c)
	}
	for ; i < len(dst); i++ {
		dst[i] = c * x[i]
	}
}

// AddScalar sets dst = x + c.
func AddScalar(dst, x []float32, c float32) {
	x = x[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		addScalarAsm(&dst[0], &x[0], i, c)
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] + c
	}
}

// Axpy sets dst += c * x.
func Axpy(dst, x []float32, c float32) {
	x = x[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		axpyAsm(&dst[0], &x[0], i, c)
	}
	for ; i < len(dst); i++ {
		dst[i] += c * x[i]
	}
}

// Square sets dst = x * x.
func Square(dst, x []float32) {
	x = x[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		squareAsm(&dst[0], &x[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i] * x[i]
	}
}

// ScaleShift sets dst = x*s + t, elementwise over vectors s and t.
func ScaleShift(dst, x, s, t []float32) {
	x, s, t = x[:len(dst)], s[:len(dst)], t[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		scaleShiftAsm(&dst[0], &x[0], &s[0], &t[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = x[i]*s[i] + t[i]
	}
}

// ScaleShiftRelu sets dst = max(x*s + t, 0).
func ScaleShiftRelu(dst, x, s, t []float32) {
	x, s, t = x[:len(dst)], s[:len(dst)], t[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		scaleShiftReluAsm(&dst[0], &x[0], &s[0], &t[0], i)
	}
	for ; i < len(dst); i++ {
		v := x[i]*s[i] + t[i]
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}

// DualAffine sets dst = a*p + b*q + r, all elementwise.
func DualAffine(dst, a, p, b, q, r []float32) {
	a, p, b, q, r = a[:len(dst)], p[:len(dst)], b[:len(dst)], q[:len(dst)], r[:len(dst)]
	i := 0
	if useAsm && len(dst) >= 16 {
		i = len(dst) &^ 15
		dualAffineAsm(&dst[0], &a[0], &p[0], &b[0], &q[0], &r[0], i)
	}
	for ; i < len(dst); i++ {
		dst[i] = a[i]*p[i] + b[i]*q[i] + r[i]
	}
}

// Fill sets every element of dst to c.
func Fill(dst []float32, c float32) {
	for i := range dst {
		dst[i] = c
	}
}

// Sum64 returns the sum of x accumulated in float64.
func Sum64(x []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i])
		s1 += float64(x[i+1])
		s2 += float64(x[i+2])
		s3 += float64(x[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// AccRow adds one row: acc[j] += x[j] in float64.
func AccRow(acc []float64, x []float32) {
	x = x[:len(acc)]
	j := 0
	if useAsm && len(acc) >= 8 {
		j = len(acc) &^ 7
		accRowsAsm(&acc[0], &x[0], j)
	}
	for ; j < len(acc); j++ {
		acc[j] += float64(x[j])
	}
}

// AccRows adds x, read as rows of len(acc), column-wise into acc:
// acc[j] += sum over rows r of x[r*len(acc)+j], in float64.
func AccRows(acc []float64, x []float32) {
	c := len(acc)
	if c == 0 {
		return
	}
	for off := 0; off+c <= len(x); off += c {
		AccRow(acc, x[off:off+c])
	}
}

// AccRowsSq adds x and x² column-wise over rows of len(sum):
// sum[j] += x[r,j], sq[j] += x[r,j]², in float64.
func AccRowsSq(sum, sq []float64, x []float32) {
	c := len(sum)
	if c == 0 {
		return
	}
	sq = sq[:c]
	n8 := 0
	if useAsm {
		n8 = c &^ 7
	}
	for off := 0; off+c <= len(x); off += c {
		row := x[off : off+c]
		if n8 > 0 {
			accRowsSqAsm(&sum[0], &sq[0], &row[0], n8)
		}
		for j := n8; j < c; j++ {
			f := float64(row[j])
			sum[j] += f
			sq[j] += f * f
		}
	}
}

// AccCentered accumulates, column-wise over rows of len(acc0),
// acc0[j] += dy[r,j] and acc1[j] += dy[r,j]*(x[r,j]-mean[j]), in float64
// (the difference is taken in float32).
func AccCentered(acc0, acc1 []float64, x, dy, mean []float32) {
	c := len(acc0)
	if c == 0 {
		return
	}
	acc1, mean = acc1[:c], mean[:c]
	n8 := 0
	if useAsm {
		n8 = c &^ 7
	}
	for off := 0; off+c <= len(x) && off+c <= len(dy); off += c {
		xr, gr := x[off:off+c], dy[off:off+c]
		if n8 > 0 {
			accCenteredAsm(&acc0[0], &acc1[0], &xr[0], &gr[0], &mean[0], n8)
		}
		for j := n8; j < c; j++ {
			g := float64(gr[j])
			acc0[j] += g
			acc1[j] += g * float64(xr[j]-mean[j])
		}
	}
}

// SetArg starts a running maximum with its argument: ov = x and
// am[j] = base + j. The indices must fit in an int32.
func SetArg(ov []float32, am []int32, x []float32, base int) {
	x, am = x[:len(ov)], am[:len(ov)]
	j := 0
	if usePoolAsm && len(ov) >= 16 {
		j = len(ov) &^ 15
		setArgPixelsAsm(&ov[0], &am[0], &x[0], base, j, 1, 0) // one pixel of j values
	}
	for ; j < len(ov); j++ {
		ov[j] = x[j]
		am[j] = int32(base + j)
	}
}

// MaxArg updates a running maximum: where x[j] > ov[j], ov[j] = x[j] and
// am[j] = base + j (ties keep the earlier argument).
func MaxArg(ov []float32, am []int32, x []float32, base int) {
	x, am = x[:len(ov)], am[:len(ov)]
	j := 0
	if usePoolAsm && len(ov) >= 16 {
		j = len(ov) &^ 15
		maxArgPixelsAsm(&ov[0], &am[0], &x[0], base, j, 1, 0)
	}
	for ; j < len(ov); j++ {
		if x[j] > ov[j] {
			ov[j] = x[j]
			am[j] = int32(base + j)
		}
	}
}

// Adam applies one Adam step to the weights w with gradient g and slots m
// (first moment) and v (second moment), elementwise in float32:
//
//	m += (g - m) * c1
//	v += (g*g - v) * c2
//	w -= m * alpha / (sqrt(v) + eps)
//
// with each operation rounded separately (no fused multiply-add), so the
// result is bitwise that of the scalar loop written the same way (as
// keras/optimizers' adamUpdate, built without FMA: GOAMD64 < v3).
func Adam(w, g, m, v []float32, alpha, c1, c2, eps float32) {
	g, m, v = g[:len(w)], m[:len(w)], v[:len(w)]
	j := 0
	if useAdamAsm && len(w) >= 16 {
		j = len(w) &^ 15
		adamAsm(&w[0], &g[0], &m[0], &v[0], j, alpha, c1, c2, eps)
	}
	for ; j < len(w); j++ {
		x := g[j]
		m[j] += (x - m[j]) * c1
		v[j] += (x*x - v[j]) * c2
		w[j] -= m[j] * alpha / (float32(math.Sqrt(float64(v[j]))) + eps)
	}
}

// Transpose writes the r x c row-major matrix src transposed into dst
// (c x r): dst[j*r+i] = src[i*c+j], for rows [i0, i1) of src (so callers
// can split the work). 8x8 blocks go through registers.
func Transpose(dst, src []float32, r, c, i0, i1 int) {
	_ = src[r*c-1]
	dst = dst[:r*c] // (a bounds check that reads no element: other callers write dst's other rows)
	i := i0
	if useTransposeAsm {
		for ; i+8 <= i1; i += 8 {
			j := 0
			for ; j+8 <= c; j += 8 {
				transpose8x8Asm(&dst[j*r+i], r, &src[i*c+j], c)
			}
			for ii := i; ii < i+8; ii++ {
				for jj := j; jj < c; jj++ {
					dst[jj*r+ii] = src[ii*c+jj]
				}
			}
		}
	}
	const blk = 32
	for ; i < i1; i += blk {
		ie := min(i+blk, i1)
		for j0 := 0; j0 < c; j0 += blk {
			je := min(j0+blk, c)
			for ii := i; ii < ie; ii++ {
				row := src[ii*c+j0 : ii*c+je]
				for jj, v := range row {
					dst[(j0+jj)*r+ii] = v
				}
			}
		}
	}
}
