package distribute_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// TestPSTLSOnlyTheChiefChoosesTheOptimizer: under TLS a worker's push
// neither chooses the servers' optimizer (before the chief set it) nor
// replaces it by another class or config; it may change only the learning
// rate (a schedule or callback), and the chief's SetOptimizer choice
// then trains.
func TestPSTLSOnlyTheChiefChoosesTheOptimizer(t *testing.T) {
	c, _ := startSecure(t, 1, 1)
	chief, worker := c.chief, c.workers[0]
	cm, wm := psModel(t), psModel(t)
	if err := chief.Track(cm.Weights()...); err != nil {
		t.Fatal(err)
	}
	if err := worker.Track(wm.Weights()...); err != nil {
		t.Fatal(err)
	}
	step := func(m *keras.Model) error {
		x, y := psBatch(0)
		_, err := worker.Run(trainStep(m), x, y)
		return err
	}
	if err := step(wm); err == nil || !strings.Contains(err.Error(), "has not set the servers' optimizer") {
		t.Fatalf("a worker's push before the chief's SetOptimizer: %v, want a refusal", err)
	}
	if err := worker.SetOptimizer(wm.Optimizer()); err == nil || !strings.Contains(err.Error(), "not the chief") {
		t.Errorf("SetOptimizer on a worker: %v, want a refusal", err)
	}
	if err := chief.SetOptimizer(cm.Optimizer()); err != nil {
		t.Fatal(err)
	}
	// Another optimizer on the worker (same variables): refused.
	other := optimizers.NewSGD(optimizers.LearningRate(1e30), optimizers.Momentum(0.9))
	x, y := psBatch(0)
	f := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		tape := keras.NewGradientTape()
		loss := wm.CompiledLoss(in[1], wm.Forward(in[0], true))
		grads, err := tape.Gradient(loss, wm.TrainableVariables())
		if err != nil {
			return nil, err
		}
		return []ops.Tensor{loss}, other.ApplyGradients(grads, wm.TrainableVariables())
	})
	if _, err := worker.Run(f, x, y); err == nil || !strings.Contains(err.Error(), "may not replace the servers' optimizer") {
		t.Fatalf("a worker's push with another optimizer: %v, want PermissionDenied", err)
	}
	// The chief's optimizer with another learning rate: accepted.
	wm.Optimizer().SetLearningRate(0.01)
	if err := step(wm); err != nil {
		t.Fatalf("a worker's push with the chief's optimizer at another learning rate: %v", err)
	}
}
