package ops

import (
	"math"
)

// LSTMSequenceAttrs are the attributes of the LSTMSequence op and its
// gradient: batch, timesteps and units.
type LSTMSequenceAttrs struct {
	Batch, Steps, Units int
}

// LSTMPacked is the width per (batch, timestep) of LSTMSequence's output,
// in units: the activated gates i, f, g, o, then c, h and tanh(c).
const LSTMPacked = 7

// LSTMSequence runs Keras' LSTM time loop (gates i, f, c, o in that
// order; sigmoid gates, tanh cell) in one op with a hand-written
// backward pass (backpropagation through time):
//
//	z_t = xp[:, t] + h_{t-1}·rk
//	i, f, o = σ(z_i), σ(z_f), σ(z_o); g = tanh(z_g)
//	c_t = f*c_{t-1} + i*g; h_t = o*tanh(c_t)
//
// where a timestep of row b whose mask is 0 keeps h and c unchanged.
// xp (batch, steps, 4*units) is the input product with the bias (one GEMM
// before the loop), rk (units, 4*units) the recurrent kernel, h0 and c0
// (batch, units) the initial states, mask (batch, steps) of 0 and 1 (all
// ones: no mask). The output (batch, steps, 7*units) packs, per step, the
// activated gates, c_t, h_t and tanh(c_t) ([LSTMPacked]); a caller slices
// h (and c) out of it. Each step is one GEMM; the gradient of rk is one GEMM over
// all steps.
func LSTMSequence(xp, rk, h0, c0, mask Tensor) Tensor {
	tr := sameTrace("LSTMSequence", xp, rk, h0, c0, mask)
	xs := xp.Shape()
	if len(xs) != 3 || xs[2]%4 != 0 || xs[2] == 0 {
		fail("LSTMSequence", "xp must be (batch, steps, 4*units), got %v", xs)
	}
	b, t, u := xs[0], xs[1], xs[2]/4
	for _, c := range []struct {
		name string
		got  Shape
		want Shape
	}{{"rk", rk.Shape(), Shape{u, 4 * u}}, {"h0", h0.Shape(), Shape{b, u}}, {"c0", c0.Shape(), Shape{b, u}}, {"mask", mask.Shape(), Shape{b, t}}} {
		if !c.got.Equal(c.want) {
			fail("LSTMSequence", "%s has shape %v, want %v (xp %v)", c.name, c.got, c.want, xs)
		}
	}
	a := LSTMSequenceAttrs{Batch: b, Steps: t, Units: u}
	return tr.apply(&Op{
		name: "LSTMSequence", out: Shape{b, t, LSTMPacked * u}, attrs: a,
		fwd: func(o []float32, in [][]float32) { lstmForward(a, o, in[0], in[1], in[2], in[3], in[4]) },
		wrt: []bool{true, true, true, true, false},
		grad: func(in []Tensor, y, dy Tensor) []Tensor {
			g := lstmSequenceGrad(a, y, dy, in[1], in[2], in[3], in[4])
			n0 := b * t * 4 * u
			n1 := n0 + u*4*u
			n2 := n1 + b*u
			return []Tensor{
				Reshape(Slice(g, []int{0}, []int{n0}), Shape{b, t, 4 * u}),
				Reshape(Slice(g, []int{n0}, []int{u * 4 * u}), Shape{u, 4 * u}),
				Reshape(Slice(g, []int{n1}, []int{b * u}), Shape{b, u}),
				Reshape(Slice(g, []int{n2}, []int{b * u}), Shape{b, u}),
				{},
			}
		},
	}, xp, rk, h0, c0, mask)
}

func sigm(x float32) float32 { return float32(1 / (1 + math.Exp(-float64(x)))) }

// tanh32 is math.Tanh in float32 (its rational approximation for
// |x| < 0.625, where the gates mostly are, beats exp-based forms).
func tanh32(x float32) float32 { return float32(math.Tanh(float64(x))) }

// lstmForward is LSTMSequence's kernel.
func lstmForward(a LSTMSequenceAttrs, out, xp, rk, h0, c0, mask []float32) {
	b, t, u := a.Batch, a.Steps, a.Units
	g4, g6 := 4*u, LSTMPacked*u
	z := make([]float32, b*g4)
	for s := 0; s < t; s++ {
		for r := 0; r < b; r++ {
			copy(z[r*g4:(r+1)*g4], xp[(r*t+s)*g4:(r*t+s+1)*g4])
		}
		if s == 0 {
			sgemm(false, false, b, g4, u, 1, h0, u, rk, g4, 1, z, g4)
		} else {
			sgemm(false, false, b, g4, u, 1, out[(s-1)*g6+5*u:], t*g6, rk, g4, 1, z, g4)
		}
		parallelRows(b, g6, func(lo, hi int) { lstmForwardRows(a, s, lo, hi, out, z, h0, c0, mask) })
	}
}

