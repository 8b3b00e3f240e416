package callbacks

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func TestLearningRateScheduler(t *testing.T) {
	m := model(t, 1, optimizers.NewSGD(optimizers.LearningRate(0.1)))
	x, y := data(16, 1)
	var out strings.Builder
	var seenLR []float64
	var seenEpoch []int
	sched := NewLearningRateScheduler(func(epoch int, lr float64) float64 {
		seenEpoch = append(seenEpoch, epoch)
		seenLR = append(seenLR, lr)
		return lr / 2
	}, Verbose(1), Output(&out))
	hist, err := m.Fit(x, y, quiet(3, sched))
	if err != nil {
		t.Fatal(err)
	}
	// As Keras, each epoch's logs carry the rate it trained with.
	if got, want := hist.History["learning_rate"], []float64{0.05, 0.025, 0.0125}; !reflect.DeepEqual(got, want) {
		t.Errorf("History learning_rate %v, want %v", got, want)
	}
	if !reflect.DeepEqual(seenEpoch, []int{0, 1, 2}) || !reflect.DeepEqual(seenLR, []float64{0.1, 0.05, 0.025}) {
		t.Errorf("schedule saw epochs %v, rates %v", seenEpoch, seenLR)
	}
	if lr := m.Optimizer().CurrentLearningRate(); lr != 0.0125 || sched.LearningRate != lr {
		t.Errorf("final lr %v, callback %v", lr, sched.LearningRate)
	}
	if !strings.Contains(out.String(), "\nEpoch 3: LearningRateScheduler setting learning rate to 0.0125.\n") {
		t.Errorf("output %q", out.String())
	}
	// The epoch numbers continue from InitialEpoch.
	seenEpoch = nil
	cfg := quiet(4, sched)
	cfg.InitialEpoch = 2
	if _, err := m.Fit(x, y, cfg); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seenEpoch, []int{2, 3}) {
		t.Errorf("resumed epochs %v", seenEpoch)
	}
	bad := NewLearningRateScheduler(func(int, float64) float64 { return math.NaN() })
	if _, err := m.Fit(x, y, quiet(1, bad)); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN schedule: %v", err)
	}
	if err := NewLearningRateScheduler(nil).Err(); err == nil {
		t.Error("nil schedule accepted")
	}
	var _ keras.Callback = sched
}
