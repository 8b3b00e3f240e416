package optimizers

import (
	"math"
	"testing"
)

// rmspropRef is RMSprop in float64 from the formulas.
func rmspropRef(lr, rho, momentum, eps float64, centered bool) [][]float64 {
	w := append([]float64(nil), w0...)
	n := len(w)
	vel, avg, mom := make([]float64, n), make([]float64, n), make([]float64, n)
	var out [][]float64
	for _, g := range stepGrads {
		for j := range w {
			vel[j] = rho*vel[j] + (1-rho)*g[j]*g[j]
			den := vel[j] + eps
			if centered {
				avg[j] = rho*avg[j] + (1-rho)*g[j]
				den = vel[j] - avg[j]*avg[j] + eps
			}
			inc := lr * g[j] / math.Sqrt(den)
			if momentum > 0 {
				mom[j] = momentum*mom[j] + inc
				w[j] -= mom[j]
			} else {
				w[j] -= inc
			}
		}
		out = append(out, append([]float64(nil), w...))
	}
	return out
}

func TestRMSpropFirstStepByHand(t *testing.T) {
	// vel = 0.1*g², so the step is lr*g/sqrt(0.1g²+eps) ≈ lr/sqrt(0.1).
	s := 0.01 / math.Sqrt(0.1)
	run(t, NewRMSprop(LearningRate(0.01)), [][]float64{{1 - s, -2 - s}})
}

func TestRMSprop(t *testing.T) {
	run(t, NewRMSprop(LearningRate(0.01)), rmspropRef(0.01, 0.9, 0, 1e-7, false))
}

func TestRMSpropMomentum(t *testing.T) {
	opt := NewRMSprop(LearningRate(0.01), Momentum(0.5), Rho(0.8))
	run(t, opt, rmspropRef(0.01, 0.8, 0.5, 1e-7, false))
	if n := len(opt.Variables()); n != 3 {
		t.Errorf("%d variables, want iterations, velocity, momentum", n)
	}
}

func TestRMSpropCentered(t *testing.T) {
	run(t, NewRMSprop(LearningRate(0.01), Centered(true), Epsilon(1e-3)),
		rmspropRef(0.01, 0.9, 0, 1e-3, true))
}

func TestRMSpropCenteredMomentum(t *testing.T) {
	opt := NewRMSprop(LearningRate(0.01), Centered(true), Momentum(0.9), Epsilon(1e-3))
	run(t, opt, rmspropRef(0.01, 0.9, 0.9, 1e-3, true))
	var names []string
	for _, v := range opt.Variables() {
		names = append(names, v.Name())
	}
	want := "[rmsprop/iterations rmsprop/velocity/dense_kernel rmsprop/momentum/dense_kernel rmsprop/average_gradient/dense_kernel]"
	if got := fmtList(names); got != want {
		t.Errorf("Variables() = %s, want %s", got, want)
	}
}