// lstmForwardRows is step s of the forward pass for rows [lo, hi), given
// the gates' pre-activations z.
func lstmForwardRows(a LSTMSequenceAttrs, s, lo, hi int, out, z, h0, c0, mask []float32) {
	t, u := a.Steps, a.Units
	g4, g6 := 4*u, LSTMPacked*u
	for r := lo; r < hi; r++ {
		zr := z[r*g4 : (r+1)*g4]
		row := out[(r*t+s)*g6 : (r*t+s+1)*g6]
		var hp, cp []float32
		if s == 0 {
			hp, cp = h0[r*u:(r+1)*u], c0[r*u:(r+1)*u]
		} else {
			prev := out[(r*t+s-1)*g6 : (r*t+s)*g6]
			hp, cp = prev[5*u:6*u], prev[4*u:5*u]
		}
		keep := mask[r*t+s] == 0
		for j := 0; j < u; j++ {
			i := sigm(zr[j])
			f := sigm(zr[u+j])
			g := tanh32(zr[2*u+j])
			o := sigm(zr[3*u+j])
			row[j], row[u+j], row[2*u+j], row[3*u+j] = i, f, g, o
			if keep {
				row[4*u+j], row[5*u+j] = cp[j], hp[j]
				continue
			}
			c := f*cp[j] + i*g
			row[4*u+j] = c
			row[5*u+j] = o * tanh32(c)
		}
	}
}

// lstmSequenceGrad packs the gradients of xp, rk, h0 and c0, flat, in
// that order, given the forward output y and its gradient dy (of h and c
// at every step; the parts of dy for the gates and tanh(c) are ignored:
// they are not results).
func lstmSequenceGrad(a LSTMSequenceAttrs, y, dy, rk, h0, c0, mask Tensor) Tensor {
	b, t, u := a.Batch, a.Steps, a.Units
	n := b*t*4*u + u*4*u + 2*b*u
	return ApplyOp("LSTMSequenceGrad", a, Shape{n}, func(o []float32, in [][]float32) {
		lstmBackward(a, o, in[0], in[1], in[2], in[3], in[4], in[5])
	}, nil, y, dy, rk, h0, c0, mask)
}

// lstmBackward is LSTMSequenceGrad's kernel.
func lstmBackward(a LSTMSequenceAttrs, o, y, dy, rk, h0, c0, mask []float32) {
	b, t, u := a.Batch, a.Steps, a.Units
	g4, g6 := 4*u, LSTMPacked*u
	dxp := o[:b*t*g4]
	drk := o[b*t*g4 : b*t*g4+u*g4]
	dh0 := o[b*t*g4+u*g4 : b*t*g4+u*g4+b*u]
	dc0 := o[b*t*g4+u*g4+b*u:]
	dh := make([]float32, b*u) // gradient flowing into h_s from later steps
	dc := make([]float32, b*u)
	rec := make([]float32, b*u)
	for s := t - 1; s >= 0; s-- {
		// dz_s into dxp[:, s]; dh, dc become those of step s-1.
		parallelRows(b, g6, func(lo, hi int) { lstmBackwardRows(a, s, lo, hi, dxp, dh, dc, y, dy, c0, mask) })
		// dh_{s-1} += dz_s · rkᵀ
		sgemm(false, true, b, u, g4, 1, dxp[s*g4:], t*g4, rk, g4, 0, rec, u)
		for k := range dh {
			dh[k] += rec[k]
		}
	}
	copy(dh0, dh)
	copy(dc0, dc)
	// drk = Σ_s h_{s-1}ᵀ dz_s, one GEMM over every (row, step).
	hp := make([]float32, b*t*u)
	for r := 0; r < b; r++ {
		copy(hp[r*t*u:r*t*u+u], h0[r*u:(r+1)*u])
		for s := 1; s < t; s++ {
			copy(hp[(r*t+s)*u:(r*t+s+1)*u], y[(r*t+s-1)*g6+5*u:(r*t+s-1)*g6+6*u])
		}
	}
	sgemm(true, false, u, g4, b*t, 1, hp, u, dxp, g4, 0, drk, g4)
}

// lstmBackwardRows is step s of the backward pass for rows [lo, hi): it
// writes dz_s and turns dh, dc into the gradients reaching step s-1 other
// than through the recurrent product.
func lstmBackwardRows(a LSTMSequenceAttrs, s, lo, hi int, dxp, dh, dc, y, dy, c0, mask []float32) {
	t, u := a.Steps, a.Units
	g4, g6 := 4*u, LSTMPacked*u
	for r := lo; r < hi; r++ {
		row := y[(r*t+s)*g6 : (r*t+s+1)*g6]
		drow := dy[(r*t+s)*g6 : (r*t+s+1)*g6]
		dz := dxp[(r*t+s)*g4 : (r*t+s+1)*g4]
		var cp []float32
		if s == 0 {
			cp = c0[r*u : (r+1)*u]
		} else {
			cp = y[(r*t+s-1)*g6+4*u : (r*t+s-1)*g6+5*u]
		}
		dhr, dcr := dh[r*u:(r+1)*u], dc[r*u:(r+1)*u]
		keep := mask[r*t+s] == 0
		for j := 0; j < u; j++ {
			dhj := dhr[j] + drow[5*u+j]
			dcj := dcr[j] + drow[4*u+j]
			if keep {
				dz[j], dz[u+j], dz[2*u+j], dz[3*u+j] = 0, 0, 0, 0
				dhr[j], dcr[j] = dhj, dcj
				continue
			}
			i, f, g, og := row[j], row[u+j], row[2*u+j], row[3*u+j]
			tc := tanh32(row[4*u+j])
			dcj += dhj * og * (1 - tc*tc)
			dz[j] = dcj * g * i * (1 - i)
			dz[u+j] = dcj * cp[j] * f * (1 - f)
			dz[2*u+j] = dcj * i * (1 - g*g)
			dz[3*u+j] = dhj * tc * og * (1 - og)
			dhr[j] = 0 // h_{s-1} reaches h_s only through z: added by the caller
			dcr[j] = dcj * f
		}
	}
}
