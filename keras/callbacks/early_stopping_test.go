package callbacks

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// drive feeds values of the monitored quantity to a callback epoch by
// epoch, as Fit would: an EarlyStopping that stops ends the run.
func drive(t *testing.T, c keras.Callback, m *keras.Model, monitor string, values ...float64) {
	t.Helper()
	c.SetModel(m)
	if err := c.OnTrainBegin(nil); err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		if err := c.OnEpochEnd(i, logs("loss", 1.0, monitor, v)); err != nil {
			t.Fatal(err)
		}
		if es, ok := c.(*EarlyStopping); ok && es.StoppedEpoch > 0 {
			return
		}
	}
}

func TestEarlyStoppingPatienceAndMinDelta(t *testing.T) {
	m := model(t, 1, nil)
	es := NewEarlyStopping(Monitor("val_loss"), Patience(2), MinDelta(-0.1)) // |min_delta| is used
	drive(t, es, m, "val_loss", 1.0, 0.95, 0.85, 0.86, 0.9)
	// 0.95 is not 0.1 better than 1.0; 0.85 is; then two epochs without.
	if es.StoppedEpoch != 4 || es.Best != 0.85 || es.BestEpoch != 2 || es.Wait != 2 {
		t.Errorf("stopped %d best %v at %d wait %d", es.StoppedEpoch, es.Best, es.BestEpoch, es.Wait)
	}
	es = NewEarlyStopping(Patience(2))
	drive(t, es, m, "val_loss", 1.0, 0.9, 0.8, 0.7)
	if es.StoppedEpoch != 0 {
		t.Errorf("stopped at %d while improving", es.StoppedEpoch)
	}
	// Patience 0 (the default) stops at the first epoch without improvement,
	// but never at epoch 0.
	es = NewEarlyStopping()
	drive(t, es, m, "val_loss", 1.0, 1.0)
	if es.StoppedEpoch != 1 {
		t.Errorf("default patience: stopped at %d", es.StoppedEpoch)
	}
}

func TestEarlyStoppingModes(t *testing.T) {
	m := model(t, 1, nil)
	es := NewEarlyStopping(Monitor("val_accuracy"), Patience(1)) // auto: max
	drive(t, es, m, "val_accuracy", 0.5, 0.7, 0.6)
	if es.Best != 0.7 || es.StoppedEpoch != 2 {
		t.Errorf("auto on accuracy: best %v stopped %d", es.Best, es.StoppedEpoch)
	}
	es = NewEarlyStopping(Monitor("val_accuracy"), Mode("min"), Patience(1))
	drive(t, es, m, "val_accuracy", 0.5, 0.7)
	if es.Best != 0.5 || es.StoppedEpoch != 1 {
		t.Errorf("min mode: best %v stopped %d", es.Best, es.StoppedEpoch)
	}
	if err := NewEarlyStopping(Mode("up")).Err(); err == nil {
		t.Error("mode up accepted")
	}
	if err := NewEarlyStopping(Factor(0.5)).Err(); err == nil || !strings.Contains(err.Error(), "factor") {
		t.Errorf("EarlyStopping with Factor: %v", err)
	}
}

func TestEarlyStoppingBaselineAndStart(t *testing.T) {
	m := model(t, 1, nil)
	// Improvements that do not beat the baseline do not reset the patience.
	es := NewEarlyStopping(Monitor("val_accuracy"), Baseline(0.9), Patience(2))
	drive(t, es, m, "val_accuracy", 0.5, 0.4, 0.4)
	if es.StoppedEpoch != 1 {
		t.Errorf("baseline: stopped at %d", es.StoppedEpoch)
	}
	es = NewEarlyStopping(Monitor("val_accuracy"), Baseline(0.9), Patience(2))
	drive(t, es, m, "val_accuracy", 0.95, 0.94, 0.93, 0.92)
	if es.StoppedEpoch != 2 {
		t.Errorf("baseline beaten: stopped at %d", es.StoppedEpoch)
	}
	// Warm-up epochs are ignored.
	es = NewEarlyStopping(StartFromEpoch(2), Patience(1))
	drive(t, es, m, "val_loss", 0.1, 0.2, 0.5, 0.6, 0.7)
	if es.Best != 0.5 || es.BestEpoch != 2 || es.StoppedEpoch != 3 {
		t.Errorf("start_from_epoch: best %v at %d, stopped %d", es.Best, es.BestEpoch, es.StoppedEpoch)
	}
}

func TestEarlyStoppingMissingMonitorWarns(t *testing.T) {
	warns := captureWarnings(t)
	m := model(t, 1, nil)
	es := NewEarlyStopping()
	drive(t, es, m, "loss", 1, 1, 1)
	if es.StoppedEpoch != 0 || len(warns()) != 3 || !strings.Contains(warns()[0], `"val_loss" which is not available. Available metrics are: loss`) {
		t.Errorf("stopped %d, warnings %q", es.StoppedEpoch, warns())
	}
}

func TestEarlyStoppingInFit(t *testing.T) {
	// A learning rate of 0: the loss never improves.
	m := model(t, 1, optimizers.NewSGD(optimizers.LearningRate(0)))
	x, y := data(32, 1)
	var out strings.Builder
	es := NewEarlyStopping(Monitor("loss"), Patience(2), Verbose(1), Output(&out))
	h, err := m.Fit(x, y, quiet(20, es))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Epoch) != 3 || es.StoppedEpoch != 2 {
		t.Errorf("ran %d epochs, stopped at %d", len(h.Epoch), es.StoppedEpoch)
	}
	if out.String() != "Epoch 3: early stopping\n" {
		t.Errorf("output %q", out.String())
	}
	// Options a callback does not take stop Fit.
	if _, err := m.Fit(x, y, quiet(1, NewEarlyStopping(Cooldown(1)))); err == nil {
		t.Error("Fit ran with a bad option")
	}
}

func TestEarlyStoppingRestoresBestWeights(t *testing.T) {
	m := model(t, 1, nil)
	var out strings.Builder
	es := NewEarlyStopping(Patience(1), RestoreBestWeights(true), Verbose(1), Output(&out))
	es.SetModel(m)
	es.OnTrainBegin(nil)
	set := func(v float32) {
		ws := m.GetWeights()
		ws[0].Data().([]float32)[0] = v
		if err := m.SetWeights(ws); err != nil {
			t.Fatal(err)
		}
	}
	for epoch, c := range []struct {
		w    float32
		loss float64
	}{{1, 0.9}, {2, 0.5}, {3, 0.7}, {4, 0.8}} {
		set(c.w)
		es.OnEpochEnd(epoch, logs("val_loss", c.loss))
	}
	if err := es.OnTrainEnd(nil); err != nil {
		t.Fatal(err)
	}
	if got := m.Weights()[0].Numpy()[0]; got != 2 || es.BestEpoch != 1 {
		t.Errorf("restored weight %v, best epoch %d", got, es.BestEpoch)
	}
	if !strings.Contains(out.String(), "Restoring model weights from the end of the best epoch: 2.") {
		t.Errorf("output %q", out.String())
	}
}
