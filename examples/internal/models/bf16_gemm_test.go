package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// seedModel builds a seed model under policy with the given optimizer and
// returns it with a fixed random batch of n examples.
func seedModel(tb testing.TB, name, policy string, opt optimizers.Optimizer, n int) (*keras.Model, *tensor.Dense, *tensor.Dense) {
	tb.Helper()
	if err := mixedprecision.SetGlobalPolicy(policy); err != nil {
		tb.Fatal(err)
	}
	defer mixedprecision.SetGlobalPolicy("float32")
	layers.SetRandomSeed(1)
	var (
		m     *keras.Model
		err   error
		shape []int
	)
	switch name {
	case "cnn":
		m, err = MNISTCNN()
		shape = []int{n, 28, 28, 1}
	case "resnet":
		m, err = ResNetSeed()
		shape = []int{n, 32, 32, 3}
	}
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: opt, Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	size := 1
	for _, d := range shape {
		size *= d
	}
	xs := make([]float32, size)
	for i := range xs {
		xs[i] = r.Float32()
	}
	ys := make([]float32, n)
	for i := range ys {
		ys[i] = float32(r.IntN(10))
	}
	return m, tensor.New(tensor.WithShape(shape...), tensor.WithBacking(xs)), tensor.New(tensor.WithShape(n), tensor.WithBacking(ys))
}

// stepUpdates runs one SGD step of the seed CNN under policy and returns
// each weight's update and the step's loss.
func stepUpdates(t *testing.T, policy string) ([][]float32, float64) {
	m, x, y := seedModel(t, "cnn", policy, optimizers.NewSGD(optimizers.LearningRate(0.1)), 32)
	var before [][]float32
	for _, v := range m.Weights() {
		before = append(before, append([]float32(nil), v.Data(0)...))
	}
	h, err := m.Fit(x, y, keras.FitConfig{BatchSize: 32, NoShuffle: true, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range m.Weights() {
		for j, w := range v.Data(0) {
			before[i][j] = w - before[i][j]
		}
	}
	return before, h.History["loss"][0]
}

// TestMixedBFloat16GEMMStep runs one training step of the seed CNN under
// mixed_bfloat16 on bfloat16 GEMMs and again with float32 GEMMs
// (GOKERAS_BF16_GEMM=0): the GEMM operands are the same bfloat16 values,
// so loss and updates agree but for float32 summation order (and the
// bfloat16 rounding of a layer output that this order tips over). A
// float32 step is far from both (the mixed policy does round).
func TestMixedBFloat16GEMMStep(t *testing.T) {
	fast, lossFast := stepUpdates(t, "mixed_bfloat16")
	t.Setenv("GOKERAS_BF16_GEMM", "0")
	slow, lossSlow := stepUpdates(t, "mixed_bfloat16")
	f32, loss32 := stepUpdates(t, "float32")
	if d := math.Abs(lossFast - lossSlow); d > 1e-4*math.Abs(lossSlow) {
		t.Errorf("loss %v on bfloat16 GEMMs, %v on float32 GEMMs", lossFast, lossSlow)
	}
	t.Logf("loss: bfloat16 GEMMs %v, float32 GEMMs %v, float32 policy %v", lossFast, lossSlow, loss32)
	far := false
	for i := range slow {
		scale := 0.0
		for _, u := range slow[i] {
			scale = max(scale, math.Abs(float64(u)))
		}
		worst, worst32 := 0.0, 0.0
		for j := range slow[i] {
			worst = max(worst, math.Abs(float64(fast[i][j]-slow[i][j])))
			worst32 = max(worst32, math.Abs(float64(f32[i][j]-slow[i][j])))
		}
		t.Logf("weight %d: max |update| %.3g, bfloat16 vs float32 GEMMs %.3g, vs float32 policy %.3g", i, scale, worst, worst32)
		if worst > 1e-2*scale {
			t.Errorf("weight %d: updates differ by %g (largest update %g)", i, worst, scale)
		}
		if worst32 > 1e-2*scale {
			far = true
		}
	}
	if !far {
		t.Error("the float32 policy's step is as close as the bfloat16 GEMMs': the comparison cannot fail")
	}
}

// BenchmarkMixedTrainStep times Fit's train step (one batch of 64 per Fit
// call, after a warm-up that traces) of the seed CNN and the seed ResNet
// under float32, mixed_bfloat16 with float32 GEMMs (GOKERAS_BF16_GEMM=0:
// the casts alone) and mixed_bfloat16 on bfloat16 GEMMs.
//
//	go test ./examples/internal/models/ -run '^$' -bench MixedTrainStep -cpu 1 -count 5
func BenchmarkMixedTrainStep(b *testing.B) {
	for _, model := range []string{"cnn", "resnet"} {
		for _, c := range []struct{ name, policy, env string }{
			{"float32", "float32", ""},
			{"mixed_bfloat16_f32gemm", "mixed_bfloat16", "0"},
			{"mixed_bfloat16", "mixed_bfloat16", ""},
		} {
			b.Run(fmt.Sprintf("model=%s/policy=%s", model, c.name), func(b *testing.B) {
				b.Setenv("GOKERAS_BF16_GEMM", c.env)
				const batch = 64
				m, x, y := seedModel(b, model, c.policy, optimizers.NewAdam(), batch)
				cfg := keras.FitConfig{BatchSize: batch, NoShuffle: true, Verbose: keras.VerboseSilent}
				if _, err := m.Fit(x, y, cfg); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := m.Fit(x, y, cfg); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/step")
			})
		}
	}
}
