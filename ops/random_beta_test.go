package ops_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestRandomBetaMoments: 20000 draws have the Beta distribution's mean
// a/(a+b) and variance ab/((a+b)^2 (a+b+1)) for parameters below and
// above 1; parameters near 0 (CutMix's 1e-6) give values at 0 or 1, about
// half each, never NaN; a replay draws anew.
func TestRandomBetaMoments(t *testing.T) {
	const n = 20000
	for _, c := range [][2]float32{{0.2, 0.2}, {2, 5}, {0.5, 3}, {1, 1}} {
		tr := ops.NewTrace(true, 0, 1)
		y := ops.RandomBeta(tr, ops.Shape{n}, tr.Scalar(c[0]), tr.Scalar(c[1]), ops.NewSeedGenerator("b", 4))
		ys := evalTwice(t, tr, y)
		a, b := float64(c[0]), float64(c[1])
		mean, variance := a/(a+b), a*b/((a+b)*(a+b)*(a+b+1))
		var m, v float64
		for _, x := range ys[0] {
			if !(x >= 0 && x <= 1) {
				t.Fatalf("Beta%v: draw %v outside [0, 1]", c, x)
			}
			m += float64(x)
		}
		m /= n
		for _, x := range ys[0] {
			v += (float64(x) - m) * (float64(x) - m)
		}
		v /= n
		// The mean's standard error is sqrt(var/n) < 0.0036.
		if math.Abs(m-mean) > 0.012 || math.Abs(v-variance) > 0.1*variance {
			t.Errorf("Beta%v: mean %.4f variance %.5f, want %.4f and %.5f", c, m, v, mean, variance)
		}
		if eq32(ys[0], ys[1]) {
			t.Errorf("Beta%v: two replays drew the same values", c)
		}
	}
	tr := ops.NewEagerTrace(true, 1)
	y := ops.RandomBeta(tr, ops.Shape{1000}, tr.Scalar(1e-6), tr.Scalar(1e-6), ops.NewSeedGenerator("b", 1)).Float32s()
	ones := 0
	for _, x := range y {
		if x != 0 && x != 1 {
			t.Fatalf("Beta(1e-6, 1e-6) drew %v, not 0 or 1", x)
		}
		if x == 1 {
			ones++
		}
	}
	if ones < 400 || ones > 600 {
		t.Errorf("Beta(1e-6, 1e-6): %d ones of 1000", ones)
	}
}

// TestRandomPermutation: every draw is a permutation; over many draws each
// position takes each value about equally often.
func TestRandomPermutation(t *testing.T) {
	const n, reps = 5, 4000
	gen := ops.NewSeedGenerator("p", 2)
	counts := [n][n]int{}
	for range reps {
		tr := ops.NewEagerTrace(true, 1)
		p := ops.RandomPermutation(tr, n, gen).Float32s()
		seen := [n]bool{}
		for i, v := range p {
			k := int(v)
			if float32(k) != v || k < 0 || k >= n || seen[k] {
				t.Fatalf("draw %v is not a permutation of 0..%d", p, n-1)
			}
			seen[k] = true
			counts[i][k]++
		}
	}
	for i := range n {
		for k := range n {
			if c := counts[i][k]; c < reps/n-120 || c > reps/n+120 { // 800 ± 4.5 sd
				t.Errorf("position %d took %d %d times of %d", i, k, c, reps)
			}
		}
	}
}
