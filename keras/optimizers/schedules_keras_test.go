package optimizers

import (
	"fmt"
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/ops"
)

// kerasScheduleCase is one case of testdata/keras/schedules.json, written
// by tools/keras_reference/gen_vectors.py: a Keras learning-rate schedule's
// config and its rate at Steps, or (with Optimizer set) an optimizer driven
// by the schedule and its variable after each of three steps.
type kerasScheduleCase struct {
	Name, Schedule, Optimizer string
	Config                    map[string]any
	Steps                     []int64
	LR                        []float32
	Shape                     []int
	W0                        []float32
	Grads                     [][]float32
	OptSteps                  [][]float32 `json:"opt_steps"`
}

// scheduleFromKeras makes the gokeras schedule of a Keras schedule config.
func scheduleFromKeras(class string, c map[string]any) (Schedule, error) {
	f := func(k string) float64 { v, _ := c[k].(float64); return v }
	switch class {
	case "ExponentialDecay":
		st, _ := c["staircase"].(bool)
		return ExponentialDecay(f("initial_learning_rate"), int64(f("decay_steps")), f("decay_rate"), st)
	case "PiecewiseConstantDecay":
		var b []int64
		var v []float64
		for _, x := range c["boundaries"].([]any) {
			b = append(b, int64(x.(float64)))
		}
		for _, x := range c["values"].([]any) {
			v = append(v, x.(float64))
		}
		return PiecewiseConstantDecay(b, v)
	case "CosineDecay":
		if c["warmup_target"] != nil {
			return CosineDecayWithWarmup(f("initial_learning_rate"), int64(f("decay_steps")), f("alpha"),
				f("warmup_target"), int64(f("warmup_steps")))
		}
		return CosineDecay(f("initial_learning_rate"), int64(f("decay_steps")), f("alpha"))
	}
	return nil, fmt.Errorf("no gokeras schedule for Keras' %s", class)
}

// TestSchedulesMatchKeras compares each schedule's rate at Keras' steps
// with Keras' (computed in float32 there: the cosine's tail is 2e-6 off
// the exact value) to 1e-5 relative, the
// configs GetConfig writes with Keras' get_config(), and an optimizer
// driven by a schedule over three steps with Keras' variable to 1e-6.
func TestSchedulesMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasScheduleCase](t, "testdata/keras/schedules.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			s, err := scheduleFromKeras(tc.Schedule, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name() != tc.Schedule {
				t.Errorf("Name() = %q, Keras' class %q", s.Name(), tc.Schedule)
			}
			for k, want := range tc.Config {
				got, ok := s.GetConfig()[k]
				if !ok {
					t.Errorf("GetConfig has no %q (Keras: %v)", k, want)
					continue
				}
				if fmt.Sprint(toFloatIfInt(got)) != fmt.Sprint(want) && !sameList(got, want) {
					t.Errorf("GetConfig()[%q] = %v, Keras %v", k, got, want)
				}
			}
			for i, step := range tc.Steps {
				got, want := s.At(step), float64(tc.LR[i])
				if e := math.Abs(got-want) / math.Max(math.Abs(want), 1e-30); !(e <= 1e-5) {
					t.Errorf("At(%d) = %.9g, Keras %.9g", step, got, want)
				}
			}
			if tc.Optimizer == "" {
				return
			}
			var opt Optimizer
			switch tc.Optimizer {
			case "SGD":
				opt = NewSGD(LearningRateSchedule(s))
			case "Adam":
				opt = NewAdam(LearningRateSchedule(s))
			default:
				t.Fatalf("no case for optimizer %s", tc.Optimizer)
			}
			v := ops.NewVariable("kernel", ops.Shape(tc.Shape), append([]float32(nil), tc.W0...), true)
			for k, g := range tc.Grads {
				if err := opt.Apply(engine.Single{}, [][]float32{append([]float32(nil), g...)}, []*ops.Variable{v}); err != nil {
					t.Fatal(err)
				}
				for i, w := range tc.OptSteps[k] {
					got := v.Data(0)[i]
					if e := math.Abs(float64(got-w)) / math.Max(1, math.Abs(float64(w))); !(e <= 1e-6) {
						t.Errorf("step %d: w[%d] = %.9g, Keras %.9g", k+1, i, got, w)
					}
				}
			}
		})
	}
}

// toFloatIfInt turns the integer kinds GetConfig uses into float64, the
// type JSON decoding gives Keras' numbers.
func toFloatIfInt(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

// sameList reports whether a GetConfig list of numbers equals Keras' list.
func sameList(got, want any) bool {
	w, ok := want.([]any)
	if !ok {
		return false
	}
	var g []float64
	switch x := got.(type) {
	case []int64:
		for _, v := range x {
			g = append(g, float64(v))
		}
	case []float64:
		g = x
	default:
		return false
	}
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if wf, ok := w[i].(float64); !ok || wf != g[i] {
			return false
		}
	}
	return true
}
