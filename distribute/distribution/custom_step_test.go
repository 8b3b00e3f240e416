package distribution_test

import (
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/distribute/distribution"
	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// tapeStep is a custom train step (Keras' train_step with a
// GradientTape) that applies its gradients through the model, as a
// sharded distribution needs.
type tapeStep struct{ *keras.Model }

func (m tapeStep) TrainStep(data []ops.Tensor) (ops.Tensor, error) {
	tape := keras.NewGradientTape()
	pred := m.Forward(data[0], true)
	loss := m.CompiledLoss(data[1], pred)
	grads, err := tape.Gradient(loss, m.TrainableVariables())
	if err != nil {
		return ops.Tensor{}, err
	}
	m.UpdateCompiledMetrics(data[1], pred)
	return loss, m.ApplyGradients(grads, m.TrainableVariables())
}

// TestCustomTrainStepSharded: a custom train step with a GradientTape
// that applies its gradients with Model.ApplyGradients trains under a
// 2x2 ModelParallel (its weights split) bitwise as under MirroredStrategy,
// before and after a Fit of the default step on the same model.
func TestCustomTrainStepSharded(t *testing.T) {
	x, y := tokens(24, 14)
	run := func(s engine.Strategy) *keras.Model {
		layers.SetRandomSeed(2)
		exit := engine.EnterScope(s)
		m, err := keras.NewSequential(smallModel()...)
		if err == nil {
			err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)),
				Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
		}
		exit()
		if err != nil {
			t.Fatal(err)
		}
		m.Override(tapeStep{m})
		fit := func() {
			if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 8, Seed: 2, Verbose: keras.VerboseSilent}); err != nil {
				t.Fatal(err)
			}
		}
		fit()
		m.Override(nil)
		fit()
		m.Override(tapeStep{m})
		fit()
		return m
	}
	mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, 2, 2)), "batch")
	if err != nil {
		t.Fatal(err)
	}
	got := run(mp)
	mirrored, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3")
	if err != nil {
		t.Fatal(err)
	}
	ref := run(mirrored)
	sameWeights(t, "a custom step under ModelParallel", got, ref)
	if it := got.Optimizer().Iterations(); it != 9 {
		t.Errorf("the optimizer counts %d steps, want 9", it)
	}
	var weights int64
	for _, w := range got.Weights() {
		weights += 4 * int64(w.Shape().Size())
	}
	if mem := mp.Memory(); mem[0].Shards*2 != weights {
		t.Errorf("device 0 holds %d B of shards of %d B of weights, want half", mem[0].Shards, weights)
	}
	var bare keras.Model
	if err := bare.ApplyGradients(nil, nil); err == nil {
		t.Error("ApplyGradients of a model without an optimizer succeeded")
	}
}

// optimizerStep is a custom train step as Keras' guide writes it,
// self.optimizer.apply_gradients(zip(grads, trainable_vars)): it applies
// its gradients with the model's optimizer itself.
type optimizerStep struct{ *keras.Model }

func (m optimizerStep) TrainStep(data []ops.Tensor) (ops.Tensor, error) {
	tape := keras.NewGradientTape()
	pred := m.Forward(data[0], true)
	loss := m.CompiledLoss(data[1], pred)
	grads, err := tape.Gradient(loss, m.TrainableVariables())
	if err != nil {
		return ops.Tensor{}, err
	}
	return loss, m.Optimizer().ApplyGradients(grads, m.TrainableVariables())
}

// TestCustomTrainStepOptimizerApplySharded: a custom step that calls the
// optimizer's own ApplyGradients (the guide's line, kept by ports) trains
// the shards under a 2x2 ModelParallel, as Model.ApplyGradients does: the
// weights bitwise as under MirroredStrategy, and each device holding half
// of the split weights and of their slots (the optimizer hands its
// gradients to the distribution: without that, every device kept whole
// weights and whole slots and the layout was silently ignored).
func TestCustomTrainStepOptimizerApplySharded(t *testing.T) {
	x, y := tokens(24, 14)
	run := func(s engine.Strategy, opt optimizers.Optimizer) *keras.Model {
		layers.SetRandomSeed(2)
		exit := engine.EnterScope(s)
		m, err := keras.NewSequential(smallModel()...)
		if err == nil {
			err = m.Compile(keras.CompileConfig{Optimizer: opt, Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
		}
		exit()
		if err != nil {
			t.Fatal(err)
		}
		m.Override(optimizerStep{m})
		if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: 8, Seed: 2, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for name, opt := range map[string]func() optimizers.Optimizer{
		"adam": func() optimizers.Optimizer { return optimizers.NewAdam(optimizers.LearningRate(0.01)) },
		"sgd": func() optimizers.Optimizer {
			return optimizers.NewSGD(optimizers.LearningRate(0.1), optimizers.Momentum(0.9))
		},
	} {
		t.Run(name, func(t *testing.T) {
			mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, 2, 2)), "batch")
			if err != nil {
				t.Fatal(err)
			}
			got := run(mp, opt())
			mirrored, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3")
			if err != nil {
				t.Fatal(err)
			}
			ref := run(mirrored, opt())
			sameWeights(t, "the optimizer's ApplyGradients under ModelParallel", got, ref)
			if it := got.Optimizer().Iterations(); it != 6 {
				t.Errorf("the optimizer counts %d steps, want 6", it)
			}
			var weights, slots int64
			for _, w := range got.Weights() {
				weights += 4 * int64(w.Shape().Size())
			}
			for _, v := range ref.Optimizer().Variables()[1:] { // the slots, not the step count
				slots += 4 * int64(v.Shape().Size())
			}
			mem := mp.Memory()[0]
			if mem.Shards*2 != weights {
				t.Errorf("device 0 holds %d B of shards of %d B of weights, want half", mem.Shards, weights)
			}
			if mem.Slots > slots/2+64 {
				t.Errorf("device 0 holds %d B of slots, want about half of the %d B of whole slots", mem.Slots, slots)
			}
		})
	}
}
