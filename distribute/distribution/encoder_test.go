package distribution_test

import (
	"fmt"
	"math/rand/v2"
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

// encoderSize is a Transformer encoder's dimensions.
type encoderSize struct {
	seq, vocab, dim, heads, ff, classes, blocks int
}

// smallEncoder trains fast; the benchmark's encoders are one block over
// a vocabulary of 2000 (the embedding is 56% of the weights) and BERT-base
// reduced (a sixth of its widths, half its depth: 6 blocks, a vocabulary
// of 5000, the embedding 35% of the weights; BERT-base's is 21%).
var (
	smallEncoder = encoderSize{seq: 8, vocab: 32, dim: 16, heads: 4, ff: 32, classes: 4, blocks: 1}
	benchEncoder = encoderSize{seq: 32, vocab: 2000, dim: 128, heads: 8, ff: 512, classes: 4, blocks: 1}
	bertReduced  = encoderSize{seq: 32, vocab: 5000, dim: 128, heads: 4, ff: 512, classes: 4, blocks: 6}
)

// encoder is a BERT-like encoder block over token ids: an embedding,
// self-attention with a residual and LayerNormalization, a feed-forward
// pair of Dense layers with a residual and LayerNormalization, average
// pooling and a Dense classifier. Its layers are named, so that a layout
// map addresses them whatever other models the process made.
func encoder(s encoderSize) (*keras.Model, error) {
	in := layers.Input([]int{s.seq})
	x := layers.Apply(layers.NewEmbedding(s.vocab, s.dim, layers.WithName("tokens")), in)
	for b := range s.blocks {
		name := func(n string) layers.Option {
			if b == 0 {
				return layers.WithName(n)
			}
			return layers.WithName(fmt.Sprintf("%s_%d", n, b))
		}
		a := layers.Apply(layers.NewMultiHeadAttention(s.heads, s.dim/s.heads, name("attention")), x, x)
		x = layers.Apply(layers.NewLayerNormalization(name("norm1")), layers.AddTensors(x, a))
		f := layers.Apply(layers.NewDense(s.ff, layers.WithActivation("relu"), name("ffn_in")), x)
		f = layers.Apply(layers.NewDense(s.dim, name("ffn_out")), f)
		x = layers.Apply(layers.NewLayerNormalization(name("norm2")), layers.AddTensors(x, f))
	}
	x = layers.Apply(layers.NewGlobalAveragePooling1D(), x)
	out := layers.Apply(layers.NewDense(s.classes, layers.WithName("classifier")), x)
	return keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
}

// encoderLayouts splits every weight of the encoder along "model", as
// Keras' tensor-parallel layouts place them: the embedding's features,
// the attention's heads, the feed-forward's hidden units, the
// normalizations' features; the classifier's inputs.
func encoderLayouts(t testing.TB, mesh *distribution.DeviceMesh) *distribution.LayoutMap {
	t.Helper()
	lm := distribution.NewLayoutMap(mesh)
	for _, kv := range []struct {
		key  string
		axes []string
	}{
		{"tokens/embeddings", []string{"", "model"}},
		{"attention(_[0-9]+)?/(query|key|value)/kernel", []string{"", "model", ""}},
		{"attention(_[0-9]+)?/(query|key|value)/bias", []string{"model", ""}},
		{"attention(_[0-9]+)?/attention_output/kernel", []string{"model", "", ""}},
		{"attention(_[0-9]+)?/attention_output/bias", []string{"model"}},
		{"norm[12](_[0-9]+)?/(gamma|beta)", []string{"model"}},
		{"ffn_in(_[0-9]+)?/kernel", []string{"", "model"}},
		{"ffn_in(_[0-9]+)?/bias", []string{"model"}},
		{"ffn_out(_[0-9]+)?/kernel", []string{"model", ""}},
		{"ffn_out(_[0-9]+)?/bias", []string{"model"}},
		{"classifier/kernel", []string{"model", ""}},
		{"classifier/bias", []string{"model"}},
	} {
		if err := lm.Set(kv.key, kv.axes...); err != nil {
			t.Fatal(err)
		}
	}
	return lm
}

// sequences are n rows of s.seq token ids and a class each.
func sequences(s encoderSize, n int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 11))
	x := make([]float32, n*s.seq)
	for i := range x {
		x[i] = float32(r.IntN(s.vocab))
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(s.classes))
	}
	return tensor.New(tensor.WithShape(n, s.seq), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// compiledEncoder makes the encoder under s (nil: one device), compiled
// with Adam.
func compiledEncoder(t testing.TB, s engine.Strategy, size encoderSize) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(5)
	exit := func() {}
	if s != nil {
		exit = engine.EnterScope(s)
	}
	m, err := encoder(size)
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.005)),
			Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestShardBytesMatchLayouts: after training the encoder on a 2x2 mesh,
