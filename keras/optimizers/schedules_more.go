package optimizers

import (
	"fmt"
	"math"
)

type cosineDecayRestarts struct {
	initial    float64
	first      int64
	tMul, mMul float64
	alpha      float64
}

// CosineDecayRestarts returns Keras' CosineDecayRestarts (SGDR, Loshchilov
// & Hutter): a half cosine from initial down to alpha*initial over
// firstDecaySteps, then a warm restart; period i lasts
// firstDecaySteps*tMul^i steps and starts from initial*mMul^i. Keras'
// defaults are tMul 2, mMul 1, alpha 0. firstDecaySteps must be > 0 and
// tMul > 0.
//
//	keras.optimizers.schedules.CosineDecayRestarts(0.1, 100, t_mul=2.0)
//	optimizers.CosineDecayRestarts(0.1, 100, 2, 1, 0)
func CosineDecayRestarts(initial float64, firstDecaySteps int64, tMul, mMul, alpha float64) (Schedule, error) {
	if firstDecaySteps <= 0 {
		return nil, fmt.Errorf("optimizers: CosineDecayRestarts: first_decay_steps must be > 0, got %d", firstDecaySteps)
	}
	if !(tMul > 0) || math.IsInf(tMul, 0) {
		return nil, fmt.Errorf("optimizers: CosineDecayRestarts: t_mul must be a positive finite number, got %v", tMul)
	}
	return &cosineDecayRestarts{initial, firstDecaySteps, tMul, mMul, alpha}, nil
}

func (s *cosineDecayRestarts) At(step int64) float64 {
	frac := float64(max(step, 0)) / float64(s.first)
	var restart float64
	if s.tMul == 1 {
		restart = math.Floor(frac)
		frac -= restart
	} else {
		// Periods 1, t, t^2, ... (in units of first_decay_steps) have
		// summed to (1-t^i)/(1-t) when period i begins.
		restart = math.Floor(math.Log(1-frac*(1-s.tMul)) / math.Log(s.tMul))
		// Guard the floor against rounding at an exact period boundary.
		if frac < (1-math.Pow(s.tMul, restart))/(1-s.tMul) {
			restart--
		} else if frac >= (1-math.Pow(s.tMul, restart+1))/(1-s.tMul) {
			restart++
		}
		sum := (1 - math.Pow(s.tMul, restart)) / (1 - s.tMul)
		frac = (frac - sum) / math.Pow(s.tMul, restart)
	}
	cos := 0.5 * math.Pow(s.mMul, restart) * (1 + math.Cos(math.Pi*frac))
	return s.initial * ((1-s.alpha)*cos + s.alpha)
}

func (s *cosineDecayRestarts) Name() string { return "CosineDecayRestarts" }

func (s *cosineDecayRestarts) GetConfig() map[string]any {
	return map[string]any{
		"initial_learning_rate": s.initial,
		"first_decay_steps":     s.first,
		"t_mul":                 s.tMul,
		"m_mul":                 s.mMul,
		"alpha":                 s.alpha,
		"name":                  "SGDRDecay", // Keras' default name, not the class name
	}
}

type polynomialDecay struct {
	initial, end float64
	steps        int64
	power        float64
	cycle        bool
}

// PolynomialDecay returns Keras' PolynomialDecay:
// (initial-end)*(1-step/decaySteps)^power + end, with step capped at
// decaySteps (the rate then stays at end), or, when cycle, decaySteps
// stretched to the first multiple of itself at or above step (so the rate
// jumps back up after each multiple). Keras' defaults are end 0.0001, power
// 1, cycle false. decaySteps must be > 0.
//
//	keras.optimizers.schedules.PolynomialDecay(0.1, 1000, end_learning_rate=0.01, power=0.5)
//	optimizers.PolynomialDecay(0.1, 1000, 0.01, 0.5, false)
func PolynomialDecay(initial float64, decaySteps int64, endLearningRate, power float64, cycle bool) (Schedule, error) {
	if decaySteps <= 0 {
		return nil, fmt.Errorf("optimizers: PolynomialDecay: decay_steps must be > 0, got %d", decaySteps)
	}
	return &polynomialDecay{initial, endLearningRate, decaySteps, power, cycle}, nil
}

func (s *polynomialDecay) At(step int64) float64 {
	st, steps := float64(max(step, 0)), float64(s.steps)
	if s.cycle {
		if st > 0 {
			steps *= math.Ceil(st / steps)
		}
	} else {
		st = min(st, steps)
	}
	return (s.initial-s.end)*math.Pow(1-st/steps, s.power) + s.end
}

func (s *polynomialDecay) Name() string { return "PolynomialDecay" }

func (s *polynomialDecay) GetConfig() map[string]any {
	return map[string]any{
		"initial_learning_rate": s.initial,
		"decay_steps":           s.steps,
		"end_learning_rate":     s.end,
		"power":                 s.power,
		"cycle":                 s.cycle,
		"name":                  "PolynomialDecay",
	}
}

type inverseTimeDecay struct {
	initial   float64
	steps     int64
	rate      float64
	staircase bool
}

// InverseTimeDecay returns Keras' InverseTimeDecay:
// initial / (1 + decayRate*step/decaySteps), step/decaySteps floored when
// staircase. decaySteps must be > 0.
//
//	keras.optimizers.schedules.InverseTimeDecay(0.1, 1, 0.5)
//	optimizers.InverseTimeDecay(0.1, 1, 0.5, false)
func InverseTimeDecay(initial float64, decaySteps int64, decayRate float64, staircase bool) (Schedule, error) {
	if decaySteps <= 0 {
		return nil, fmt.Errorf("optimizers: InverseTimeDecay: decay_steps must be > 0, got %d", decaySteps)
	}
	return &inverseTimeDecay{initial, decaySteps, decayRate, staircase}, nil
}

func (s *inverseTimeDecay) At(step int64) float64 {
	p := float64(step) / float64(s.steps)
	if s.staircase {
		p = math.Floor(p)
	}
	return s.initial / (1 + s.rate*p)
}

func (s *inverseTimeDecay) Name() string { return "InverseTimeDecay" }

func (s *inverseTimeDecay) GetConfig() map[string]any {
	return map[string]any{
		"initial_learning_rate": s.initial,
		"decay_steps":           s.steps,
		"decay_rate":            s.rate,
		"staircase":             s.staircase,
		"name":                  "InverseTimeDecay",
	}
}
