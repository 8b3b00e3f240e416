package ops

// GRUPacked is the width per (batch, timestep) of GRUSequence's output, in
// units: the gates z and r, the candidate ĥ, the recurrent product's h
// part (with its bias), then h.
const GRUPacked = 5

// GRUSequence runs Keras' GRU time loop with reset_after (gates z, r, h
// in that order; sigmoid gates, tanh candidate) in one op with a
// hand-written backward pass:
//
//	m = h_{t-1}·rk + rb
//	z = σ(xp_z + m_z), r = σ(xp_r + m_r)
//	ĥ = tanh(xp_h + r*m_h); h_t = z*h_{t-1} + (1-z)*ĥ
//
// where a timestep of row b whose mask is 0 keeps h unchanged. xp
// (batch, steps, 3*units) is the input product with the input bias (one
// GEMM before the loop), rk (units, 3*units) the recurrent kernel, rb
// (3*units) the recurrent bias, h0 (batch, units) the initial state, mask
// (batch, steps) of 0 and 1. The output (batch, steps, 5*units) packs, per
// step, z, r, ĥ, m_h and h_t ([GRUPacked]); a caller slices h out of it.
func GRUSequence(xp, rk, rb, h0, mask Tensor) Tensor {
	tr := sameTrace("GRUSequence", xp, rk, rb, h0, mask)
	xs := xp.Shape()
	if len(xs) != 3 || xs[2]%3 != 0 || xs[2] == 0 {
		fail("GRUSequence", "xp must be (batch, steps, 3*units), got %v", xs)
	}
	b, t, u := xs[0], xs[1], xs[2]/3
	for _, c := range []struct {
		name      string
		got, want Shape
	}{{"rk", rk.Shape(), Shape{u, 3 * u}}, {"rb", rb.Shape(), Shape{3 * u}}, {"h0", h0.Shape(), Shape{b, u}}, {"mask", mask.Shape(), Shape{b, t}}} {
		if !c.got.Equal(c.want) {
			fail("GRUSequence", "%s has shape %v, want %v (xp %v)", c.name, c.got, c.want, xs)
		}
	}
	a := LSTMSequenceAttrs{Batch: b, Steps: t, Units: u}
	return tr.apply(&Op{
		name: "GRUSequence", out: Shape{b, t, GRUPacked * u}, attrs: a,
		fwd: func(o []float32, in [][]float32) { gruForward(a, o, in[0], in[1], in[2], in[3], in[4]) },
		wrt: []bool{true, true, true, true, false},
		grad: func(in []Tensor, y, dy Tensor) []Tensor {
			n := b*t*3*u + u*3*u + 3*u + b*u
			g := ApplyOp("GRUSequenceGrad", a, Shape{n}, func(o []float32, vals [][]float32) {
				gruBackward(a, o, vals[0], vals[1], vals[2], vals[3], vals[4])
			}, nil, y, dy, in[1], in[3], in[4])
			n0 := b * t * 3 * u
			n1 := n0 + u*3*u
			n2 := n1 + 3*u
			return []Tensor{
				Reshape(Slice(g, []int{0}, []int{n0}), Shape{b, t, 3 * u}),
				Reshape(Slice(g, []int{n0}, []int{u * 3 * u}), Shape{u, 3 * u}),
				Slice(g, []int{n1}, []int{3 * u}),
				Reshape(Slice(g, []int{n2}, []int{b * u}), Shape{b, u}),
				{},
			}
		},
	}, xp, rk, rb, h0, mask)
}

// gruForward is GRUSequence's kernel.
func gruForward(a LSTMSequenceAttrs, out, xp, rk, rb, h0, mask []float32) {
	b, t, u := a.Batch, a.Steps, a.Units
	g3, g5 := 3*u, GRUPacked*u
	m := make([]float32, b*g3)
	for s := 0; s < t; s++ {
		for r := 0; r < b; r++ {
			copy(m[r*g3:(r+1)*g3], rb)
		}
		if s == 0 {
			sgemm(false, false, b, g3, u, 1, h0, u, rk, g3, 1, m, g3)
		} else {
			sgemm(false, false, b, g3, u, 1, out[(s-1)*g5+4*u:], t*g5, rk, g3, 1, m, g3)
		}
		parallelRows(b, g5, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				mr := m[r*g3 : (r+1)*g3]
				xr := xp[(r*t+s)*g3 : (r*t+s+1)*g3]
				row := out[(r*t+s)*g5 : (r*t+s+1)*g5]
				var hp []float32
				if s == 0 {
					hp = h0[r*u : (r+1)*u]
				} else {
					hp = out[(r*t+s-1)*g5+4*u : (r*t+s-1)*g5+5*u]
				}
				keep := mask[r*t+s] == 0
				for j := 0; j < u; j++ {
					z := sigm(xr[j] + mr[j])
					rg := sigm(xr[u+j] + mr[u+j])
					hh := tanh32(xr[2*u+j] + rg*mr[2*u+j])
					row[j], row[u+j], row[2*u+j], row[3*u+j] = z, rg, hh, mr[2*u+j]
					if keep {
						row[4*u+j] = hp[j]
					} else {
						row[4*u+j] = z*hp[j] + (1-z)*hh
					}
				}
			}
		})
	}
}

