package distribute_test

import (
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestMirroredEquivalenceMixed is TestMirroredEquivalence under both
// mixed policies: the seed CNN trained on 2 replicas equals 1 replica,
// every replica's copies stay bitwise equal, and under mixed_float16 the
// loss scale and the iterations agree. Each replica rounds its own part
// of the gradient to the compute dtype before the all-reduce (as Keras'
// replicas cast their bfloat16/float16 gradients to float32), so the
// tolerance is that of the compute dtype rather than float32's 1e-5.
func TestMirroredEquivalenceMixed(t *testing.T) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	x, y := images(33, 28, 28, 9)
	for _, c := range []struct {
		policy string
		tol    float64
	}{{"mixed_bfloat16", 1e-2}, {"mixed_float16", 5e-4}} {
		t.Run(c.policy, func(t *testing.T) {
			if err := mixedprecision.SetGlobalPolicy(c.policy); err != nil {
				t.Fatal(err)
			}
			defer mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
			ref := trainMixed(t, 1, x, y, 10)
			m := trainMixed(t, 2, x, y, 10)
			// Differences relative to the model's largest weight: a bias's
			// gradient sums terms that cancel, and each replica rounds
			// its partial sum, so a bias alone may differ by more
			// relative to its own (small) size.
			scale := 0.0
			for _, v := range ref.Weights() {
				for _, w := range v.Data(0) {
					scale = math.Max(scale, math.Abs(float64(w)))
				}
			}
			worst := 0.0
			for i, v := range m.Weights() {
				d := 0.0
				for j, w := range v.Data(0) {
					d = math.Max(d, math.Abs(float64(w)-float64(ref.Weights()[i].Data(0)[j])))
				}
				d /= scale
				worst = math.Max(worst, d)
				if d > c.tol {
					t.Errorf("%s: 2 replicas: %s differs from 1 replica by %.3g (relative to the largest weight)", c.policy, v.Name(), d)
				}
			}
			t.Logf("%s: largest difference 2 vs 1 replica: %.3g of the largest weight", c.policy, worst)
			if p := m.Layers()[0].(*layers.Conv2D).DTypePolicy().Name(); p != c.policy {
				t.Errorf("layer policy %s", p)
			}
			lso, ok := m.Optimizer().(*optimizers.LossScaleOptimizer)
			if c.policy == "mixed_float16" {
				refLSO := ref.Optimizer().(*optimizers.LossScaleOptimizer)
				if !ok || lso.DynamicScale() != refLSO.DynamicScale() || lso.Iterations() != refLSO.Iterations() || lso.Iterations() == 0 {
					t.Errorf("loss scaling: 2 replicas %v, 1 replica scale %g iterations %d", m.Optimizer(), refLSO.DynamicScale(), refLSO.Iterations())
				}
			} else if ok {
				t.Error("mixed_bfloat16 scaled the loss")
			}
		})
	}
}

// TestMirroredEquivalenceMixedOneStep compares one step of 20 examples
// (10 per replica) relative to the update itself: only the rounding of
// each replica's partial gradient differs, a far smaller difference than
// a replica's gradient left out or counted twice would make.
func TestMirroredEquivalenceMixedOneStep(t *testing.T) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	x, y := images(20, 28, 28, 4)
	for _, c := range []struct {
		policy string
		tol    float64
	}{{"float32", 1e-4}, {"mixed_bfloat16", 2e-2}, {"mixed_float16", 3e-3}} {
		t.Run(c.policy, func(t *testing.T) {
			if err := mixedprecision.SetGlobalPolicy(c.policy); err != nil {
				t.Fatal(err)
			}
			defer mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
			layers.SetRandomSeed(42)
			ls, _ := cnn()
			m0, err := keras.NewSequential(ls...)
			if err != nil {
				t.Fatal(err)
			}
			ref := trainMixed(t, 1, x, y, 20)
			m := trainMixed(t, 2, x, y, 20)
			worst := 0.0
			for i, v := range m.Weights() {
				var d, u float64
				for j, w := range v.Data(0) {
					r := float64(ref.Weights()[i].Data(0)[j])
					d = math.Max(d, math.Abs(float64(w)-r))
					u = math.Max(u, math.Abs(r-float64(m0.Weights()[i].Data(0)[j])))
				}
				if u == 0 {
					t.Fatalf("%s did not change", v.Name())
				}
				worst = math.Max(worst, d/u)
				if d > c.tol*u {
					t.Errorf("%s: %s: 2 replicas differ from 1 by %.3g of the update", c.policy, v.Name(), d/u)
				}
			}
			t.Logf("%s: one step, 2 vs 1 replica: largest difference %.3g of the update", c.policy, worst)
		})
	}
}

