package keras_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// withPolicy sets the global policy for one test.
func withPolicy(t *testing.T, name string) {
	t.Helper()
	if err := mixedprecision.SetGlobalPolicy(name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mixedprecision.SetGlobal(mixedprecision.DTypePolicy{}) })
}

// mixedKeras is testdata/keras/mixed_policy_config.json, written by
// tools/keras_reference/mixed_vectors.py.
type mixedKeras struct {
	Dense, Activation struct {
		Config map[string]any
	}
	DenseComputeDType       string         `json:"dense_compute_dtype"`
	DenseVariableDType      string         `json:"dense_variable_dtype"`
	CompiledOptimizerClass  string         `json:"compiled_optimizer_class"`
	CompiledOptimizerConfig map[string]any `json:"compiled_optimizer_config"`
}

func readMixedKeras(t *testing.T) mixedKeras {
	t.Helper()
	raw, err := os.ReadFile("testdata/keras/mixed_policy_config.json")
	if err != nil {
		t.Fatal(err)
	}
	var m mixedKeras
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMixedPolicyLayerConfigMatchesKeras: a layer made under
// mixed_bfloat16 takes it; one given dtype "float32" keeps float32; their
// configs' "dtype" entries are Keras 3's.
func TestMixedPolicyLayerConfigMatchesKeras(t *testing.T) {
	ref := readMixedKeras(t)
	withPolicy(t, "mixed_bfloat16")
	d := layers.NewDense(3, layers.WithName("d_mixed"))
	a := layers.NewActivation("softmax", layers.WithName("out32"), layers.WithDtype("float32"))
	if d.Err() != nil || a.Err() != nil {
		t.Fatal(d.Err(), a.Err())
	}
	if d.ComputeDType() != ref.DenseComputeDType || d.VariableDType() != ref.DenseVariableDType {
		t.Errorf("Dense dtypes %s/%s, Keras %s/%s", d.ComputeDType(), d.VariableDType(), ref.DenseComputeDType, ref.DenseVariableDType)
	}
	roundTrip := func(v any) any {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := roundTrip(d.GetConfig()["dtype"]), ref.Dense.Config["dtype"]; !reflect.DeepEqual(got, want) {
		t.Errorf("Dense dtype config %v, Keras %v", got, want)
	}
	if got, want := roundTrip(a.GetConfig()["dtype"]), ref.Activation.Config["dtype"]; !reflect.DeepEqual(got, want) {
		t.Errorf("Activation dtype config %v, Keras %v", got, want)
	}
	// Read back from Keras' configs.
	l, err := keras.LayerFromConfig("Dense", ref.Dense.Config)
	if err != nil {
		t.Fatal(err)
	}
	mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	if p := l.(*layers.Dense).DTypePolicy().Name(); p != "mixed_bfloat16" {
		t.Errorf("Dense from Keras' config has policy %s", p)
	}
	l, err = keras.LayerFromConfig("Activation", ref.Activation.Config)
	if err != nil {
		t.Fatal(err)
	}
	if p := l.(*layers.Activation).DTypePolicy().Name(); p != "float32" {
		t.Errorf("Activation from Keras' config has policy %s", p)
	}
	if p := layers.NewDense(2).DTypePolicy().Name(); p != "float32" {
		t.Errorf("a layer made after the global policy went back has %s", p)
	}
	if l := layers.NewDense(2, layers.WithDtype("int8")); l.Err() == nil {
		t.Error("dtype int8 accepted as a layer's policy")
	}
	if _, err := keras.LayerFromConfig("Dense", map[string]any{"units": 2.0, "dtype": map[string]any{"class_name": "DTypePolicy", "config": map[string]any{"name": "mixed_int3"}}}); err == nil {
		t.Error("a config with policy mixed_int3 loaded")
	}
}

// bf16Model is Dense(relu) -> Dense -> softmax (dtype float32) under the
// current global policy, with known weights.
func mixedTestModel(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(
		layers.NewDense(5, layers.WithActivation("relu"), layers.WithInputShape(4)),
		layers.NewDense(3),
		layers.NewActivation("softmax", layers.WithDtype("float32")),
	)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	for _, w := range m.Weights() {
		d := w.Data(0)
		for i := range d {
			d[i] = float32(r.NormFloat64())
		}
	}
	return m
}

// TestMixedPolicyForward: under mixed_bfloat16 each Dense computes on
// bfloat16-rounded inputs and weights and returns a bfloat16 output; the
// float32 softmax does not round. The reference is computed here in
// float64 from the rounded operands.
func TestMixedPolicyForward(t *testing.T) {
	for _, pol := range []struct {
		name  string
		round func(float32) float32
	}{{"mixed_bfloat16", ops.RoundBFloat16}, {"mixed_float16", ops.RoundFloat16}} {
		t.Run(pol.name, func(t *testing.T) {
			withPolicy(t, pol.name)
			m := mixedTestModel(t)
			const n = 6
			r := rand.New(rand.NewPCG(1, 2))
			x := make([]float32, n*4)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			got, err := m.Predict(tensor.New(tensor.WithShape(n, 4), tensor.WithBacking(append([]float32(nil), x...))), keras.PredictConfig{Verbose: keras.VerboseSilent})
			if err != nil {
				t.Fatal(err)
			}
			ls := m.Layers()
			dense := func(in []float32, l layers.Layer, relu bool) []float32 {
				w, b := l.Weights()[0], l.Weights()[1]
				k, units := w.Shape()[0], w.Shape()[1]
				out := make([]float32, n*units)
				for i := range n {
					for j := range units {
						s := float64(pol.round(b.Data(0)[j]))
						for p := range k {
							s += float64(pol.round(in[i*k+p])) * float64(pol.round(w.Data(0)[p*units+j]))
						}
						if relu && s < 0 {
							s = 0
						}
						out[i*units+j] = pol.round(float32(s))
					}
				}
				return out
			}
			h := dense(x, ls[0], true)
			z := dense(h, ls[1], false)
			for i := range n {
				var mx, sum float64 = math.Inf(-1), 0
				for j := range 3 {
					mx = math.Max(mx, float64(z[i*3+j]))
				}
				for j := range 3 {
					sum += math.Exp(float64(z[i*3+j]) - mx)
				}
				for j := range 3 {
					want := math.Exp(float64(z[i*3+j])-mx) / sum
					g := float64(got.Data().([]float32)[i*3+j])
					// one unit of the low precision in z moves the softmax
					// by about that much relative
					tol := 1e-2
					if pol.name == "mixed_float16" {
						tol = 2e-3
					}
					if math.Abs(g-want) > tol*math.Max(want, 1e-3) {
						t.Errorf("row %d: softmax[%d] = %g, reference %g", i, j, g, want)
					}
				}
			}
			// The Dense outputs are rounded; the float32 softmax's are not.
			out := got.Data().([]float32)
			unrounded := 0
			for _, v := range out {
				if pol.round(v) != v {
					unrounded++
				}
			}
			if unrounded == 0 {
				t.Errorf("every softmax output is %s-representable: the float32 layer rounded", pol.name)
			}
		})
	}
}

// TestMixedPolicySaveLoad: a model saved under mixed_bfloat16 loads with
// its layers' policies whatever the global policy is then, and predicts
// the same.
func TestMixedPolicySaveLoad(t *testing.T) {
	withPolicy(t, "mixed_bfloat16")
	m := mixedTestModel(t)
	x := tensor.New(tensor.WithShape(3, 4), tensor.WithBacking([]float32{1, -2, 0.5, 3, 0.25, 0.125, -1, 2, 7, 1, -3, 0}))
	want, err := m.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mixed.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	back, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	wantPol := []string{"mixed_bfloat16", "mixed_bfloat16", "float32"}
	for i, l := range back.Layers() {
		pl, ok := l.(interface {
			DTypePolicy() mixedprecision.DTypePolicy
		})
		if !ok {
			t.Fatalf("layer %s has no policy", l.Name())
		}
		if pl.DTypePolicy().Name() != wantPol[i] {
			t.Errorf("loaded layer %s: policy %s, want %s", l.Name(), pl.DTypePolicy().Name(), wantPol[i])
		}
	}
	got, err := back.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Data(), want.Data()) {
		t.Errorf("loaded model predicts %v, saved one %v", got.Data(), want.Data())
	}
}

// TestMixedFloat16CompileWrapsLossScale: Compile under mixed_float16
// wraps the optimizer in a LossScaleOptimizer named as Keras names it;
// not under mixed_bfloat16.
func TestMixedFloat16CompileWrapsLossScale(t *testing.T) {
	ref := readMixedKeras(t)
	withPolicy(t, "mixed_float16")
	m := mixedTestModel(t)
	if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "categorical_crossentropy"}); err != nil {
		t.Fatal(err)
	}
	lso, ok := m.Optimizer().(*optimizers.LossScaleOptimizer)
	if !ok {
		t.Fatalf("optimizer %T, Keras %s", m.Optimizer(), ref.CompiledOptimizerClass)
	}
	if lso.Name() != ref.CompiledOptimizerConfig["name"] || lso.GetConfig()["initial_scale"] != ref.CompiledOptimizerConfig["initial_scale"] {
		t.Errorf("config %v, Keras %v", lso.GetConfig(), ref.CompiledOptimizerConfig)
	}
	withPolicy(t, "mixed_bfloat16")
	m = mixedTestModel(t)
	if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "categorical_crossentropy"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Optimizer().(*optimizers.LossScaleOptimizer); ok {
		t.Error("mixed_bfloat16 wrapped the optimizer in a LossScaleOptimizer")
	}
}

