package callbacks

import (
	"log/slog"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gokeras/gokeras/internal/logging/logtest"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// data makes n examples of a 3-class problem with 4 features.
func data(n int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n*4)
	y := make([]float32, n)
	for i := range n {
		c := r.IntN(3)
		y[i] = float32(c)
		for j := range 4 {
			x[i*4+j] = float32(r.NormFloat64()) * 0.5
		}
		x[i*4+c] += 1.5
	}
	return tensor.New(tensor.WithShape(n, 4), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// model makes a compiled MLP; seed picks its initial weights.
func model(t *testing.T, seed uint64, opt optimizers.Optimizer) *keras.Model {
	t.Helper()
	layers.ClearSession()
	layers.SetRandomSeed(seed)
	m, err := keras.NewSequential(
		layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)),
		layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	if opt == nil {
		opt = optimizers.NewAdam(optimizers.LearningRate(0.01))
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: opt,
		Loss:    losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
		Metrics: []any{"accuracy"}}); err != nil {
		t.Fatal(err)
	}
	return m
}

func quiet(epochs int, cbs ...keras.Callback) keras.FitConfig {
	return keras.FitConfig{Epochs: epochs, BatchSize: 8, Verbose: keras.VerboseSilent, Callbacks: cbs, Seed: 3}
}

func sameWeights(a, b *keras.Model) bool {
	wa, wb := a.Weights(), b.Weights()
	if len(wa) != len(wb) {
		return false
	}
	for i := range wa {
		if !reflect.DeepEqual(wa[i].Numpy(), wb[i].Numpy()) {
			return false
		}
	}
	return true
}

// logs makes keras.Logs from name, value pairs.
func logs(kv ...any) keras.Logs {
	out := keras.Logs{}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1].(float64)
	}
	return out
}

// captureWarnings records what gokeras logs for the rest of the test,
// through a slog handler as a program's keras.SetLogger would; the
// function it returns gives the messages so far and fails the test if one
// was not a warning.
func captureWarnings(t *testing.T) func() []string {
	rec := logtest.Capture(t)
	return func() []string {
		t.Helper()
		for _, r := range rec.All() {
			if r.Level != slog.LevelWarn {
				t.Errorf("%q logged at %v, want WARN", r.Message, r.Level)
			}
		}
		return rec.Messages()
	}
}
