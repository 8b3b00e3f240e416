package main

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/models"
	"github.com/gokeras/gokeras/internal/racetest"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestShortRunMixedFloat16 is TestShortRunTwoReplicas under -policy
// mixed_float16: the ResNet (batch normalization in float32, dynamic loss
// scaling) trains on two replicas, its loss finite and going down.
func TestShortRunMixedFloat16(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a ResNet for a few steps")
	}
	racetest.Skip(t, "the policy's casts run inside each replica's step; TestShortRunTwoReplicas races the replicas, distribute's TestMirroredEquivalenceMixed the mixed ones")
	if err := cli.SetPolicy("mixed_float16"); err != nil {
		t.Fatal(err)
	}
	defer mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	dir := t.TempDir()
	writeCIFAR(t, dir, 16)
	hist, err := run(2, 2, 8, 0, 0, 1, dir, keras.VerboseSilent, false, 0, models.KerasInit)
	if err != nil {
		t.Fatal(err)
	}
	loss := hist.History["loss"]
	for _, l := range loss {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			t.Fatalf("loss %v", loss)
		}
	}
	t.Logf("losses %v", loss)
	if len(loss) != 2 || !(loss[1] < loss[0]) {
		t.Errorf("loss did not go down over 2 epochs: %v", loss)
	}
	if _, ok := hist.Model.Optimizer().(*optimizers.LossScaleOptimizer); !ok {
		t.Errorf("optimizer %T, want a LossScaleOptimizer", hist.Model.Optimizer())
	}
}
