package optimizers

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
)

// scheduleMoreFromKeras makes the gokeras schedule of a Keras
// CosineDecayRestarts, PolynomialDecay or InverseTimeDecay config.
func scheduleMoreFromKeras(class string, c map[string]any) (Schedule, error) {
	f := func(k string) float64 { v, _ := c[k].(float64); return v }
	b := func(k string) bool { v, _ := c[k].(bool); return v }
	switch class {
	case "CosineDecayRestarts":
		return CosineDecayRestarts(f("initial_learning_rate"), int64(f("first_decay_steps")), f("t_mul"), f("m_mul"), f("alpha"))
	case "PolynomialDecay":
		return PolynomialDecay(f("initial_learning_rate"), int64(f("decay_steps")), f("end_learning_rate"), f("power"), b("cycle"))
	case "InverseTimeDecay":
		return InverseTimeDecay(f("initial_learning_rate"), int64(f("decay_steps")), f("decay_rate"), b("staircase"))
	}
	return nil, fmt.Errorf("no gokeras schedule for Keras' %s", class)
}

// TestSchedulesMoreMatchKeras compares CosineDecayRestarts, PolynomialDecay
// and InverseTimeDecay with Keras (testdata/keras/schedules_more.json,
// written by tools/keras_reference/schedules_more_vectors.py): the rate at
// 45 steps, across several restarts and cycles, to 1e-5 relative (Keras
// computes in float32), and GetConfig with Keras' get_config().
func TestSchedulesMoreMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasScheduleCase](t, "testdata/keras/schedules_more.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			s, err := scheduleMoreFromKeras(tc.Schedule, tc.Config)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name() != tc.Schedule {
				t.Errorf("Name() = %q, Keras' class %q", s.Name(), tc.Schedule)
			}
			got := s.GetConfig()
			if len(got) != len(tc.Config) {
				t.Errorf("GetConfig has %d keys, Keras %d: %v vs %v", len(got), len(tc.Config), got, tc.Config)
			}
			for k, want := range tc.Config {
				g, ok := got[k]
				if !ok {
					t.Errorf("GetConfig has no %q (Keras: %v)", k, want)
					continue
				}
				if fmt.Sprint(toFloatIfInt(g)) != fmt.Sprint(want) {
					t.Errorf("GetConfig()[%q] = %v, Keras %v", k, g, want)
				}
			}
			for i, step := range tc.Steps {
				got, want := s.At(step), float64(tc.LR[i])
				// Absolute 1e-12 for the far steps, where m_mul^i in float32
				// has lost digits of a rate that is effectively zero.
				if !(math.Abs(got-want) <= 1e-5*math.Abs(want)+1e-12) {
					t.Errorf("At(%d) = %.9g, Keras %.9g", step, got, want)
				}
			}
		})
	}
}

// TestSchedulesMoreErrors checks that bad arguments are errors naming the
// schedule and the argument.
func TestSchedulesMoreErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"first_decay_steps", schedErr(CosineDecayRestarts(0.1, 0, 2, 1, 0))},
		{"t_mul", schedErr(CosineDecayRestarts(0.1, 5, 0, 1, 0))},
		{"t_mul", schedErr(CosineDecayRestarts(0.1, 5, math.NaN(), 1, 0))},
		{"decay_steps", schedErr(PolynomialDecay(0.1, -1, 0, 1, false))},
		{"decay_steps", schedErr(InverseTimeDecay(0.1, 0, 0.5, false))},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		} else if !strings.Contains(tc.err.Error(), tc.name) {
			t.Errorf("error %q does not name %s", tc.err, tc.name)
		}
	}
}

// TestSchedulesMoreFormulas checks the schedules at hand-computed points,
// independently of the Keras vectors.
func TestSchedulesMoreFormulas(t *testing.T) {
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", what, got, want)
		}
	}
	r, _ := CosineDecayRestarts(1, 10, 2, 0.5, 0)
	near("restarts At(0)", r.At(0), 1)
	near("restarts At(5)", r.At(5), 0.5)    // half way through the first period
	near("restarts At(10)", r.At(10), 0.5)  // second period starts at m_mul
	near("restarts At(20)", r.At(20), 0.25) // half way through the 20-step second period
	near("restarts At(30)", r.At(30), 0.25) // third period (40 steps) starts at m_mul^2
	p, _ := PolynomialDecay(1, 4, 0, 2, false)
	near("poly At(2)", p.At(2), 0.25)
	near("poly At(9)", p.At(9), 0)
	pc, _ := PolynomialDecay(1, 4, 0, 1, true)
	near("poly cycle At(6)", pc.At(6), 0.25) // decay_steps stretched to 8
	i, _ := InverseTimeDecay(1, 2, 1, false)
	near("inverse At(2)", i.At(2), 0.5)
	near("inverse At(3)", i.At(3), 0.4)
}

func schedErr(_ Schedule, err error) error { return err }
