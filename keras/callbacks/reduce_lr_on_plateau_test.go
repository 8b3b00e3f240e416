package callbacks

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func TestReduceLROnPlateau(t *testing.T) {
	m := model(t, 1, optimizers.NewSGD(optimizers.LearningRate(1)))
	var out strings.Builder
	r := NewReduceLROnPlateau(Factor(0.5), Patience(2), Cooldown(1), MinLR(0.2), Verbose(1), Output(&out))
	r.SetModel(m)
	if err := r.OnTrainBegin(nil); err != nil {
		t.Fatal(err)
	}
	var lrs []float64
	for epoch := range 9 {
		r.OnEpochEnd(epoch, logs("val_loss", 1.0))
		lrs = append(lrs, m.Optimizer().CurrentLearningRate())
		if r.LearningRate != lrs[epoch] {
			t.Errorf("epoch %d: LearningRate %v, optimizer %v", epoch, r.LearningRate, lrs[epoch])
		}
	}
	want := []float64{1, 1, 0.5, 0.5, 0.25, 0.25, 0.2, 0.2, 0.2}
	if !reflect.DeepEqual(lrs, want) {
		t.Errorf("learning rates %v, want %v", lrs, want)
	}
	if !strings.Contains(out.String(), "\nEpoch 3: ReduceLROnPlateau reducing learning rate to 0.5.\n") {
		t.Errorf("output %q", out.String())
	}
	// Improvements by less than min_delta (1e-4 by default) do not count.
	m = model(t, 1, optimizers.NewSGD(optimizers.LearningRate(1)))
	r = NewReduceLROnPlateau(Patience(1))
	drive(t, r, m, "val_loss", 1.0, 0.99995)
	if got := m.Optimizer().CurrentLearningRate(); got != 0.1 {
		t.Errorf("lr after a tiny improvement: %v", got)
	}
	if r.Best != 1.0 {
		t.Errorf("best %v", r.Best)
	}
	if err := NewReduceLROnPlateau(Factor(1)).Err(); err == nil {
		t.Error("factor 1 accepted")
	}
}

func TestReduceLROnPlateauReplacesSchedule(t *testing.T) {
	s, _ := optimizers.ExponentialDecay(1, 10, 0.5, false)
	m := model(t, 1, optimizers.NewSGD(optimizers.LearningRateSchedule(s)))
	r := NewReduceLROnPlateau(Patience(0), Monitor("loss"))
	x, y := data(16, 1)
	if _, err := m.Fit(x, y, quiet(1, r)); err != nil {
		t.Fatal(err)
	}
	// Patience 0: the first epoch without improvement... the first epoch
	// always improves on +Inf, so the schedule is still in place.
	if _, ok := m.Optimizer().GetConfig()["learning_rate"].(map[string]any); !ok {
		t.Errorf("schedule replaced too early: %v", m.Optimizer().GetConfig()["learning_rate"])
	}
	r.OnEpochEnd(1, logs("loss", 1e9))
	if lr, ok := m.Optimizer().GetConfig()["learning_rate"].(float64); !ok || lr != r.LearningRate {
		t.Errorf("after a reduction: %v", m.Optimizer().GetConfig()["learning_rate"])
	}
}

// lrRecorder notes the "learning_rate" entry of the logs it is given.
type lrRecorder struct {
	keras.CallbackBase
	seen []float64
}

func (r *lrRecorder) OnEpochEnd(_ int, l keras.Logs) error {
	v, ok := l.Get("learning_rate")
	if !ok {
		v = -1
	}
	r.seen = append(r.seen, v)
	return nil
}

// TestReduceLROnPlateauLogsLearningRate: as Keras, the callback adds the
// rate each epoch trained with to the epoch's logs: callbacks after it and
// the History see it, callbacks before it do not.
func TestReduceLROnPlateauLogsLearningRate(t *testing.T) {
	m := model(t, 1, optimizers.NewSGD(optimizers.LearningRate(1)))
	// "loss" never improves by 1e9: with patience 0 every epoch after the
	// first halves the rate.
	r := NewReduceLROnPlateau(Monitor("loss"), Factor(0.5), Patience(0), MinDelta(1e9))
	before, after := &lrRecorder{}, &lrRecorder{}
	x, y := data(16, 1)
	hist, err := m.Fit(x, y, quiet(4, before, r, after))
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 1, 0.5, 0.25}
	if !reflect.DeepEqual(after.seen, want) {
		t.Errorf("callback after ReduceLROnPlateau saw learning_rate %v, want %v", after.seen, want)
	}
	if !reflect.DeepEqual(hist.History["learning_rate"], want) {
		t.Errorf("History learning_rate %v, want %v", hist.History["learning_rate"], want)
	}
	if !reflect.DeepEqual(before.seen, []float64{-1, -1, -1, -1}) {
		t.Errorf("callback before ReduceLROnPlateau saw %v", before.seen)
	}
}