// with its weights split along "model" and the feed-forward's kernel
// along both axes, every device holds, between steps, exactly the bytes
// of the shard shapes its layouts give (the same as JAX's shard_shape),
// Adam's two slots of each, and nothing gathered; during a step it held
// whole at once only what one kernel reads, not every split weight.
func TestShardBytesMatchLayouts(t *testing.T) {
	lm := encoderLayouts(t, mesh(t, 2, 2))
	if !lm.Delete("ffn_in(_[0-9]+)?/kernel") {
		t.Fatal("no layout for ffn_in/kernel")
	}
	if err := lm.Set("ffn_in/kernel", "batch", "model"); err != nil {
		t.Fatal(err)
	}
	mp, err := distribution.NewModelParallel(lm, "batch")
	if err != nil {
		t.Fatal(err)
	}
	m := compiledEncoder(t, mp, smallEncoder)
	x, y := sequences(smallEncoder, 16, 1)
	if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 8, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	var shards, largest, gathered int64
	for _, v := range m.TrainableVariables() {
		l, err := mp.VariableLayout(v.Name(), v.Shape())
		if err != nil {
			t.Fatal(err)
		}
		ss, err := l.ShardShape(v.Shape())
		if err != nil {
			t.Fatal(err)
		}
		n := int64(4)
		for _, d := range ss {
			n *= int64(d)
		}
		shards += n
		if whole := 4 * int64(v.Shape().Size()); n != whole {
			gathered += whole
			largest = max(largest, whole)
		}
		if v.Name() == "ffn_in/kernel" && fmt.Sprint(ss) != fmt.Sprint([]int{smallEncoder.dim / 2, smallEncoder.ff / 2}) {
			t.Errorf("ffn_in/kernel shard shape %v, want [%d %d]", ss, smallEncoder.dim/2, smallEncoder.ff/2)
		}
	}
	for _, dm := range mp.Memory() {
		t.Logf("%s: shards %d B, slots %d B, gathered %d B now, %d B in a step", dm.Device, dm.Shards, dm.Slots, dm.Gathered, dm.StepGathered)
		if dm.Shards != shards || dm.Slots != 2*shards+4 || dm.Gathered != 0 {
			t.Errorf("%s: shards %d B, slots %d B, gathered %d B; the layouts say %d, %d, 0",
				dm.Device, dm.Shards, dm.Slots, dm.Gathered, shards, 2*shards+4)
		}
		// A kernel borrows whole the split weights it reads, one at a
		// time: the largest, not all of them.
		if dm.StepGathered < largest || dm.StepGathered >= gathered/2 {
			t.Errorf("%s: %d B gathered at once in a step; want from the largest split weight's %d B to well under all %d B", dm.Device, dm.StepGathered, largest, gathered)
		}
	}
}

