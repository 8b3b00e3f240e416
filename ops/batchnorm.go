package ops

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/internal/vec"
)

// Fused batch normalization over the last axis (C channels), as layers
// build it in training:
//
//	shift   := BatchNormShift(x)                    // (C+1,): first row, 1
//	shift    = AllReduceSum(shift)                  // synchronized mode only
//	sums    := BatchNormShiftedSums(x, shift)       // (2C+1,): Σ(x-K), Σ(x-K)², count
//	sums     = AllReduceSum(sums)                   // synchronized mode only
//	moments := BatchNormShiftedMoments(sums, shift) // (2C+1,): mean, variance, count
//	y       := BatchNormApply(x, moments, gamma, beta, attrs)
//
// Each pass over x is one op: the statistics in one pass (float64 sums,
// shifted by a sample of the batch so that E[(x-K)²]-E[x-K]² does not
// cancel when the mean is large against the spread),
// the normalisation in another. The backward pass is the standard batch
// norm gradient in two passes over (x, dy), not the symbolic gradient of
// the statistics: BatchNormApply's gradient with respect to x includes the
// terms through the batch mean and variance, so moments is not
// differentiated. In synchronized mode the two per-channel sums of the
// backward pass are all-reduced between the passes, as the statistics are
// in the forward pass, so N replicas compute what one does on the whole
// batch.

// BatchNormAttrs are the settings of [BatchNormApply].
type BatchNormAttrs struct {
	Epsilon float32
	// Training: moments are the batch's own statistics (the gradient
	// flows through them); otherwise they are constants (moving
	// statistics, packed with [BatchNormPack]).
	Training bool
	// Synchronized: moments were all-reduced across replicas, and so are
	// the backward pass's sums.
	Synchronized bool
	// Relu applies max(y, 0) in the same pass (set by [Relu] when its
	// input is a BatchNormApply).
	Relu bool
}

// bnApplyAttrs are the attributes of a BatchNormApply op: the settings and
// which of gamma and beta are inputs (after x and moments, in that order).
type bnApplyAttrs struct {
	BatchNormAttrs
	Gamma, Beta bool
}

func channelsOf(op string, x Tensor) int {
	s := x.Shape()
	if len(s) < 1 || s[len(s)-1] < 1 {
		fail(op, "needs an input with a channel axis, got shape %v", s)
	}
	return s[len(s)-1]
}

// BatchNormShift returns a per-channel shift for [BatchNormShiftedSums],
// packed (C+1,): x's first row and 1, or zeros and 0 when x has no rows.
// In synchronized mode it is all-reduced with [AllReduceSum] like the sums,
// so every replica shifts by the same values (the average of the replicas'
// first rows).
func BatchNormShift(x Tensor) Tensor {
	tr := sameTrace("BatchNormShift", x)
	c := channelsOf("BatchNormShift", x)
	rows := x.Shape().Size() / c
	return tr.apply(&Op{
		name: "BatchNormShift", out: Shape{c + 1}, attrs: fmt.Sprint(x.Shape()),
		fwd: func(o []float32, in [][]float32) {
			if rows == 0 {
				clear(o)
				return
			}
			copy(o[:c], in[0][:c])
			o[c] = 1
		},
		wrt: []bool{false},
	}, x)
}

// bnShiftOf returns the shift of packed shift values sh ((C+1,), see
// [BatchNormShift]) into k: their sum of first rows over their count, or 0.
func bnShiftOf(k []float32, sh []float32) {
	c := len(k)
	n := sh[c]
	for j := range k {
		k[j] = 0
		if n > 0 {
			k[j] = float32(float64(sh[j]) / float64(n))
		}
	}
}

func checkShift(op string, shift Tensor, c int) {
	if shift.IsNone() {
		return
	}
	if s := shift.Shape(); len(s) != 1 || s[0] != c+1 {
		fail(op, "shift of shape %v for %d channels (want (%d,))", s, c, c+1)
	}
}

// BatchNormSums returns the per-channel sum and sum of squares of x over
// every axis but the last, and the number of elements summed per channel,
// packed as (2C+1,): [BatchNormShiftedSums] without a shift.
func BatchNormSums(x Tensor) Tensor { return BatchNormShiftedSums(x, Tensor{}) }

