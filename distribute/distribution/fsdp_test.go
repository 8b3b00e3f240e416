package distribution_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/distribute/distribution"
	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// tokens are n rows of 5 ids below 12 and a class below 4.
func tokens(n int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 7))
	x := make([]float32, n*5)
	for i := range x {
		x[i] = float32(r.IntN(12))
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(4))
	}
	return tensor.New(tensor.WithShape(n, 5), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// smallModel is an Embedding, a LayerNormalization and two Dense layers.
func smallModel() []layers.Layer {
	return []layers.Layer{
		layers.NewEmbedding(12, 8, layers.WithInputShape(5)),
		layers.NewLayerNormalization(),
		layers.NewFlatten(),
		layers.NewDense(16, layers.WithActivation("relu")),
		layers.NewDense(4),
	}
}

// layoutMap splits every weight of smallModel along "model" (FSDP).
func layoutMap(t *testing.T, mesh *distribution.DeviceMesh) *distribution.LayoutMap {
	t.Helper()
	lm := distribution.NewLayoutMap(mesh)
	for _, kv := range []struct {
		key  string
		axes []string
	}{
		{".*embedding.*embeddings", []string{"", "model"}},
		{".*layer_normalization.*(gamma|beta)", []string{"model"}},
		{".*dense.*kernel", []string{"", "model"}},
		{".*dense.*bias", []string{"model"}},
	} {
		if err := lm.Set(kv.key, kv.axes...); err != nil {
			t.Fatal(err)
		}
	}
	return lm
}

func mesh(t testing.TB, data, model int) *distribution.DeviceMesh {
	t.Helper()
	if err := distribute.SetLogicalCPUs(4); err != nil {
		t.Fatal(err)
	}
	devs := make([]string, data*model)
	for i := range devs {
		devs[i] = fmt.Sprintf("cpu:%d", i)
	}
	m, err := distribution.NewDeviceMesh([]int{data, model}, []string{"batch", "model"}, devs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type trained struct {
	weights [][]float32
	loss    []float64
	model   *keras.Model
}

// train fits smallModel under s (nil: one device) with Adam for two epochs
// of the given data and batch size.
func train(t *testing.T, s engine.Strategy, x, y *tensor.Dense, batch int) trained {
	t.Helper()
	layers.SetRandomSeed(7)
	exit := func() {}
	if s != nil {
		exit = engine.EnterScope(s)
	}
	m, err := keras.NewSequential(smallModel()...)
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)),
			Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), Metrics: []any{"accuracy"}})
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	h, err := m.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: batch, Seed: 3, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatalf("Fit under %s: %v", engine.DescribeStrategy(orDefault(s)), err)
	}
	var out trained
	for _, w := range m.GetWeights() {
		out.weights = append(out.weights, append([]float32(nil), w.Data().([]float32)...))
	}
	out.loss = h.History["loss"]
	out.model = m
	return out
}

func orDefault(s engine.Strategy) engine.Strategy {
	if s == nil {
		return engine.Default()
	}
	return s
}

// maxDiff is the largest |a-b| over the weights, and whether all are
// bitwise equal.
func maxDiff(a, b trained) (float64, bool) {
	worst, same := 0.0, true
	for i := range a.weights {
		for j := range a.weights[i] {
			d := math.Abs(float64(a.weights[i][j]) - float64(b.weights[i][j]))
			worst = max(worst, d)
			same = same && a.weights[i][j] == b.weights[i][j]
		}
	}
	return worst, same
}

