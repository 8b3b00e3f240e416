package optimizers

import (
	"fmt"
	"math"
	"testing"
)

func fmtList(xs []string) string { return fmt.Sprint(xs) }

func checkSchedule(t *testing.T, s Schedule, want map[int64]float64) {
	t.Helper()
	for step, w := range want {
		if got := s.At(step); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s.At(%d) = %.15g, want %.15g", s.Name(), step, got, w)
		}
	}
}

func TestExponentialDecay(t *testing.T) {
	s, err := ExponentialDecay(0.1, 10, 0.5, false)
	if err != nil {
		t.Fatal(err)
	}
	checkSchedule(t, s, map[int64]float64{0: 0.1, 5: 0.1 / math.Sqrt2, 10: 0.05, 15: 0.1 * math.Pow(0.5, 1.5), 20: 0.025})
	st, _ := ExponentialDecay(0.1, 10, 0.5, true)
	checkSchedule(t, st, map[int64]float64{0: 0.1, 9: 0.1, 10: 0.05, 15: 0.05, 29: 0.025, 30: 0.0125})
	if _, err := ExponentialDecay(0.1, 0, 0.5, false); err == nil {
		t.Error("decay_steps 0 accepted")
	}
	c := s.GetConfig()
	if c["initial_learning_rate"] != 0.1 || c["decay_steps"] != int64(10) || c["decay_rate"] != 0.5 || c["staircase"] != false {
		t.Errorf("config %v", c)
	}
}

func TestPiecewiseConstantDecay(t *testing.T) {
	s, err := PiecewiseConstantDecay([]int64{10, 20}, []float64{1, 0.5, 0.1})
	if err != nil {
		t.Fatal(err)
	}
	checkSchedule(t, s, map[int64]float64{0: 1, 10: 1, 11: 0.5, 20: 0.5, 21: 0.1, 1000: 0.1})
	if c := s.GetConfig(); s.Name() != "PiecewiseConstantDecay" || fmt.Sprint(c["boundaries"], c["values"]) != "[10 20] [1 0.5 0.1]" {
		t.Errorf("%s config %v", s.Name(), c)
	}
	if _, err := PiecewiseConstantDecay([]int64{10, 20}, []float64{1, 0.5}); err == nil {
		t.Error("2 values for 2 boundaries accepted")
	}
	if _, err := PiecewiseConstantDecay([]int64{20, 10}, []float64{1, 0.5, 0.1}); err == nil {
		t.Error("decreasing boundaries accepted")
	}
}

func TestCosineDecay(t *testing.T) {
	s, err := CosineDecay(1, 10, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	// 0.9*0.5*(1+cos(pi*frac)) + 0.1.
	checkSchedule(t, s, map[int64]float64{
		0: 1, 5: 0.55, 10: 0.1, 20: 0.1,
		2: 0.9*0.5*(1+math.Cos(math.Pi*0.2)) + 0.1,
	})
	if s.GetConfig()["warmup_target"] != nil {
		t.Errorf("config %v", s.GetConfig())
	}
	if _, err := CosineDecay(1, 0, 0); err == nil {
		t.Error("decay_steps 0 accepted")
	}
}

func TestCosineDecayWithWarmup(t *testing.T) {
	s, err := CosineDecayWithWarmup(0, 10, 0.1, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Linear 0 -> 2 over 4 steps, then cosine from 2 over 10 steps.
	checkSchedule(t, s, map[int64]float64{
		0: 0, 1: 0.5, 2: 1, 3: 1.5, 4: 2, 9: 2 * 0.55, 14: 0.2, 100: 0.2,
	})
	if c := s.GetConfig(); c["warmup_target"] != 2.0 || c["warmup_steps"] != int64(4) {
		t.Errorf("config %v", c)
	}
	if _, err := CosineDecayWithWarmup(0, 10, 0, 1, -1); err == nil {
		t.Error("negative warmup accepted")
	}
}

func TestOptimizerWithSchedule(t *testing.T) {
	s, _ := ExponentialDecay(0.1, 1, 0.5, false) // lr halves each step
	opt := NewSGD(LearningRateSchedule(s))
	// Each step uses the lr at the iterations done before it: 0.1, 0.05,
	// 0.025.
	want := [][]float64{{1 - 0.1*0.5, -2 - 0.1*1}}
	want = append(want, []float64{want[0][0] + 0.05*1, want[0][1] - 0.05*0.25})
	want = append(want, []float64{want[1][0] - 0.025*2, want[1][1] + 0.025*3})
	run(t, opt, want)
	if lr := opt.CurrentLearningRate(); math.Abs(lr-0.0125) > 1e-15 {
		t.Errorf("CurrentLearningRate() = %v, want 0.0125", lr)
	}
	lrc := opt.GetConfig()["learning_rate"].(map[string]any)
	if lrc["class_name"] != "ExponentialDecay" {
		t.Errorf("learning_rate config %v", lrc)
	}
	opt.SetLearningRate(0.3)
	if lr := opt.CurrentLearningRate(); lr != 0.3 {
		t.Errorf("after SetLearningRate: %v", lr)
	}
	if opt.GetConfig()["learning_rate"] != 0.3 {
		t.Errorf("config learning_rate %v", opt.GetConfig()["learning_rate"])
	}
}
