package keras

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestScheduleMoreFromKerasConfig reads the Keras configs of
// CosineDecayRestarts, PolynomialDecay and InverseTimeDecay (from
// optimizers/testdata/keras/schedules_more.json, written by
// tools/keras_reference/schedules_more_vectors.py) the way a .keras file's
// compile config is read, checks the schedule's rate with Keras' at every
// step, and that SerializeSchedule's JSON reads back to the same schedule.
func TestScheduleMoreFromKerasConfig(t *testing.T) {
	type schedCase struct {
		Name, Schedule string
		Config         map[string]any
		Steps          []int64
		LR             []float32
	}
	cases := kerasvectors.Read[schedCase](t, "optimizers/testdata/keras/schedules_more.json")
	for _, tc := range cases {
		s, err := scheduleFromConfig(map[string]any{"class_name": tc.Schedule, "config": tc.Config})
		if err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		for i, step := range tc.Steps {
			if got, want := s.At(step), float64(tc.LR[i]); !(math.Abs(got-want) <= 1e-5*math.Abs(want)+1e-12) {
				t.Errorf("%s: At(%d) = %.9g, Keras %.9g", tc.Name, step, got, want)
			}
		}
		b, err := json.Marshal(optimizers.SerializeSchedule(s))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		back, err := scheduleFromConfig(m)
		if err != nil {
			t.Fatalf("%s: reading back %s: %v", tc.Name, b, err)
		}
		for _, step := range tc.Steps {
			if back.At(step) != s.At(step) {
				t.Errorf("%s: read back At(%d) = %v, before %v", tc.Name, step, back.At(step), s.At(step))
			}
		}
	}
	// Keras' defaults when a config leaves the optional keys out.
	s, err := scheduleFromConfig(map[string]any{"class_name": "PolynomialDecay",
		"config": map[string]any{"initial_learning_rate": 1.0, "decay_steps": 10.0}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.At(100); got != 0.0001 {
		t.Errorf("PolynomialDecay without end_learning_rate ends at %v, Keras' default 0.0001", got)
	}
	if _, err := scheduleFromConfig(map[string]any{"class_name": "InverseTimeDecay",
		"config": map[string]any{"initial_learning_rate": 1.0}}); err == nil {
		t.Error("InverseTimeDecay without decay_steps: no error")
	}
}