// BatchNormShiftedSums returns, per channel, the sum and the sum of squares
// of x-K over every axis but the last, K the shift (see [BatchNormShift];
// none is 0), and the number of elements summed per channel, packed as
// (2C+1,). Σx and Σx² accumulate in float64 (in a fixed number of partial
// sums, so the result does not depend on the number of CPUs), are shifted
// in float64 and rounded to float32 once. With K near the mean the variance
// E[(x-K)²]-E[x-K]² taken from them keeps float32 precision however
// large the mean is against the spread; without a shift it loses
// (mean/std)² times that.
func BatchNormShiftedSums(x, shift Tensor) Tensor {
	ins := []Tensor{x}
	if !shift.IsNone() {
		ins = append(ins, shift)
	}
	tr := sameTrace("BatchNormSums", ins...)
	c := channelsOf("BatchNormSums", x)
	checkShift("BatchNormSums", shift, c)
	shifted := !shift.IsNone()
	rows := x.Shape().Size() / c
	parts := make([][2][]float64, sumParts)
	for i := range parts {
		parts[i] = [2][]float64{make([]float64, c), make([]float64, c)}
	}
	per := (rows + sumParts - 1) / sumParts
	k := make([]float32, c)
	return tr.apply(&Op{
		name: "BatchNormSums", out: Shape{2*c + 1}, attrs: fmt.Sprintf("%v shifted=%v", x.Shape(), shifted),
		fwd: func(o []float32, in [][]float32) {
			src := in[0][:rows*c]
			if shifted {
				bnShiftOf(k, in[1])
			}
			run := func(lo, hi int) {
				for p := lo; p < hi; p++ {
					s, q := parts[p][0], parts[p][1]
					clear(s)
					clear(q)
					r0, r1 := min(p*per, rows), min((p+1)*per, rows)
					vec.AccRowsSq(s, q, src[r0*c:r1*c])
				}
			}
			if rows*c >= parMinElems {
				parallelChunks(sumParts, 1, run)
			} else {
				run(0, sumParts)
			}
			n := float64(rows)
			for j := 0; j < c; j++ {
				var s, q float64
				for _, p := range parts {
					s += p[0][j]
					q += p[1][j]
				}
				// Σ(x-K) and Σ(x-K)² from Σx and Σx², in float64:
				// the cancellation costs (mean/std)² float64
				// roundings, far below one float32 rounding.
				kj := float64(k[j])
				o[j], o[c+j] = float32(s-n*kj), float32(q-2*kj*s+n*kj*kj)
			}
			o[2*c] = float32(rows)
		},
		wrt: make([]bool, len(ins)),
	}, ins...)
}

// BatchNormMoments turns packed sums (2C+1,) into packed moments: the mean,
// the biased variance E[x²]-E[x]² floored at 0, and the count.
func BatchNormMoments(sums Tensor) Tensor { return BatchNormShiftedMoments(sums, Tensor{}) }

// BatchNormShiftedMoments turns packed sums of x-K (2C+1,), from
// [BatchNormShiftedSums] with the same shift, into packed moments: the mean
// K+E[x-K], the biased variance E[(x-K)²]-E[x-K]² floored at 0, and the
// count. A none shift is 0.
func BatchNormShiftedMoments(sums, shift Tensor) Tensor {
	ins := []Tensor{sums}
	if !shift.IsNone() {
		ins = append(ins, shift)
	}
	tr := sameTrace("BatchNormMoments", ins...)
	s := sums.Shape()
	if len(s) != 1 || s[0] < 3 || s[0]%2 != 1 {
		fail("BatchNormMoments", "sums must have shape (2C+1,), got %v", s)
	}
	c := s[0] / 2
	checkShift("BatchNormMoments", shift, c)
	shifted := !shift.IsNone()
	k := make([]float32, c)
	return tr.apply(&Op{
		name: "BatchNormMoments", out: s.Clone(), attrs: fmt.Sprintf("shifted=%v", shifted),
		fwd: func(o []float32, in [][]float32) {
			sm := in[0]
			if shifted {
				bnShiftOf(k, in[1])
			}
			n := float64(sm[2*c])
			for j := 0; j < c; j++ {
				var mean, v float64
				if n > 0 {
					d := float64(sm[j]) / n
					mean = float64(k[j]) + d
					v = max(float64(sm[c+j])/n-d*d, 0)
				}
				o[j], o[c+j] = float32(mean), float32(v)
			}
			o[2*c] = sm[2*c]
		},
		wrt: make([]bool, len(ins)),
	}, ins...)
}

