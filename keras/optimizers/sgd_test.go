package optimizers

import "testing"

// sgdRef is SGD written out in float64 from the formulas.
func sgdRef(lr, momentum float64, nesterov bool) [][]float64 {
	w := append([]float64(nil), w0...)
	m := make([]float64, len(w))
	var out [][]float64
	for _, g := range stepGrads {
		for j := range w {
			if momentum == 0 {
				w[j] -= lr * g[j]
				continue
			}
			m[j] = momentum*m[j] - lr*g[j]
			if nesterov {
				w[j] += momentum*m[j] - lr*g[j]
			} else {
				w[j] += m[j]
			}
		}
		out = append(out, append([]float64(nil), w...))
	}
	return out
}

func TestSGDPlainByHand(t *testing.T) {
	// lr 0.1, w0 = (1, -2), gradients (0.5, 1), (-1, 0.25), (2, -3).
	run(t, NewSGD(LearningRate(0.1)), [][]float64{
		{0.95, -2.1},
		{1.05, -2.125},
		{0.85, -1.825},
	})
}

func TestSGDDefaultLearningRate(t *testing.T) {
	run(t, NewSGD(), sgdRef(0.01, 0, false))
}

func TestSGDMomentum(t *testing.T) {
	// First step by hand: m = -0.1*0.5 = -0.05, w = 0.95; second:
	// m = 0.9*-0.05 + 0.1 = 0.055, w = 1.005.
	want := sgdRef(0.1, 0.9, false)
	approx(t, "reference", []float32{float32(want[1][0])}, []float64{1.005})
	opt := NewSGD(LearningRate(0.1), Momentum(0.9))
	run(t, opt, want)
	vars := opt.Variables()
	if len(vars) != 2 || vars[1].Name() != "SGD/momentum/dense_kernel" {
		t.Fatalf("Variables() = %v", vars)
	}
}

func TestSGDNesterov(t *testing.T) {
	// First step by hand: m = -0.05, w = 1 + 0.9*-0.05 - 0.05 = 0.905.
	want := sgdRef(0.1, 0.9, true)
	approx(t, "reference", []float32{float32(want[0][0])}, []float64{0.905})
	run(t, NewSGD(LearningRate(0.1), Momentum(0.9), Nesterov(true)), want)
}

func TestSGDNoSlotsWithoutMomentum(t *testing.T) {
	opt := NewSGD()
	run(t, opt, sgdRef(0.01, 0, false)[:1])
	if n := len(opt.Variables()); n != 1 {
		t.Errorf("plain SGD has %d variables, want only iterations", n)
	}
}