// TestMirroredLossScaleSkipsTogether: under mixed_float16 the gradient
// of only replica 0's half of the batch overflows float16; both replicas
// skip the step and halve their scale, so their copies stay equal.
func TestMirroredLossScaleSkipsTogether(t *testing.T) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMirroredStrategy(devices(2)...)
	if err != nil {
		t.Fatal(err)
	}
	checkSkipsTogether(t, s)
}

// TestMultiWorkerLossScaleSkipsTogether is the same through a
// MultiWorkerMirroredStrategy's collectives (one process, two replicas).
func TestMultiWorkerLossScaleSkipsTogether(t *testing.T) {
	// Its own devices, so that it passes alone (-run) and not only after a
	// test that made them.
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.LocalDevices(devices(2)...))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkSkipsTogether(t, s)
}

func checkSkipsTogether(t *testing.T, s interface{ Scope() func() }) {
	t.Helper()
	if err := mixedprecision.SetGlobalPolicy("mixed_float16"); err != nil {
		t.Fatal(err)
	}
	defer mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	exit := s.Scope()
	m, err := keras.NewSequential(layers.NewDense(2, layers.WithInputShape(3)))
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: losses.NewMeanSquaredError()})
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	before := m.Weights()[0].Numpy()
	x := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0}))
	// Rows 0-1 (replica 0) want 1000s: d(mse)/dy times 2^15 overflows
	// float16; rows 2-3 (replica 1) are already fitted well enough not to.
	y := tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float32{1000, -1000, 1000, 1000, 0, 0, 0, 0}))
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 4, NoShuffle: true, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	lso := m.Optimizer().(*optimizers.LossScaleOptimizer)
	if lso.DynamicScale() != 16384 || lso.Iterations() != 0 {
		t.Errorf("scale %g iterations %d, want 16384 0", lso.DynamicScale(), lso.Iterations())
	}
	if n := m.Weights()[0].Replicas(); n != 2 {
		t.Fatalf("the kernel has %d copies, want one per replica (2)", n)
	}
	for r := range 2 {
		w := m.Weights()[0].Data(r)
		for j := range w {
			if w[j] != before[j] {
				t.Fatalf("replica %d stepped: %v, before %v", r, w, before)
			}
		}
	}
	for _, v := range lso.Variables() {
		if v.Replicas() == 2 && math.Float32bits(v.Data(0)[0]) != math.Float32bits(v.Data(1)[0]) {
			t.Errorf("%s differs across replicas: %v %v", v.Name(), v.Data(0), v.Data(1))
		}
	}
}

// trainMixed fits the seed CNN under the global policy with n replicas:
// plain SGD at a small learning rate for one epoch (33 examples in steps
// of 10, 10, 10 and 3), so that the comparison sees the rounding of one
// step's gradients rather than how a chaotic trajectory amplifies it.
func trainMixed(t *testing.T, n int, x, y *tensor.Dense, batch int) *keras.Model {
	t.Helper()
	s, err := distribute.NewMirroredStrategy(devices(n)...)
	if err != nil {
		t.Fatal(err)
	}
	layers.SetRandomSeed(42)
	exit := s.Scope()
	ls, _ := cnn()
	m, err := keras.NewSequential(ls...)
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.01)),
			Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	check := &copiesIdentical{t: t}
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: batch, Seed: 5, Verbose: keras.VerboseSilent, Callbacks: []keras.Callback{check}}); err != nil {
		t.Fatalf("%d replicas: %v", n, err)
	}
	return m
}