// BatchNormPack packs constant statistics (the moving mean and variance,
// shape (C,)) as the moments of [BatchNormApply] in inference.
func BatchNormPack(mean, variance Tensor) Tensor {
	tr := sameTrace("BatchNormPack", mean, variance)
	ms, vs := mean.Shape(), variance.Shape()
	if len(ms) != 1 || !ms.Equal(vs) {
		fail("BatchNormPack", "mean %v and variance %v must be vectors of one shape", ms, vs)
	}
	c := ms[0]
	return tr.apply(&Op{
		name: "BatchNormPack", out: Shape{2*c + 1}, attrs: binaryAttrs{},
		fwd: func(o []float32, in [][]float32) {
			copy(o[:c], in[0])
			copy(o[c:2*c], in[1])
			o[2*c] = 0
		},
		wrt: []bool{false, false},
	}, mean, variance)
}

// bnCoeffs computes, per channel, rstd = 1/sqrt(var+eps) and the scale
// s = gamma*rstd and shift t = beta - mean*s of y = x*s + t (in float64,
// rounded once).
func bnCoeffs(mom, gamma, beta []float32, c int, eps float32, rstd, s, t []float32) {
	for j := 0; j < c; j++ {
		r := 1 / math.Sqrt(float64(mom[c+j])+float64(eps))
		g := 1.0
		if gamma != nil {
			g = float64(gamma[j])
		}
		b := 0.0
		if beta != nil {
			b = float64(beta[j])
		}
		rstd[j] = float32(r)
		s[j] = float32(g * r)
		t[j] = float32(b - float64(mom[j])*g*r)
	}
}

// BatchNormApply returns (x - mean) * gamma / sqrt(variance + eps) + beta
// per channel (the last axis), with mean and variance from moments (see
// [BatchNormMoments], [BatchNormPack]). gamma and beta may be none (1 and
// 0). Its gradient is the batch norm gradient in two passes; moments get
// none.
func BatchNormApply(x, moments, gamma, beta Tensor, attrs BatchNormAttrs) Tensor {
	return batchNormApply(x, moments, gamma, beta, attrs, false)
}

// batchNormApply is BatchNormApply, its output rounded to bfloat16 as it
// is computed when round (cast_fused.go).
func batchNormApply(x, moments, gamma, beta Tensor, attrs BatchNormAttrs, round bool) Tensor {
	ins := []Tensor{x, moments}
	hasGamma, hasBeta := !gamma.IsNone(), !beta.IsNone()
	if hasGamma {
		ins = append(ins, gamma)
	}
	if hasBeta {
		ins = append(ins, beta)
	}
	tr := sameTrace("BatchNormApply", ins...)
	c := channelsOf("BatchNormApply", x)
	if ms := moments.Shape(); len(ms) != 1 || ms[0] != 2*c+1 {
		fail("BatchNormApply", "moments of shape %v for %d channels (want (%d,))", ms, c, 2*c+1)
	}
	for _, p := range []Tensor{gamma, beta} {
		if !p.IsNone() && !p.Shape().Equal(Shape{c}) {
			fail("BatchNormApply", "gamma/beta of shape %v for %d channels", p.Shape(), c)
		}
	}
	xs := x.Shape()
	rows := xs.Size() / c
	rstd, s, t := make([]float32, c), make([]float32, c), make([]float32, c)
	wrt := []bool{true, false}
	for range ins[2:] {
		wrt = append(wrt, true)
	}
	op := &Op{
		name: "BatchNormApply", out: xs.Clone(), attrs: bnApplyAttrs{attrs, hasGamma, hasBeta},
		fwd: func(o []float32, in [][]float32) {
			var g, b []float32
			k := 2
			if hasGamma {
				g, k = in[k], k+1
			}
			if hasBeta {
				b = in[k]
			}
			bnCoeffs(in[1], g, b, c, attrs.Epsilon, rstd, s, t)
			src := in[0][:rows*c]
			parallelRows(rows, c, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					dst, xr := o[r*c:(r+1)*c], src[r*c:(r+1)*c]
					switch {
					case attrs.Relu && round:
						vec.ScaleShiftReluRoundBF16(dst, xr, s, t)
					case attrs.Relu:
						vec.ScaleShiftRelu(dst, xr, s, t)
					case round:
						vec.ScaleShiftRoundBF16(dst, xr, s, t)
					default:
						vec.ScaleShift(dst, xr, s, t)
					}
				}
			})
		},
		wrt:  wrt,
		bf16: round,
		grad: func(in []Tensor, y, dy Tensor) []Tensor {
			x, mom := in[0], in[1]
			dy = castDyIf(round, dy)
			var g Tensor
			if hasGamma {
				g = in[2]
			}
			// With a fused ReLU the incoming gradient is masked by y > 0
			// inside the two passes.
			mask := Tensor{}
			if attrs.Relu {
				mask = y
			}
			local := bnGradSums(x, dy, mom, mask)
			global := local
			if attrs.Synchronized && attrs.Training {
				global = AllReduceSum(local)
			}
			out := []Tensor{bnGradInput(x, dy, mom, g, global, mask, attrs, false), {}}
			if hasGamma {
				out = append(out, bnParamGrad(local, mom, attrs.Epsilon, true))
			}
			if hasBeta {
				out = append(out, bnParamGrad(local, mom, attrs.Epsilon, false))
			}
			return out
		},
	}
	if !round {
		op.roundedBF16 = func(in []Tensor) Tensor {
			gamma, beta := optionalInputs(in, 2, hasGamma, hasBeta)
			return batchNormApply(in[0], in[1], gamma, beta, attrs, true)
		}
	}
	return tr.apply(op, ins...)
}