// TestModelParallelEqualsOneDevice: smallModel trained under ModelParallel
// with every weight split along "model" on 1x2, 2x1 and 2x2 meshes of
// logical CPUs ends, after 6 Adam steps (two epochs of 30 examples in
// batches of 12, the last of 6), with bitwise the weights and losses of a
// MirroredStrategy on the same devices, and within 2e-6 of one device on
// the same global batches.
func TestModelParallelEqualsOneDevice(t *testing.T) {
	x, y := tokens(30, 1)
	one := train(t, nil, x, y, 12)
	for _, sh := range [][2]int{{1, 2}, {2, 1}, {2, 2}} {
		t.Run(fmt.Sprintf("%dx%d", sh[0], sh[1]), func(t *testing.T) {
			ms := mesh(t, sh[0], sh[1])
			mp, err := distribution.NewModelParallel(layoutMap(t, ms), "batch")
			if err != nil {
				t.Fatal(err)
			}
			got := train(t, mp, x, y, 12)
			ds := make([]string, ms.Size())
			for i := range ds {
				ds[i] = fmt.Sprintf("/cpu:%d", i)
			}
			mirrored, err := distribute.NewMirroredStrategy(ds...)
			if err != nil {
				t.Fatal(err)
			}
			ref := train(t, mirrored, x, y, 12)
			if d, same := maxDiff(got, ref); !same {
				t.Errorf("weights differ from MirroredStrategy on %d devices by up to %g; want bitwise equal", ms.Size(), d)
			}
			for e := range ref.loss {
				if got.loss[e] != ref.loss[e] {
					t.Errorf("epoch %d loss %v, MirroredStrategy %v", e, got.loss[e], ref.loss[e])
				}
			}
			d, _ := maxDiff(got, one)
			t.Logf("%dx%d: largest weight difference from one device %.3g; losses %v, one device %v", sh[0], sh[1], d, got.loss, one.loss)
			if d > 2e-6 {
				t.Errorf("weights differ from one device by %g, want within 2e-6", d)
			}
			for e := range one.loss {
				if math.Abs(got.loss[e]-one.loss[e]) > 1e-6*math.Max(1, math.Abs(one.loss[e])) {
					t.Errorf("epoch %d loss %v, one device %v", e, got.loss[e], one.loss[e])
				}
			}
			// The shards were trained: the model's optimizer counted the
			// steps, and the weights moved from their start.
			if it := got.model.Optimizer().Iterations(); it != 6 {
				t.Errorf("the model's optimizer counts %d steps, want 6", it)
			}
		})
	}
}

// TestModelParallelUnevenBatches: batches the mesh does not divide (10
// rows on 4 devices, and a last batch of 1 row, which leaves 3 devices
// without rows) train as one device does.
func TestModelParallelUnevenBatches(t *testing.T) {
	x, y := tokens(31, 2)
	one := train(t, nil, x, y, 10)
	mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, 2, 2)), "batch")
	if err != nil {
		t.Fatal(err)
	}
	got := train(t, mp, x, y, 10)
	d, _ := maxDiff(got, one)
	t.Logf("largest weight difference from one device %.3g", d)
	if d > 2e-6 {
		t.Errorf("weights differ from one device by %g, want within 2e-6", d)
	}
	if it := got.model.Optimizer().Iterations(); it != 8 {
		t.Errorf("the model's optimizer counts %d steps, want 8", it)
	}
}

// TestDataParallelEqualsMirrored: DataParallel replicates everything: the
// same update as MirroredStrategy, bitwise.
func TestDataParallelEqualsMirrored(t *testing.T) {
	x, y := tokens(30, 4)
	if err := distribute.SetLogicalCPUs(4); err != nil {
		t.Fatal(err)
	}
	dp, err := distribution.NewDataParallel(nil, "cpu:0", "cpu:1", "cpu:2")
	if err != nil {
		t.Fatal(err)
	}
	got := train(t, dp, x, y, 12)
	mirrored, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1", "/cpu:2")
	if err != nil {
		t.Fatal(err)
	}
	ref := train(t, mirrored, x, y, 12)
	if d, same := maxDiff(got, ref); !same {
		t.Errorf("weights differ from MirroredStrategy by up to %g; want bitwise equal", d)
	}
	var weights int64
	for _, w := range got.weights {
		weights += 4 * int64(len(w))
	}
	if mem := dp.Memory(); mem[0].Shards != weights || mem[0].StepGathered != 0 {
		t.Errorf("DataParallel: shards %d B, %d B gathered in a step; want the whole weights %d B as shards, none gathered", mem[0].Shards, mem[0].StepGathered, weights)
	}
}