// TestMixedFloat16OverflowSkipsStep: a loss whose scaled gradient
// overflows float16 skips the step (weights and iterations stay) and
// halves the scale, in Fit.
func TestMixedFloat16OverflowSkipsStep(t *testing.T) {
	withPolicy(t, "mixed_float16")
	m, err := keras.NewSequential(layers.NewDense(2, layers.WithInputShape(3)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	before := m.Weights()[0].Numpy()
	// d(mse)/dy = (y - t) for 4 samples x 2 outputs: about 1000/4, times
	// 2^15 is far beyond float16's 65504.
	x := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0}))
	y := tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float32{1000, -1000, 1000, 1000, -1000, 1000, 1000, 1000}))
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 4, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	lso := m.Optimizer().(*optimizers.LossScaleOptimizer)
	if lso.DynamicScale() != 16384 || lso.Iterations() != 0 {
		t.Errorf("after an overflowing step: scale %g iterations %d, want 16384 0", lso.DynamicScale(), lso.Iterations())
	}
	if !reflect.DeepEqual(m.Weights()[0].Numpy(), before) {
		t.Error("the overflowing step changed the kernel")
	}
	// The scale halves each step until the gradient fits, then steps.
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 10, BatchSize: 4, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	if lso.Iterations() == 0 || lso.DynamicScale() >= 16384 {
		t.Errorf("after 10 more steps: scale %g iterations %d", lso.DynamicScale(), lso.Iterations())
	}
	if reflect.DeepEqual(m.Weights()[0].Numpy(), before) {
		t.Error("no step was ever applied")
	}
}