// bnGradSums returns the local per-channel sums of the backward pass,
// packed (2C,): Σdy and Σdy*(x-mean), in float64 (fixed partial sums).
// With mask (the output of a fused ReLU) dy counts only where mask > 0.
func bnGradSums(x, dy, moments, mask Tensor) Tensor {
	ins := []Tensor{x, dy, moments}
	if !mask.IsNone() {
		ins = append(ins, mask)
	}
	tr := sameTrace("BatchNormGradSums", ins...)
	c := channelsOf("BatchNormGradSums", x)
	rows := x.Shape().Size() / c
	parts := make([][2][]float64, sumParts)
	for i := range parts {
		parts[i] = [2][]float64{make([]float64, c), make([]float64, c)}
	}
	per := (rows + sumParts - 1) / sumParts
	masked := !mask.IsNone()
	return tr.apply(&Op{
		name: "BatchNormGradSums", out: Shape{2 * c}, attrs: fmt.Sprintf("%v masked=%v", x.Shape(), masked),
		fwd: func(o []float32, in [][]float32) {
			xv, g, mean := in[0][:rows*c], in[1][:rows*c], in[2][:c]
			var m []float32
			if masked {
				m = in[3][:rows*c]
			}
			run := func(lo, hi int) {
				var row []float32
				if masked {
					row = make([]float32, c)
				}
				for p := lo; p < hi; p++ {
					a0, a1 := parts[p][0], parts[p][1]
					clear(a0)
					clear(a1)
					r0, r1 := min(p*per, rows), min((p+1)*per, rows)
					if !masked {
						vec.AccCentered(a0, a1, xv[r0*c:r1*c], g[r0*c:r1*c], mean)
						continue
					}
					for r := r0; r < r1; r++ {
						vec.ReluGrad(row, m[r*c:(r+1)*c], g[r*c:(r+1)*c])
						vec.AccCentered(a0, a1, xv[r*c:(r+1)*c], row, mean)
					}
				}
			}
			if rows*c >= parMinElems {
				parallelChunks(sumParts, 1, run)
			} else {
				run(0, sumParts)
			}
			for j := 0; j < c; j++ {
				var s0, s1 float64
				for _, p := range parts {
					s0 += p[0][j]
					s1 += p[1][j]
				}
				o[j], o[c+j] = float32(s0), float32(s1)
			}
		},
		wrt: make([]bool, len(ins)),
	}, ins...)
}

