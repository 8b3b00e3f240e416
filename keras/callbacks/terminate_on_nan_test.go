package callbacks

import (
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/optimizers"
)

func TestTerminateOnNaN(t *testing.T) {
	// An absurd learning rate makes the loss overflow at once.
	m := model(t, 1, optimizers.NewSGD(optimizers.LearningRate(1e30)))
	x, y := data(32, 1)
	var out strings.Builder
	h, err := m.Fit(x, y, quiet(5, NewTerminateOnNaN(Output(&out))))
	if err != nil {
		t.Fatal(err)
	}
	loss := h.History["loss"]
	if len(h.Epoch) != 1 || !(math.IsNaN(loss[0]) || math.IsInf(loss[0], 0)) {
		t.Errorf("ran %d epochs, losses %v", len(h.Epoch), loss)
	}
	if !strings.Contains(out.String(), ": Invalid loss, terminating training\n") {
		t.Errorf("output %q", out.String())
	}

	// Finite losses leave training alone.
	out.Reset()
	m = model(t, 1, nil)
	h, err = m.Fit(x, y, quiet(2, NewTerminateOnNaN(Output(&out))))
	if err != nil || len(h.Epoch) != 2 || out.Len() != 0 {
		t.Errorf("finite run: %d epochs, %v, %q", len(h.Epoch), err, out.String())
	}
}