// BenchmarkEncoderMemory prints the peak per-device bytes of weights and
// optimizer state of Transformer encoders trained with Adam on a 1x4
// model axis, against one device: between steps (shards and slots) and
// during a step (plus what one kernel borrows: a split weight whole, the
// embedding's rows its lookup reads).
//
//	go test ./distribute/distribution -run '^$' -bench EncoderMemory -benchtime 1x
func BenchmarkEncoderMemory(b *testing.B) {
	for _, c := range []struct {
		name string
		size encoderSize
	}{{"one-block", benchEncoder}, {"bert-reduced", bertReduced}} {
		b.Run(c.name, func(b *testing.B) {
			x, y := sequences(c.size, 16, 2)
			for i := 0; i < b.N; i++ {
				one := compiledEncoder(b, nil, c.size)
				if _, err := one.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 16, Verbose: keras.VerboseSilent}); err != nil {
					b.Fatal(err)
				}
				var oneBytes, weights, emb int64
				for _, v := range one.TrainableVariables() {
					weights += 4 * int64(v.Shape().Size())
					if v.Name() == "tokens/embeddings" {
						emb = 4 * int64(v.Shape().Size())
					}
				}
				for _, v := range one.Optimizer().Variables() {
					oneBytes += 4 * int64(v.Shape().Size())
				}
				oneBytes += weights

				mp, err := distribution.NewModelParallel(encoderLayouts(b, mesh(b, 1, 4)), "batch")
				if err != nil {
					b.Fatal(err)
				}
				m := compiledEncoder(b, mp, c.size)
				if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 16, Verbose: keras.VerboseSilent}); err != nil {
					b.Fatal(err)
				}
				var between, peak int64
				for _, dm := range mp.Memory() {
					between = max(between, dm.Shards+dm.Slots+dm.Gathered)
					peak = max(peak, dm.Shards+dm.Slots+dm.StepGathered)
				}
				b.ReportMetric(float64(oneBytes), "B/one-device")
				b.ReportMetric(float64(between)/float64(oneBytes), "x-between-steps")
				b.ReportMetric(float64(peak)/float64(oneBytes), "x-in-step")
				b.Logf("%s: %d weights (embedding %.0f%%): one device holds %d B of weights and Adam state; on a 1x4 model axis a device holds %d B between steps (%.3fx) and at most %d B during a step (%.3fx, with the weights one kernel reads gathered)",
					c.name, weights/4, 100*float64(emb)/float64(weights), oneBytes, between, float64(between)/float64(oneBytes), peak, float64(peak)/float64(oneBytes))
			}
		})
	}
}

// BenchmarkEncoderStep times a train step of the one-block encoder
// (batch 32) on one device, under MirroredStrategy on four logical CPUs
// and under ModelParallel on a 1x4 model axis of them: the last against
// the second is the cost of keeping the weights in shards (every kernel
// that reads a split weight gathers it first; the reduce-scatter replaces
// the all-reduce). The machine's cores, not the mesh, bound the speed.
//
//	go test ./distribute/distribution -run '^$' -bench EncoderStep -benchtime 20x
func BenchmarkEncoderStep(b *testing.B) {
	x, y := sequences(benchEncoder, 32, 6)
	for _, c := range []string{"one-device", "mirrored-4", "model-parallel-1x4"} {
		b.Run(c, func(b *testing.B) {
			var s engine.Strategy
			switch c {
			case "mirrored-4":
				mesh(b, 1, 4) // four logical CPUs
				ms, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3")
				if err != nil {
					b.Fatal(err)
				}
				s = ms
			case "model-parallel-1x4":
				mp, err := distribution.NewModelParallel(encoderLayouts(b, mesh(b, 1, 4)), "batch")
				if err != nil {
					b.Fatal(err)
				}
				s = mp
			}
			m := compiledEncoder(b, s, benchEncoder)
			fit := func() {
				if _, err := m.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 32, Verbose: keras.VerboseSilent}); err != nil {
					b.Fatal(err)
				}
			}
			fit() // trace
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fit()
			}
		})
	}
}