// TestBadLayoutFailsFit: a layout that does not fit a weight fails Fit with
// the variable, its shape and the reason, not a panic.
func TestBadLayoutFailsFit(t *testing.T) {
	x, y := tokens(8, 5)
	for _, c := range []struct {
		key  string
		axes []string
		want string
	}{
		{".*dense_?[0-9]*/bias", []string{"", "model"}, "more than the 1 dimensions"},
		{".*embedding.*embeddings", []string{"", "model"}, "not divisible by 3"},
		{".*dense.*kernel", []string{"model", "model"}, "same mesh axis"},
	} {
		if err := distribute.SetLogicalCPUs(4); err != nil {
			t.Fatal(err)
		}
		ms, err := distribution.NewDeviceMesh([]int{1, 3}, []string{"batch", "model"}, []string{"cpu:0", "cpu:1", "cpu:2"})
		if err != nil {
			t.Fatal(err)
		}
		lm := distribution.NewLayoutMap(ms)
		if err := lm.Set(c.key, c.axes...); err != nil {
			t.Fatal(err)
		}
		mp, err := distribution.NewModelParallel(lm, "")
		if err != nil {
			t.Fatal(err)
		}
		exit := mp.Scope()
		m, err := keras.NewSequential(smallModel()...)
		if err == nil {
			err = m.Compile(keras.CompileConfig{Optimizer: "adam", Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
		}
		exit()
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 8, Verbose: keras.VerboseSilent})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "variable") {
			t.Errorf("layout %q %q: Fit: %v; want an error naming the variable and saying %q", c.key, c.axes, err, c.want)
		}
	}
}

// TestClipnormRefusedOnSplitWeights: a norm over a whole gradient cannot
// be taken from a shard: refused with the reason.
func TestClipnormRefusedOnSplitWeights(t *testing.T) {
	x, y := tokens(8, 6)
	mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, 1, 2)), "batch")
	if err != nil {
		t.Fatal(err)
	}
	exit := mp.Scope()
	m, err := keras.NewSequential(smallModel()...)
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.ClipNorm(1)), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 8, Verbose: keras.VerboseSilent})
	if err == nil || !strings.Contains(err.Error(), "clipnorm") {
		t.Fatalf("Fit with clipnorm on split weights: %v, want a refusal naming clipnorm", err)
	}
}

func TestScopeAndSetDistribution(t *testing.T) {
	mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, 1, 2)), "batch")
	if err != nil {
		t.Fatal(err)
	}
	if distribution.Distribution() != nil {
		t.Fatal("a distribution is current before any was set")
	}
	exit := mp.Scope()
	if distribution.Distribution() != mp || engine.CurrentStrategy() != mp {
		t.Error("the scope did not make the distribution current")
	}
	exit()
	if distribution.Distribution() != nil || engine.CurrentStrategy() == engine.Strategy(mp) {
		t.Error("the scope's exit left the distribution current")
	}
	if err := distribution.SetDistribution(mp); err != nil {
		t.Fatal(err)
	}
	if distribution.Distribution() != mp || engine.CurrentStrategy() != mp {
		t.Error("SetDistribution did not make it current")
	}
	if err := distribution.SetDistribution(nil); err != nil {
		t.Fatal(err)
	}
	if distribution.Distribution() != nil || distribute.ScopeDepth() != 0 {
		t.Errorf("SetDistribution(nil) left a distribution or %d scopes", distribute.ScopeDepth())
	}
}

