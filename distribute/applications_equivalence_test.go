package distribute_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/racetest"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/applications"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// The seed's exercise (issue 30): a keras.applications model and a
// BERT-style encoder trained under MirroredStrategy with 2 replicas equal
// 1 replica on the same global batches.

// efficientNetFineTune is Keras' guide to fine-tuning EfficientNet
// ("Image classification via fine-tuning with EfficientNet") on 32x32
// images: EfficientNetB0 without its top, with the weights of the file
// pretrained (WithWeights, as Keras' weights= takes a path), called with
// training=False (its BatchNormalization layers keep their moving
// statistics and its stochastic-depth Dropouts pass through, as the guide
// has it), then pooling, a BatchNormalization of the head (trained, so
// its batch statistics are the replicas' synchronized ones) and a Dense
// of 10 classes. freeze says whether the base is frozen (the guide's first
// phase: only the head trains) or trainable (its second phase: every
// convolution fine-tunes).
func efficientNetFineTune(pretrained string, freeze bool) func(t *testing.T) *keras.Model {
	return func(t *testing.T) *keras.Model {
		t.Helper()
		base, err := applications.EfficientNetB0(applications.WithWeights(pretrained), applications.WithIncludeTop(false),
			applications.WithInputShape(32, 32, 3))
		if err != nil {
			t.Fatal(err)
		}
		base.SetTrainable(!freeze)
		in := layers.Input([]int{32, 32, 3})
		x := base.ApplyTraining(false, in)
		x = layers.Apply(layers.NewGlobalAveragePooling2D(layers.WithName("avg_pool")), x)
		x = layers.Apply(layers.NewBatchNormalization(layers.WithSynchronized(true)), x)
		out := layers.Apply(layers.NewDense(10, layers.WithName("pred")), x)
		m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// efficientNetB0Weights writes a seeded EfficientNetB0's weights (no
// top, 32x32) to a file: the "pretrained" weights each run starts from.
func efficientNetB0Weights(t *testing.T) string {
	t.Helper()
	layers.ClearSession()
	layers.SetRandomSeed(7)
	base, err := applications.EfficientNetB0(applications.WithWeights(""), applications.WithIncludeTop(false),
		applications.WithInputShape(32, 32, 3))
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/efficientnetb0_notop.weights.h5"
	if err := base.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// efficientNetSyncBN trains EfficientNetB0 whole, in training mode, as a
// tf.distribute user does from scratch: the architecture's config with
// every BatchNormalization synchronized=True (the batch statistics of the
// global batch, Keras' and TF's way to make N replicas normalize as 1;
// unsynchronized, each replica normalizes with its own part of the batch,
// in TensorFlow as here) and the stochastic-depth Dropouts at rate 0
// (each replica draws its own masks, in TensorFlow as here, so with
// dropout N replicas equal 1 only in distribution), rebuilt with
// ModelFromConfig and given the weights of the file, then pooling and a
// Dense of 10 classes.
func efficientNetSyncBN(pretrained string) func(t *testing.T) *keras.Model {
	return func(t *testing.T) *keras.Model {
		t.Helper()
		base, err := applications.EfficientNetB0(applications.WithWeights(""), applications.WithIncludeTop(false),
			applications.WithInputShape(32, 32, 3))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := base.GetConfig()
		if err != nil {
			t.Fatal(err)
		}
		var synced, dropouts int
		for _, l := range cfg["layers"].([]any) {
			l := l.(map[string]any)
			c := l["config"].(map[string]any)
			switch l["class_name"] {
			case "BatchNormalization":
				c["synchronized"] = true
				synced++
			case "Dropout":
				c["rate"] = 0.0
				dropouts++
			}
		}
		if synced != 49 || dropouts != 9 {
			t.Fatalf("EfficientNetB0's config: %d BatchNormalization and %d Dropout layers, want 49 and 9", synced, dropouts)
		}
		base, err = keras.ModelFromConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := base.LoadWeights(pretrained); err != nil {
			t.Fatal(err)
		}
		in := layers.Input([]int{32, 32, 3})
		x := layers.Apply(layers.NewGlobalAveragePooling2D(layers.WithName("avg_pool")), base.Apply(in))
		out := layers.Apply(layers.NewDense(10, layers.WithName("pred")), x)
		m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// tokenAndPosition is BERT's input embedding without segments: a token
// embedding plus a learned position embedding (a composite layer, its
// parts tracked).
type tokenAndPosition struct {
	layers.Base
	tokens, positions *layers.Embedding
}

func (l *tokenAndPosition) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := in[0]
	steps := x.Shape()[len(x.Shape())-1]
	ids := make([]float32, steps)
	for i := range ids {
		ids[i] = float32(i)
	}
	pos := layers.Call(l.positions, training, x.Trace().Constant(ops.Shape{steps}, ids))
	e := layers.Call(l.tokens, training, x)
	return ops.Add(e, ops.BroadcastTo(pos, e.Shape()))
}

// bertEncoder is a reduced BERT: token and position embeddings, a
// LayerNormalization, two post-norm encoder blocks (MultiHeadAttention of
// 2 heads, residual, LayerNormalization, a GELU feed-forward network,
// residual, LayerNormalization) and a classifier on the mean of the
// sequence. Dropout is left out: each replica draws its own masks (as in
// TensorFlow), so with dropout N replicas train as 1 only in
// distribution.
func bertEncoder(t *testing.T) *keras.Model {
	t.Helper()
	const steps, vocab, dim, heads, ff = 9, 40, 16, 2, 32
	in := layers.Input([]int{steps})
	x := layers.Apply(&tokenAndPosition{Base: layers.NewBase("TokenAndPositionEmbedding"),
		tokens: layers.NewEmbedding(vocab, dim), positions: layers.NewEmbedding(steps, dim)}, in)
	x = layers.Apply(layers.NewLayerNormalization(layers.WithEpsilon(1e-12), layers.WithName("embeddings_norm")), x)
	for range 2 {
		att := layers.Apply(layers.NewMultiHeadAttention(heads, dim/heads), x, x)
		x = layers.Apply(layers.NewLayerNormalization(layers.WithEpsilon(1e-12)), layers.Apply(layers.NewAdd(), x, att))
		h := layers.Apply(layers.NewDense(ff, layers.WithActivation("gelu")), x)
		h = layers.Apply(layers.NewDense(dim), h)
		x = layers.Apply(layers.NewLayerNormalization(layers.WithEpsilon(1e-12)), layers.Apply(layers.NewAdd(), x, h))
	}
	x = layers.Apply(layers.NewGlobalAveragePooling1D(), x)
	out := layers.Apply(layers.NewDense(2), x)
	m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// trainFunctional builds a model with build in the scope of an n-replica
// MirroredStrategy, compiles it with opt and sparse categorical
// crossentropy, and fits it on x, y for the epochs in batches of batch.
func trainFunctional(t *testing.T, n int, x, y *tensor.Dense, opt func() optimizers.Optimizer, build func(t *testing.T) *keras.Model, epochs, batch int) *keras.Model {
	t.Helper()
	s, err := distribute.NewMirroredStrategy(devices(n)...)
	if err != nil {
		t.Fatal(err)
	}
	layers.ClearSession()
	layers.SetRandomSeed(42)
	exit := s.Scope()
	m := build(t)
	err = m.Compile(keras.CompileConfig{Optimizer: opt(), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
		Metrics: []any{"accuracy"}})
	exit()
	if err != nil {
		t.Fatal(err)
	}
	check := &copiesIdentical{t: t}
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: epochs, BatchSize: batch, Seed: 5, Verbose: keras.VerboseSilent, Callbacks: []keras.Callback{check}}); err != nil {
		t.Fatalf("%d replicas: %v", n, err)
	}
	return m
}

// checkTwoReplicas trains the model with 1 and with 2 replicas for two
// epochs and compares every weight (trainable or not: the moving
// statistics too) and the history, and checks that most weights trained
// at all. zeroGrad names the weights whose gradient is zero in exact
// arithmetic: they move by rounding noise only (which Adam turns into
// full-size steps of either sign), so they are left out of the
// comparison.
func checkTwoReplicas(t *testing.T, x, y *tensor.Dense, opt func() optimizers.Optimizer, build func(t *testing.T) *keras.Model, tol float64, zeroGrad func(name string) bool) {
	t.Helper()
	layers.ClearSession()
	layers.SetRandomSeed(42)
	init := build(t).Weights()
	ref := trainFunctional(t, 1, x, y, opt, build, 2, 10)
	m := trainFunctional(t, 2, x, y, opt, build, 2, 10)
	refW, w := ref.Weights(), m.Weights()
	for k, h := range ref.History.History {
		for e, v := range h {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("1 replica: history %s[%d] = %v", k, e, v)
			}
		}
	}
	if len(w) != len(refW) || len(init) != len(refW) {
		t.Fatalf("%d weights with 2 replicas, %d with 1, %d built", len(w), len(refW), len(init))
	}
	var moved int
	for i, v := range w {
		if v.Replicas() != 2 {
			t.Fatalf("%s has %d copies, want 2", v.Name(), v.Replicas())
		}
		if zeroGrad != nil && zeroGrad(v.Name()) {
			continue
		}
		if d := relDiff(v.Data(0), refW[i].Data(0)); !(d <= tol) { // NaN fails too
			t.Errorf("2 replicas: %s differs from 1 replica by %.3g (relative)", v.Name(), d)
		}
		if relDiff(refW[i].Data(0), init[i].Data(0)) > 1e-4 {
			moved++
		}
	}
	// Most weights must have trained: a model whose gradients vanish (or
	// a step that updates nothing) would compare equal for nothing.
	if trainable := len(ref.TrainableVariables()); moved < trainable/2 {
		t.Errorf("only %d of %d weights changed in training (%d trainable)", moved, len(refW), trainable)
	}
	for k, want := range ref.History.History {
		got := m.History.History[k]
		for e := range want {
			if math.Abs(got[e]-want[e]) > 1e-4*math.Max(1, math.Abs(want[e])) {
				t.Errorf("2 replicas: history %s[%d] = %v, 1 replica: %v", k, e, got[e], want[e])
			}
		}
	}
}

// checkTwoReplicasSteps trains the model with 1 and with 2 replicas for
// one epoch in batches of batch and compares every weight to the scale
// of the training's updates: |w2 - w1| <= 5e-4 max|update| + 4 ulp(w1),
// where max|update| is the largest change of any weight in the 1-replica
// run. A model trained from scratch with batch statistics is chaotic: a
// relative nudge of 1e-7 to EfficientNetB0's initial weights moves a
// 1-replica run's loss by 2% after two epochs, so only the first steps
// compare tightly. A wrong all-reduce or loss scale is off by a whole
// update; the summation order of the replicas' parts of the batch (and
// the weights whose gradient is zero in exact arithmetic, which move by
// 1e-9) stays below: 1.7e-4 of the largest update at most, in the stem
// convolution (its gradient sums 16x16 positions of every image).
func checkTwoReplicasSteps(t *testing.T, x, y *tensor.Dense, opt func() optimizers.Optimizer, build func(t *testing.T) *keras.Model, batch int) {
	t.Helper()
	layers.ClearSession()
	layers.SetRandomSeed(42)
	init := build(t).Weights()
	ref := trainFunctional(t, 1, x, y, opt, build, 1, batch)
	m := trainFunctional(t, 2, x, y, opt, build, 1, batch)
	refW, w := ref.Weights(), m.Weights()
	if len(w) != len(refW) || len(init) != len(refW) {
		t.Fatalf("%d weights with 2 replicas, %d with 1, %d built", len(w), len(refW), len(init))
	}
	var scale float64
	for i, v := range refW {
		for j, f := range v.Data(0) {
			scale = math.Max(scale, math.Abs(float64(f-init[i].Data(0)[j])))
		}
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		t.Fatalf("largest update %v", scale)
	}
	var moved int
	for i, v := range w {
		if v.Replicas() != 2 {
			t.Fatalf("%s has %d copies, want 2", v.Name(), v.Replicas())
		}
		a, b, b0 := v.Data(0), refW[i].Data(0), init[i].Data(0)
		var worst, upd float64
		for j := range a {
			ulp := float64(math.Nextafter32(float32(math.Abs(float64(b[j]))), float32(math.Inf(1))) - float32(math.Abs(float64(b[j]))))
			if d := math.Abs(float64(a[j] - b[j])); !(d <= 5e-4*scale+4*ulp) {
				worst = math.Max(worst, d)
				if math.IsNaN(d) {
					worst = math.Inf(1)
				}
			}
			upd = math.Max(upd, math.Abs(float64(b[j]-b0[j])))
		}
		if worst > 0 {
			t.Errorf("2 replicas: %s differs from 1 replica by %.3g (largest update in the model: %.3g)", v.Name(), worst, scale)
		}
		if upd > 1e-3*scale {
			moved++
		}
	}
	if trainable := len(ref.TrainableVariables()); moved < trainable/2 {
		t.Errorf("only %d of %d weights changed by more than 1e-3 of the largest update (%d trainable)", moved, len(refW), trainable)
	}
	for k, want := range ref.History.History {
		if got := m.History.History[k]; len(got) != 1 || !(math.Abs(got[0]-want[0]) <= 1e-5*math.Max(1, math.Abs(want[0]))) {
			t.Errorf("2 replicas: history %s = %v, 1 replica: %v", k, got, want)
		}
	}
}

// colorImages returns n random RGB images of h x w pixels in [0, 255]
// (EfficientNet rescales them itself) and labels in [0, 10).
func colorImages(n, h, w int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 6))
	x := make([]float32, n*h*w*3)
	for i := range x {
		x[i] = 255 * r.Float32()
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(n, h, w, 3), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// EfficientNetB0 trains with 2 replicas as with 1 on the same global
// batches: 33 images in batches of 10 (the last step splits 2 and 1),
// every weight of the 238-layer model (the moving statistics too) within
// float32 summation noise (each replica's part of the batch is summed in
// another order), the copies bitwise equal after every step. As Keras'
// guide to fine-tuning EfficientNet does first, with the base frozen and
// called with training=False (the head trains, its BatchNormalization
// synchronized), and whole, in training mode (efficientNetSyncBN).
func TestMirroredEquivalenceEfficientNetB0(t *testing.T) {
	racetest.Skip(t, "trains EfficientNetB0 four times; the race detector checks the same replica code on the smaller models of this package")
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	x, y := colorImages(33, 32, 32, 21)
	pretrained := efficientNetB0Weights(t)
	adam := func() optimizers.Optimizer { return optimizers.NewAdam(optimizers.LearningRate(1e-3)) }
	t.Run("frozen_base", func(t *testing.T) { checkTwoReplicas(t, x, y, adam, efficientNetFineTune(pretrained, true), 1e-4, nil) })
	// SGD with momentum, which is not invariant to the gradients' scale
	// as Adam is, so a loss averaged over the wrong batch shows.
	sgd := func() optimizers.Optimizer {
		return optimizers.NewSGD(optimizers.LearningRate(0.01), optimizers.Momentum(0.9))
	}
	// Batches of 17: two steps, split 9/8 and 8/8 over the replicas.
	t.Run("whole_synchronized", func(t *testing.T) { checkTwoReplicasSteps(t, x, y, sgd, efficientNetSyncBN(pretrained), 17) })
}

// keyBias says whether a weight is a MultiHeadAttention's key bias, whose
// gradient is zero in exact arithmetic: it adds q.b to every score of a
// query, the same for every key, which the softmax over the keys cancels.
func keyBias(name string) bool { return strings.HasSuffix(name, "/key/bias") }

// A BERT-style encoder (Embedding, MultiHeadAttention,
// LayerNormalization, Dense) trains with 2 replicas as with 1: 33
// sequences in batches of 10, two epochs, every weight but the key biases
// within 1e-4 relative.
func TestMirroredEquivalenceBERTEncoder(t *testing.T) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	ids, y := tokens(33, 9, 40, 23)
	for i, v := range y.Data().([]float32) {
		y.Data().([]float32)[i] = float32(int(v) % 2)
	}
	for name, opt := range map[string]func() optimizers.Optimizer{
		"adam": func() optimizers.Optimizer { return optimizers.NewAdam(optimizers.LearningRate(1e-3)) },
		"sgd": func() optimizers.Optimizer {
			return optimizers.NewSGD(optimizers.LearningRate(0.01), optimizers.Momentum(0.9))
		},
	} {
		t.Run(name, func(t *testing.T) { checkTwoReplicas(t, ids, y, opt, bertEncoder, 1e-4, keyBias) })
	}
}