// gruBackward is GRUSequenceGrad's kernel: the gradients of xp, rk, rb
// and h0, flat, in that order, from the forward output y and the
// gradient dy of its h part (the other parts of dy are ignored).
func gruBackward(a LSTMSequenceAttrs, o, y, dy, rk, h0, mask []float32) {
	b, t, u := a.Batch, a.Steps, a.Units
	g3, g5 := 3*u, GRUPacked*u
	dxp := o[:b*t*g3]
	drk := o[b*t*g3 : b*t*g3+u*g3]
	drb := o[b*t*g3+u*g3 : b*t*g3+u*g3+g3]
	dh0 := o[b*t*g3+u*g3+g3:]
	dm := make([]float32, b*t*g3) // gradient of m at every step
	dh := make([]float32, b*u)
	rec := make([]float32, b*u)
	for s := t - 1; s >= 0; s-- {
		parallelRows(b, g5, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				row := y[(r*t+s)*g5 : (r*t+s+1)*g5]
				dyh := dy[(r*t+s)*g5+4*u : (r*t+s)*g5+5*u]
				dx := dxp[(r*t+s)*g3 : (r*t+s+1)*g3]
				dmr := dm[(r*t+s)*g3 : (r*t+s+1)*g3]
				var hp []float32
				if s == 0 {
					hp = h0[r*u : (r+1)*u]
				} else {
					hp = y[(r*t+s-1)*g5+4*u : (r*t+s-1)*g5+5*u]
				}
				dhr := dh[r*u : (r+1)*u]
				keep := mask[r*t+s] == 0
				for j := 0; j < u; j++ {
					d := dhr[j] + dyh[j]
					if keep {
						dx[j], dx[u+j], dx[2*u+j] = 0, 0, 0
						dmr[j], dmr[u+j], dmr[2*u+j] = 0, 0, 0
						dhr[j] = d
						continue
					}
					z, rg, hh, mh := row[j], row[u+j], row[2*u+j], row[3*u+j]
					dpz := d * (hp[j] - hh) * z * (1 - z)
					dph := d * (1 - z) * (1 - hh*hh)
					dpr := dph * mh * rg * (1 - rg)
					dx[j], dx[u+j], dx[2*u+j] = dpz, dpr, dph
					dmr[j], dmr[u+j], dmr[2*u+j] = dpz, dpr, dph*rg
					dhr[j] = d * z // plus dm·rkᵀ, added below
				}
			}
		})
		sgemm(false, true, b, u, g3, 1, dm[s*g3:], t*g3, rk, g3, 0, rec, u)
		for k := range dh {
			dh[k] += rec[k]
		}
	}
	copy(dh0, dh)
	// drk = Σ h_{s-1}ᵀ dm_s and drb = Σ dm_s over every (row, step).
	hp := make([]float32, b*t*u)
	for r := 0; r < b; r++ {
		copy(hp[r*t*u:r*t*u+u], h0[r*u:(r+1)*u])
		for s := 1; s < t; s++ {
			copy(hp[(r*t+s)*u:(r*t+s+1)*u], y[(r*t+s-1)*g5+4*u:(r*t+s-1)*g5+5*u])
		}
	}
	sgemm(true, false, u, g3, b*t, 1, hp, u, dm, g3, 0, drk, g3)
	acc := make([]float64, g3)
	for i := 0; i < b*t; i++ {
		for k, v := range dm[i*g3 : (i+1)*g3] {
			acc[k] += float64(v)
		}
	}
	for k, v := range acc {
		drb[k] = float32(v)
	}
}
