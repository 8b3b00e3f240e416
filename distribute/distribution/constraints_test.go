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
)

// TestConstraintsOnSplitWeights: a MaxNorm kernel split across the rows
// its norms sum over, and a NonNeg kernel split by columns, are projected
// as MirroredStrategy projects them (bitwise) on a 2x2 mesh: the devices
// project the gathered update, not their blocks.
func TestConstraintsOnSplitWeights(t *testing.T) {
	x, y := tokens(24, 13)
	build := func(s engine.Strategy) *keras.Model {
		layers.SetRandomSeed(3)
		exit := engine.EnterScope(s)
		defer exit()
		m, err := keras.NewSequential(
			layers.NewEmbedding(12, 8, layers.WithInputShape(5)),
			layers.NewFlatten(),
			layers.NewDense(16, layers.WithActivation("relu"), layers.WithName("maxnorm"), layers.WithKernelConstraint(layers.MaxNorm(0.3))),
			layers.NewDense(4, layers.WithName("nonneg"), layers.WithKernelConstraint(layers.NonNeg())),
		)
		if err == nil {
			err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.05)),
				Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
		}
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	lm := distribution.NewLayoutMap(mesh(t, 2, 2))
	for _, kv := range []struct {
		key  string
		axes []string
	}{{"maxnorm/kernel", []string{"model", ""}}, {"nonneg/kernel", []string{"", "model"}}, {".*embeddings", []string{"", "model"}}} {
		if err := lm.Set(kv.key, kv.axes...); err != nil {
			t.Fatal(err)
		}
	}
	mp, err := distribution.NewModelParallel(lm, "batch")
	if err != nil {
		t.Fatal(err)
	}
	mirrored, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3")
	if err != nil {
		t.Fatal(err)
	}
	got, ref := build(mp), build(mirrored)
	for _, m := range []*keras.Model{got, ref} {
		if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: 8, Seed: 1, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatal(err)
		}
	}
	sameWeights(t, "under ModelParallel", got, ref)
	neg := 0
	for _, w := range got.Weights() {
		if w.Name() == "nonneg/kernel" {
			for _, v := range w.Numpy() {
				if v < 0 {
					neg++
				}
			}
		}
	}
	if neg > 0 {
		t.Errorf("nonneg/kernel has %d negative values", neg)
	}
}