// TestModelParallelEvaluatesAndPredictsAsOneDevice: after training under
// a 2x2 ModelParallel, Evaluate and Predict (the gathered weights on every
// device, each its rows) give what one device gives with those weights.
func TestModelParallelEvaluatesAndPredictsAsOneDevice(t *testing.T) {
	x, y := tokens(13, 8)
	mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, 2, 2)), "batch")
	if err != nil {
		t.Fatal(err)
	}
	got := train(t, mp, x, y, 5)
	layers.SetRandomSeed(1)
	plain, err := keras.NewSequential(smallModel()...)
	if err == nil {
		err = plain.Compile(keras.CompileConfig{Optimizer: "adam", Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Build(5); err != nil {
		t.Fatal(err)
	}
	if err := plain.SetWeights(got.model.GetWeights()); err != nil {
		t.Fatal(err)
	}
	pg, err := got.model.Predict(x, keras.PredictConfig{BatchSize: 5, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	pp, err := plain.Predict(x, keras.PredictConfig{BatchSize: 5, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	a, b := pg.Data().([]float32), pp.Data().([]float32)
	if len(a) != len(b) || len(a) != 13*4 {
		t.Fatalf("predictions of %d and %d values, want %d", len(a), len(b), 13*4)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("prediction %d: %v under ModelParallel, %v on one device", i, a[i], b[i])
		}
	}
	eg, err := got.model.Evaluate(x, y, keras.EvaluateConfig{BatchSize: 5, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := plain.Evaluate(x, y, keras.EvaluateConfig{BatchSize: 5, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(eg["loss"]-ep["loss"]) > 1e-6 {
		t.Errorf("Evaluate loss %v under ModelParallel, %v on one device", eg["loss"], ep["loss"])
	}
}

// TestMixedLayoutsEqualMirrored: layouts that split along both mesh axes
// (a kernel on ("batch", "model")), along rows (the embedding's
// vocabulary), or not at all (biases, LayerNormalization) in one model:
// still bitwise MirroredStrategy on a 2x2 mesh.
func TestMixedLayoutsEqualMirrored(t *testing.T) {
	x, y := tokens(30, 9)
	ms := mesh(t, 2, 2)
	lm := distribution.NewLayoutMap(ms)
	for _, kv := range []struct {
		key  string
		axes []string
	}{
		{".*embedding.*", []string{"model", ""}},
		{"dense_?[0-9]*/kernel", []string{"batch", "model"}},
	} {
		if err := lm.Set(kv.key, kv.axes...); err != nil {
			t.Fatal(err)
		}
	}
	mp, err := distribution.NewModelParallel(lm, "batch")
	if err != nil {
		t.Fatal(err)
	}
	got := train(t, mp, x, y, 12)
	mirrored, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3")
	if err != nil {
		t.Fatal(err)
	}
	ref := train(t, mirrored, x, y, 12)
	if d, same := maxDiff(got, ref); !same {
		t.Errorf("weights differ from MirroredStrategy by up to %g; want bitwise equal", d)
	}
	var weights int64
	for _, w := range got.weights {
		weights += 4 * int64(len(w))
	}
	mem := mp.Memory()
	if mem[0].Shards >= weights || mem[0].Shards == 0 || mem[0].StepGathered == 0 {
		t.Errorf("device 0 holds %d B of shards of %d B of weights, gathered %d B: nothing was split", mem[0].Shards, weights, mem[0].StepGathered)
	}
}

// TestSetWeightsAndLearningRateBetweenFits: weights set and a learning rate
// changed between two Fits reach the devices' shards and optimizers, as
// they reach MirroredStrategy's copies; the step count goes on.
func TestSetWeightsAndLearningRateBetweenFits(t *testing.T) {
	x, y := tokens(24, 10)
	run := func(s engine.Strategy) trained {
		got := train(t, s, x, y, 8)
		ws := got.model.GetWeights()
		for _, w := range ws {
			d := w.Data().([]float32)
			for i := range d {
				d[i] *= 0.5
			}
		}
		if err := got.model.SetWeights(ws); err != nil {
			t.Fatal(err)
		}
		got.model.Optimizer().SetLearningRate(0.003)
		if _, err := got.model.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 8, Seed: 4, Verbose: keras.VerboseSilent}); err != nil {
			t.Fatal(err)
		}
		got.weights = nil
		for _, w := range got.model.GetWeights() {
			got.weights = append(got.weights, append([]float32(nil), w.Data().([]float32)...))
		}
		return got
	}
	mp, err := distribution.NewModelParallel(layoutMap(t, mesh(t, 1, 2)), "batch")
	if err != nil {
		t.Fatal(err)
	}
	got := run(mp)
	mirrored, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1")
	if err != nil {
		t.Fatal(err)
	}
	ref := run(mirrored)
	if d, same := maxDiff(got, ref); !same {
		t.Errorf("weights differ from MirroredStrategy by up to %g; want bitwise equal", d)
	}
	if it := got.model.Optimizer().Iterations(); it != 9 {
		t.Errorf("the model's optimizer counts %d steps, want 9", it)
	}
}
