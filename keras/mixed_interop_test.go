package keras

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// mixedInteropCase is an interop case (interop_check.py) of a model
// compiled under mixed_float16: Python Keras loads it under Policy (Keras
// wraps the optimizer of a loaded model only when the global policy is
// mixed_float16), compares outputs within RTol (float16 computation) and
// finds the LossScaleOptimizer's state: the step count of its inner
// optimizer, step_counter and dynamic_scale, as saved and after the
// Continue step.
type mixedInteropCase struct {
	interopCase
	Policy         string
	RTol           float64
	LossScale      lossScaleState
	LossScaleAfter lossScaleState
}

type lossScaleState struct {
	Iterations   int64
	StepCounter  int64
	DynamicScale float64
}

func lossScaleStateOf(t *testing.T, m *Model) lossScaleState {
	t.Helper()
	lso, ok := m.Optimizer().(*optimizers.LossScaleOptimizer)
	if !ok {
		t.Fatalf("optimizer %T under mixed_float16", m.Optimizer())
	}
	return lossScaleState{lso.Iterations(), lso.StepCounter(), lso.DynamicScale()}
}

// TestInteropWriteMixedFloat16ForKeras writes, for interop_check.py (only
// with GOKERAS_INTEROP_OUT set), two MLPs compiled under mixed_float16 and
// trained 3 steps, the second overflowing float16 (skipped, the scale
// halved): one whose Adam Compile wrapped in a LossScaleOptimizer, one
// compiled with an explicit LossScaleOptimizer(SGD with momentum,
// initial_scale 1024, dynamic_growth_steps 2), saved as .keras and
// .weights.h5 with their loss-scale state, and the state and outputs
// after one more step.
func TestInteropWriteMixedFloat16ForKeras(t *testing.T) {
	dir := os.Getenv("GOKERAS_INTEROP_OUT")
	if dir == "" {
		t.Skip("set GOKERAS_INTEROP_OUT=DIR to write gokeras' files for tools/keras_reference/interop_check.py")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mixedprecision.SetGlobalPolicy("mixed_float16"); err != nil {
		t.Fatal(err)
	}
	defer mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	for k, c := range []struct {
		name string
		opt  func() optimizers.Optimizer
	}{
		{"mixed_float16_adam", func() optimizers.Optimizer { return optimizers.NewAdam(optimizers.LearningRate(0.01)) }},
		{"mixed_float16_explicit", func() optimizers.Optimizer {
			return optimizers.NewLossScaleOptimizer(optimizers.NewSGD(optimizers.LearningRate(0.05), optimizers.Momentum(0.9)),
				optimizers.InitialScale(1024), optimizers.DynamicGrowthSteps(2))
		}},
	} {
		layers.SetRandomSeed(uint64(100 + k))
		m, err := NewSequential(
			layers.NewDense(6, layers.WithActivation("tanh"), layers.WithInputShape(4)),
			layers.NewDense(3),
			layers.NewActivation("linear", layers.WithDtype("float32")),
		)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(CompileConfig{Optimizer: c.opt(), Loss: "mse"}); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(100+k), 7))
		x, y := ioRandom(r, []int{6, 4}, 1, 0), ioRandom(r, []int{6, 3}, 1, 0)
		x.Data[2*4] = 1e5 // the second batch overflows float16
		if _, err := m.Fit(x.dense(), y.dense(), FitConfig{BatchSize: 2, NoShuffle: true, Verbose: VerboseSilent}); err != nil {
			t.Fatal(err)
		}
		mc := mixedInteropCase{Policy: "mixed_float16", RTol: 1e-3, LossScale: lossScaleStateOf(t, m)}
		if mc.LossScale.Iterations != 2 {
			t.Fatalf("%s: %d steps applied of 3, want 2 (one skipped)", c.name, mc.LossScale.Iterations)
		}
		ins := []interopArray{ioRandom(r, []int{3, 4}, 1, 0)}
		mc.interopCase = interopCase{Name: c.name, Files: map[string]string{"keras": c.name + ".keras", "weights": c.name + ".weights.h5"}, Inputs: ins, Outputs: ioOutputs(t, m, ins)}
		if err := m.Save(filepath.Join(dir, c.name+".keras")); err != nil {
			t.Fatal(err)
		}
		if err := m.SaveWeights(filepath.Join(dir, c.name+".weights.h5")); err != nil {
			t.Fatal(err)
		}
		x1, y1 := ioRandom(r, []int{4, 4}, 1, 0), ioRandom(r, []int{4, 3}, 1, 0)
		if _, err := m.Fit(x1.dense(), y1.dense(), FitConfig{BatchSize: 4, NoShuffle: true, Verbose: VerboseSilent}); err != nil {
			t.Fatal(err)
		}
		mc.LossScaleAfter = lossScaleStateOf(t, m)
		mc.Continue = &struct {
			X, Y    []interopArray
			Outputs []interopArray
		}{[]interopArray{x1}, []interopArray{y1}, ioOutputs(t, m, ins)}
		b, err := json.Marshal(mc)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
