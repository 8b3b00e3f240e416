package distribute_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
)

// TensorFlow 2.0's experimental_run_v2 ports: it is Run.
func TestExperimentalRunV2IsRun(t *testing.T) {
	s, err := distribute.NewMirroredStrategy(devices(1)...)
	if err != nil {
		t.Fatal(err)
	}
	_, e1 := s.Run(func(int) {}, nil)
	_, e2 := s.ExperimentalRunV2(func(int) {}, nil)
	if e1 == nil || e2 == nil || e1.Error() != e2.Error() || !strings.Contains(e2.Error(), "func(int)") {
		t.Errorf("Run: %v; ExperimentalRunV2: %v", e1, e2)
	}
}
