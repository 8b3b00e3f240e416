package optimizers

import (
	"fmt"
	"math"
)

// Schedule is a learning rate that depends on the step: Keras'
// keras.optimizers.schedules.LearningRateSchedule. The optimizer evaluates
// it before each update at the number of updates done so far.
type Schedule interface {
	// At returns the learning rate at step (0 for the first update).
	At(step int64) float64
	// GetConfig returns the Keras config of the schedule.
	GetConfig() map[string]any
	// Name is the Keras class name, such as "ExponentialDecay".
	Name() string
}

// SerializeSchedule returns the Keras serialization of s, the form an
// optimizer's config holds under "learning_rate".
func SerializeSchedule(s Schedule) map[string]any {
	return map[string]any{
		"module":          "keras.optimizers.schedules",
		"class_name":      s.Name(),
		"config":          s.GetConfig(),
		"registered_name": nil,
	}
}

type exponentialDecay struct {
	initial   float64
	steps     int64
	rate      float64
	staircase bool
}

// ExponentialDecay returns initial * decayRate^(step/decaySteps), the
// exponent floored to an integer when staircase (the rate then drops every
// decaySteps steps instead of continuously). decaySteps must be > 0.
func ExponentialDecay(initial float64, decaySteps int64, decayRate float64, staircase bool) (Schedule, error) {
	if decaySteps <= 0 {
		return nil, fmt.Errorf("optimizers: ExponentialDecay: decay_steps must be > 0, got %d", decaySteps)
	}
	return &exponentialDecay{initial, decaySteps, decayRate, staircase}, nil
}

func (s *exponentialDecay) At(step int64) float64 {
	p := float64(step) / float64(s.steps)
	if s.staircase {
		p = math.Floor(p)
	}
	return s.initial * math.Pow(s.rate, p)
}

func (s *exponentialDecay) Name() string { return "ExponentialDecay" }

func (s *exponentialDecay) GetConfig() map[string]any {
	return map[string]any{
		"initial_learning_rate": s.initial,
		"decay_steps":           s.steps,
		"decay_rate":            s.rate,
		"staircase":             s.staircase,
		"name":                  "ExponentialDecay",
	}
}

type piecewiseConstantDecay struct {
	boundaries []int64
	values     []float64
}

// PiecewiseConstantDecay returns values[0] while step <= boundaries[0],
// values[i] while boundaries[i-1] < step <= boundaries[i], and the last value
// after the last boundary. It needs len(values) == len(boundaries)+1 and
// boundaries in increasing order.
func PiecewiseConstantDecay(boundaries []int64, values []float64) (Schedule, error) {
	if len(values) != len(boundaries)+1 {
		return nil, fmt.Errorf("optimizers: PiecewiseConstantDecay: %d values for %d boundaries; want one more value than boundaries",
			len(values), len(boundaries))
	}
	for i := 1; i < len(boundaries); i++ {
		if boundaries[i] < boundaries[i-1] {
			return nil, fmt.Errorf("optimizers: PiecewiseConstantDecay: boundaries %v are not in increasing order", boundaries)
		}
	}
	return &piecewiseConstantDecay{
		boundaries: append([]int64(nil), boundaries...),
		values:     append([]float64(nil), values...),
	}, nil
}

func (s *piecewiseConstantDecay) At(step int64) float64 {
	for i, b := range s.boundaries {
		if step <= b {
			return s.values[i]
		}
	}
	return s.values[len(s.values)-1]
}

func (s *piecewiseConstantDecay) Name() string { return "PiecewiseConstantDecay" }

func (s *piecewiseConstantDecay) GetConfig() map[string]any {
	return map[string]any{
		"boundaries": append([]int64(nil), s.boundaries...),
		"values":     append([]float64(nil), s.values...),
		"name":       "PiecewiseConstant", // Keras' default name, not the class name
	}
}

type cosineDecay struct {
	initial     float64
	steps       int64
	alpha       float64
	warmup      bool
	target      float64
	warmupSteps int64
}

// CosineDecay returns initial * ((1-alpha)*0.5*(1+cos(pi*frac)) + alpha)
// with frac = min(step, decaySteps)/decaySteps: a half cosine from initial
// down to alpha*initial, then constant. decaySteps must be > 0.
func CosineDecay(initial float64, decaySteps int64, alpha float64) (Schedule, error) {
	if decaySteps <= 0 {
		return nil, fmt.Errorf("optimizers: CosineDecay: decay_steps must be > 0, got %d", decaySteps)
	}
	return &cosineDecay{initial: initial, steps: decaySteps, alpha: alpha}, nil
}

// CosineDecayWithWarmup is CosineDecay preceded by a linear warmup from
// initial to warmupTarget over warmupSteps; the cosine then decays from
// warmupTarget over decaySteps (Keras' CosineDecay with warmup_target set).
func CosineDecayWithWarmup(initial float64, decaySteps int64, alpha, warmupTarget float64, warmupSteps int64) (Schedule, error) {
	if decaySteps <= 0 {
		return nil, fmt.Errorf("optimizers: CosineDecay: decay_steps must be > 0, got %d", decaySteps)
	}
	if warmupSteps < 0 {
		return nil, fmt.Errorf("optimizers: CosineDecay: warmup_steps must be >= 0, got %d", warmupSteps)
	}
	return &cosineDecay{initial: initial, steps: decaySteps, alpha: alpha,
		warmup: true, target: warmupTarget, warmupSteps: warmupSteps}, nil
}

func (s *cosineDecay) decay(step int64, from float64) float64 {
	frac := float64(min(step, s.steps)) / float64(s.steps)
	return from * ((1-s.alpha)*0.5*(1+math.Cos(math.Pi*frac)) + s.alpha)
}

func (s *cosineDecay) At(step int64) float64 {
	if !s.warmup {
		return s.decay(max(step, 0), s.initial)
	}
	if step < s.warmupSteps {
		frac := float64(step) / float64(s.warmupSteps)
		return s.initial + (s.target-s.initial)*frac
	}
	return s.decay(step-s.warmupSteps, s.target)
}

func (s *cosineDecay) Name() string { return "CosineDecay" }

func (s *cosineDecay) GetConfig() map[string]any {
	m := map[string]any{
		"initial_learning_rate": s.initial,
		"decay_steps":           s.steps,
		"alpha":                 s.alpha,
		"name":                  "CosineDecay",
		"warmup_target":         nil,
		"warmup_steps":          s.warmupSteps,
	}
	if s.warmup {
		m["warmup_target"] = s.target
	}
	return m
}