// seedCNN is examples/internal/models.MNISTCNN (internal to the examples).
func seedCNN(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMixedPrecisionSeedCNNTrains: the seed CNN trains on CPU under both
// mixed policies (dynamic loss scaling under mixed_float16): a few steps
// on a fixed batch, loss finite and decreasing.
func TestMixedPrecisionSeedCNNTrains(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a CNN")
	}
	const n = 32
	r := rand.New(rand.NewPCG(7, 8))
	xs := make([]float32, n*28*28)
	ys := make([]float32, n)
	for i := range n {
		c := i % 10
		ys[i] = float32(c)
		for p := range 28 * 28 {
			v := 0.1 * r.Float32()
			if p/28 >= 2*c && p/28 < 2*c+6 { // a bar whose row tells the class
				v += 0.9
			}
			xs[i*28*28+p] = v
		}
	}
	for _, pol := range []string{"mixed_float16", "mixed_bfloat16"} {
		t.Run(pol, func(t *testing.T) {
			withPolicy(t, pol)
			layers.SetRandomSeed(3)
			m := seedCNN(t)
			if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(1e-3)),
				Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
				t.Fatal(err)
			}
			x := tensor.New(tensor.WithShape(n, 28, 28, 1), tensor.WithBacking(xs))
			y := tensor.New(tensor.WithShape(n), tensor.WithBacking(ys))
			h, err := m.Fit(x, y, keras.FitConfig{Epochs: 6, BatchSize: n, Verbose: keras.VerboseSilent, NoShuffle: true})
			if err != nil {
				t.Fatal(err)
			}
			loss := h.History["loss"]
			for _, l := range loss {
				if math.IsNaN(l) || math.IsInf(l, 0) {
					t.Fatalf("loss %v", loss)
				}
			}
			if !(loss[len(loss)-1] < loss[0]) {
				t.Errorf("loss did not decrease: %v", loss)
			}
			t.Logf("%s losses %v", pol, loss)
			if pol == "mixed_float16" {
				if _, ok := m.Optimizer().(*optimizers.LossScaleOptimizer); !ok {
					t.Errorf("optimizer %T", m.Optimizer())
				}
			}
		})
	}
}