// bnGradInput returns dL/dx of batch norm from the (global) backward sums:
//
//	dx = gamma*rstd * (dy - Σdy/N - (x-mean)*rstd² * Σdy(x-mean)/N)
//
// in training, or gamma*rstd*dy with constant statistics; computed as
// dy*P + x*Q + R per channel in one pass, rounded to bfloat16 as it is
// computed when round (cast_fused.go).
func bnGradInput(x, dy, moments, gamma, sums, mask Tensor, attrs BatchNormAttrs, round bool) Tensor {
	ins := []Tensor{x, dy, moments, sums}
	hasGamma, masked := !gamma.IsNone(), !mask.IsNone()
	if hasGamma {
		ins = append(ins, gamma)
	}
	if masked {
		ins = append(ins, mask)
	}
	tr := sameTrace("BatchNormGradInput", ins...)
	c := channelsOf("BatchNormGradInput", x)
	xs := x.Shape()
	rows := xs.Size() / c
	P, Q, R := make([]float32, c), make([]float32, c), make([]float32, c)
	op := &Op{
		name: "BatchNormGradInput", out: xs.Clone(), attrs: fmt.Sprintf("%+v masked=%v gamma=%v", attrs, masked, hasGamma),
		fwd: func(o []float32, in [][]float32) {
			xv, g, mom, sm := in[0][:rows*c], in[1][:rows*c], in[2], in[3]
			k := 4
			var gm, m []float32
			if hasGamma {
				gm, k = in[k], k+1
			}
			if masked {
				m = in[k][:rows*c]
			}
			n := float64(mom[2*c])
			for j := 0; j < c; j++ {
				r := 1 / math.Sqrt(float64(mom[c+j])+float64(attrs.Epsilon))
				gj := 1.0
				if hasGamma {
					gj = float64(gm[j])
				}
				p := gj * r
				var q, rr float64
				if attrs.Training && n > 0 {
					q = -p * r * r * float64(sm[c+j]) / n
					rr = -p*float64(sm[j])/n - q*float64(mom[j])
				}
				P[j], Q[j], R[j] = float32(p), float32(q), float32(rr)
			}
			parallelRows(rows, c, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					dst, dyr := o[r*c:(r+1)*c], g[r*c:(r+1)*c]
					if masked {
						vec.ReluGrad(dst, m[r*c:(r+1)*c], dyr)
						dyr = dst
					}
					if round {
						vec.DualAffineRoundBF16(dst, dyr, P, xv[r*c:(r+1)*c], Q, R)
					} else {
						vec.DualAffine(dst, dyr, P, xv[r*c:(r+1)*c], Q, R)
					}
				}
			})
		},
		wrt:  make([]bool, len(ins)),
		bf16: round,
	}
	if !round {
		op.roundedBF16 = func(in []Tensor) Tensor {
			gamma, mask := optionalInputs(in, 4, hasGamma, masked)
			return bnGradInput(in[0], in[1], in[2], gamma, in[3], mask, attrs, true)
		}
	}
	return tr.apply(op, ins...)
}

// bnParamGrad returns the gradient of gamma (Σdy*xhat = rstd*Σdy(x-mean))
// or of beta (Σdy) from the local backward sums.
func bnParamGrad(sums, moments Tensor, eps float32, gamma bool) Tensor {
	tr := sameTrace("BatchNormParamGrad", sums, moments)
	c := sums.Shape()[0] / 2
	return tr.apply(&Op{
		name: "BatchNormParamGrad", out: Shape{c}, attrs: fmt.Sprintf("gamma=%v eps=%v", gamma, eps),
		fwd: func(o []float32, in [][]float32) {
			sm, mom := in[0], in[1]
			for j := 0; j < c; j++ {
				if gamma {
					o[j] = float32(float64(sm[c+j]) / math.Sqrt(float64(mom[c+j])+float64(eps)))
				} else {
					o[j] = sm[j]
				}
			}
		},
		wrt: []bool{false, false},
	}, sums, moments)
}

// optionalInputs returns an op's two optional inputs, which follow its
// first k in order when present (None where absent): a batch
// normalization's gamma and beta, or gamma and mask.
func optionalInputs(in []Tensor, k int, hasA, hasB bool) (a, b Tensor) {
	if hasA {
		a, k = in[k], k+1
	}
	if hasB {
		b = in[k]
	}
	return a, b
}
