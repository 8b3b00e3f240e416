package distribute_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

func devices(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("/cpu:%d", i)
	}
	return out
}

func images(n, h, w int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 3))
	x := make([]float32, n*h*w)
	for i := range x {
		x[i] = r.Float32()
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(n, h, w, 1), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// cnn is the tutorial's model.
func cnn() ([]layers.Layer, error) {
	return []layers.Layer{
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10),
	}, nil
}

// trainMirrored fits the CNN with n replicas on the same data and returns
// its model.
// bnModel is a small CNN with synchronized batch normalization.
func bnModel() ([]layers.Layer, error) {
	return []layers.Layer{
		// No bias before batch normalization: its gradient is exactly zero
		// in theory, so it would only carry rounding noise (which Adam
		// turns into full-size steps) into the comparison.
		layers.NewConv2D(8, 3, layers.WithInputShape(28, 28, 1), layers.WithUseBias(false)),
		layers.NewBatchNormalization(layers.WithSynchronized(true)),
		layers.NewReLU(),
		layers.NewMaxPooling2D(layers.WithPoolSize(4)),
		layers.NewFlatten(),
		layers.NewDense(10),
	}, nil
}

func trainMirrored(t *testing.T, n int, x, y *tensor.Dense, opt string) *keras.Model {
	// lr 0.1 with momentum 0.9 on the plain CNN.
	return trainModel(t, n, x, y, opt, cnn)
}

func mustLayers(f func() ([]layers.Layer, error)) []layers.Layer {
	ls, _ := f()
	return ls
}

func trainModel(t *testing.T, n int, x, y *tensor.Dense, opt string, model func() ([]layers.Layer, error)) *keras.Model {
	t.Helper()
	s, err := distribute.NewMirroredStrategy(devices(n)...)
	if err != nil {
		t.Fatal(err)
	}
	layers.SetRandomSeed(42)
	exit := s.Scope()
	ls, _ := model()
	m, err := keras.NewSequential(ls...)
	if err == nil {
		var o optimizers.Optimizer = optimizers.NewAdam()
		if opt == "sgd" {
			// SGD is not invariant to the gradients' scale as Adam is, so
			// it catches a loss averaged over the wrong batch.
			lr := 0.1
			if len(ls) == len(mustLayers(bnModel)) {
				// Batch norm's E[x²]-E[x]² in float32 differs in the last
				// bits with the split of the batch; lr 0.1 with momentum
				// amplifies that to 3e-5 in 8 steps. 0.02 keeps the
				// comparison about the computation, and still sees a
				// wrongly scaled loss by orders of magnitude.
				lr = 0.02
			}
			o = optimizers.NewSGD(optimizers.LearningRate(lr), optimizers.Momentum(0.9))
		}
		err = m.Compile(keras.CompileConfig{Optimizer: o, Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), Metrics: []any{"accuracy"}})
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.NumReplicasInSync(); got != n {
		t.Fatalf("NumReplicasInSync = %d, want %d", got, n)
	}
	// 33 examples in batches of 10: steps of 10, 10, 10 and 3, so 3 and 4
	// replicas get uneven parts and with 4 the last step leaves one empty.
	check := &copiesIdentical{t: t}
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: 10, Seed: 5, Verbose: keras.VerboseSilent, Callbacks: []keras.Callback{check}}); err != nil {
		t.Fatalf("%d replicas: %v", n, err)
	}
	return m
}

func TestMirroredEquivalence(t *testing.T) {
	if err := distribute.SetLogicalCPUs(4); err != nil {
		t.Fatal(err)
	}
	x, y := images(33, 28, 28, 9)
	for _, opt := range []string{"adam", "sgd"} {
		t.Run("cnn/"+opt, func(t *testing.T) { checkEquivalence(t, x, y, opt, cnn) })
		t.Run("syncbn/"+opt, func(t *testing.T) { checkEquivalence(t, x, y, opt, bnModel) })
	}
}

func checkEquivalence(t *testing.T, x, y *tensor.Dense, opt string, model func() ([]layers.Layer, error)) {
	ref := trainModel(t, 1, x, y, opt, model)
	refW := ref.Weights()
	for n := 2; n <= 4; n++ {
		m := trainModel(t, n, x, y, opt, model)
		for i, v := range m.Weights() {
			if v.Replicas() != n {
				t.Fatalf("%d replicas: %s has %d copies", n, v.Name(), v.Replicas())
			}
			for r := 1; r < n; r++ {
				a, b := v.Data(0), v.Data(r)
				for j := range a {
					if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
						t.Fatalf("%d replicas: %s copy %d differs from copy 0 at %d: %v vs %v", n, v.Name(), r, j, b[j], a[j])
					}
				}
			}
			// Replicas sum other parts of the batch, so every gradient is
			// summed in another order: float32 rounding, which 8 steps
			// of SGD with momentum 0.9 over ReLUs and max pooling grow to
			// 5-7e-5 in the CNN's convolutions (their filter gradients
			// summed in parts of each replica's batch, ops.sumFilterParts;
			// 5e-6 when they were one GEMM). A wrong gradient or
			// all-reduce is off by orders of magnitude more.
			if d := relDiff(v.Data(0), refW[i].Data(0)); d > 2e-4 {
				t.Errorf("%d replicas: %s differs from 1 replica by %.3g (relative)", n, v.Name(), d)
			}
		}
		for k, want := range ref.History.History {
			got := m.History.History[k]
			for e := range want {
				if math.Abs(got[e]-want[e]) > 1e-5*math.Max(1, math.Abs(want[e])) {
					t.Errorf("%d replicas: history %s[%d] = %v, 1 replica: %v", n, k, e, got[e], want[e])
				}
			}
		}
	}
}

// copiesIdentical checks after every step that each replica's copy of
// every weight is bitwise the primary.
type copiesIdentical struct {
	keras.CallbackBase
	t     *testing.T
	steps int
}

func (c *copiesIdentical) OnTrainBatchEnd(batch int, _ keras.Logs) error {
	c.steps++
	for _, v := range c.Model.Weights() {
		for r := 1; r < v.Replicas(); r++ {
			a, b := v.Data(0), v.Data(r)
			for j := range a {
				if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
					c.t.Fatalf("after step %d: %s copy %d differs from copy 0", c.steps, v.Name(), r)
				}
			}
		}
	}
	return nil
}

// relDiff is max|a-b| / max|b|.
func relDiff(a, b []float32) float64 {
	var d, s float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-float64(b[i])))
		s = math.Max(s, math.Abs(float64(b[i])))
	}
	if s == 0 {
		return d
	}
	return d / s
}

func TestLayerOutsideScope(t *testing.T) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMirroredStrategy()
	if err != nil {
		t.Fatal(err)
	}
	// Built outside the scope: one copy of each weight.
	dense := layers.NewDense(3, layers.WithInputShape(4))
	if err := layers.Apply(dense, layers.Input([]int{4})).Err(); err != nil {
		t.Fatal(err)
	}
	exit := s.Scope()
	m, err := keras.NewSequential(dense)
	exit()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(4, 4), tensor.WithBacking(make([]float32, 16)))
	y := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking(make([]float32, 12)))
	_, err = m.Fit(x, y, keras.FitConfig{Verbose: keras.VerboseSilent})
	if err == nil || !strings.Contains(err.Error(), "outside strategy.Scope()") {
		t.Errorf("got %v, want an error about the scope", err)
	}
}