// TestMixedFloat16SaveLoadCompiled: a model compiled under mixed_float16
// saves its inner optimizer in the compile config, as Keras does, and is
// wrapped in a LossScaleOptimizer again when it loads.
func TestMixedFloat16SaveLoadCompiled(t *testing.T) {
	withPolicy(t, "mixed_float16")
	m := mixedTestModel(t)
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.003)), Loss: "categorical_crossentropy"}); err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking([]float32{1, 2, 3, 4, -1, 0, 1, 0}))
	y := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float32{1, 0, 0, 0, 0, 1}))
	if _, err := m.Fit(x, y, keras.FitConfig{Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f16.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	back, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	lso, ok := back.Optimizer().(*optimizers.LossScaleOptimizer)
	if !ok {
		t.Fatalf("loaded optimizer %T, want a LossScaleOptimizer", back.Optimizer())
	}
	if _, ok := lso.InnerOptimizer().(*optimizers.Adam); !ok || math.Abs(lso.CurrentLearningRate()-0.003) > 1e-9 {
		t.Errorf("inner optimizer %T lr %g", lso.InnerOptimizer(), lso.CurrentLearningRate())
	}
	if !reflect.DeepEqual(back.Weights()[0].Numpy(), m.Weights()[0].Numpy()) {
		t.Error("weights differ after loading")
	}
}

// TestMixedPolicyLayerExceptions: under mixed_bfloat16 an Embedding's
// integer ids are not rounded (id 257 is not bfloat16-representable), its
// looked-up rows are; batch normalization reads its statistics unrounded
// (float32), as Keras' autocast=False weights.
func TestMixedPolicyLayerExceptions(t *testing.T) {
	withPolicy(t, "mixed_bfloat16")
	in := layers.Input([]int{2}, layers.WithDtype("int32"))
	emb := layers.NewEmbedding(300, 4)
	m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{layers.Apply(emb, in)})
	if err != nil {
		t.Fatal(err)
	}
	table := emb.Weights()[0].Data(0)
	for i := range table {
		table[i] = float32(i/4-250) + float32(i%4)*0.25 // rows 256 and 257 differ in bfloat16
	}
	got, err := m.Predict(tensor.New(tensor.WithShape(1, 2), tensor.WithBacking([]float32{257, 3})), keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	out := got.Data().([]float32)
	for j := range 4 {
		if want := ops.RoundBFloat16(table[257*4+j]); out[j] != want {
			t.Errorf("embedding of id 257 [%d] = %g, want row 257 rounded %g", j, out[j], want)
		}
	}

	bn := layers.NewBatchNormalization(layers.WithInputShape(3))
	bm, err := keras.NewSequential(bn)
	if err != nil {
		t.Fatal(err)
	}
	// moving_mean (non-trainable) holds values bfloat16 cannot hold.
	var mean *ops.Variable
	for _, w := range bn.Weights() {
		if strings.HasSuffix(w.Name(), "moving_mean") {
			mean = w
		}
	}
	if mean == nil {
		t.Fatalf("no moving_mean in %v", bn.Weights())
	}
	copy(mean.Data(0), []float32{1.001, -2.003, 0.5})
	x := []float32{1, 2, 4}
	got, err = bm.Predict(tensor.New(tensor.WithShape(1, 3), tensor.WithBacking(append([]float32(nil), x...))), keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range got.Data().([]float32) {
		// gamma 1, beta 0, moving_variance 1, epsilon 1e-3, in float32,
		// then the output rounded.
		want := ops.RoundBFloat16(float32(float64(x[j]-mean.Data(0)[j]) / math.Sqrt(1+1e-3)))
		if v != want {
			t.Errorf("batch norm [%d] = %g, want %g (statistics in float32)", j, v, want)
		}
	}
}

// TestMixedFloat16LoadsKerasModel loads a model Keras saved after
// training under mixed_float16 (tools/keras_reference/mixed_vectors.py):
// the layers keep their policies, the optimizer is wrapped again, and the
// predictions equal Keras' (computed in real float16) to float16's
// precision.
func TestMixedFloat16LoadsKerasModel(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/mixed_float16.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		X, Predictions []float32
		Policies       []string
		Optimizer      string
		Inner          string  `json:"inner_optimizer"`
		DynamicScale   float64 `json:"dynamic_scale"`
		Iterations     int64
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	m, err := keras.LoadModel("testdata/keras/mixed_float16.keras")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range m.Layers() {
		pl, ok := l.(interface {
			DTypePolicy() mixedprecision.DTypePolicy
		})
		if !ok || pl.DTypePolicy().Name() != ref.Policies[i] {
			t.Errorf("layer %s: policy %v, Keras %s", l.Name(), pl, ref.Policies[i])
		}
	}
	lso, ok := m.Optimizer().(*optimizers.LossScaleOptimizer)
	if !ok || ref.Optimizer != "LossScaleOptimizer" {
		t.Fatalf("optimizer %T, Keras %s", m.Optimizer(), ref.Optimizer)
	}
	if _, ok := lso.InnerOptimizer().(*optimizers.Adam); !ok || ref.Inner != "Adam" {
		t.Errorf("inner optimizer %T, Keras %s", lso.InnerOptimizer(), ref.Inner)
	}
	if it, _, s := lsoState(lso); it != ref.Iterations || s != ref.DynamicScale {
		t.Errorf("loaded optimizer state: iterations %d, dynamic_scale %g; Keras %d, %g", it, s, ref.Iterations, ref.DynamicScale)
	}
	got, err := m.Predict(tensor.New(tensor.WithShape(len(ref.X)/3, 3), tensor.WithBacking(ref.X)), keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, v := range got.Data().([]float32) {
		d := math.Abs(float64(v - ref.Predictions[i]))
		worst = math.Max(worst, d)
		if d > 1e-5 {
			t.Errorf("prediction %d = %g, Keras %g", i, v, ref.Predictions[i])
		}
	}
	t.Logf("largest difference from Keras' float16 predictions: %.3g", worst)
}

// TestMixedBFloat16CNNMatchesKeras: a CNN of the seed CNN's shape, made
// and saved by Keras under mixed_bfloat16, predicts in gokeras the logits
// Keras computes in real bfloat16 (oneDNN's bfloat16 convolutions and
// GEMMs, rounded once per layer), to within one bfloat16 unit, where
// float32 logits are far off.
func TestMixedBFloat16CNNMatchesKeras(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/mixed_bfloat16_cnn.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		X       []float32
		BF16    []float32 `json:"logits_bfloat16"`
		Float32 []float32 `json:"logits_float32"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	m, err := keras.LoadModel("testdata/keras/mixed_bfloat16_cnn.keras")
	if err != nil {
		t.Fatal(err)
	}
	n := len(ref.X) / (28 * 28)
	got, err := m.Predict(tensor.New(tensor.WithShape(n, 28, 28, 1), tensor.WithBacking(ref.X)), keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	var worst, off32 float64
	exact := 0
	for i, v := range got.Data().([]float32) {
		k := ref.BF16[i]
		ulp := math.Abs(float64(ops.RoundBFloat16(k*(1+1.0/128)) - k))
		d := math.Abs(float64(v - k))
		if d > ulp {
			t.Errorf("logit %d = %g, Keras bfloat16 %g (float32 %g)", i, v, k, ref.Float32[i])
		}
		if v == k {
			exact++
		}
		worst = math.Max(worst, d)
		off32 = math.Max(off32, math.Abs(float64(ref.Float32[i]-k)))
	}
	t.Logf("%d of %d logits equal Keras' bfloat16 ones, the largest difference %.3g; Keras' float32 logits differ by up to %.3g", exact, len(ref.BF16), worst, off32)
	if off32 == 0 {
		t.Error("the float32 reference equals the bfloat16 one: the vectors do not tell the precisions apart")
	}
}
