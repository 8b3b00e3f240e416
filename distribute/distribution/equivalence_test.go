package distribution_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/distribute/distribution"
	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// meshes are the shapes issue 32 asks to equal one device.
var meshes = [][2]int{{1, 2}, {2, 1}, {2, 2}}

// run20 fits m for 20 Adam steps (5 epochs of 4 batches of 16,
// unshuffled) and returns the epochs' losses and the weights.
func run20(t *testing.T, m *keras.Model, x, y *tensor.Dense) trained {
	t.Helper()
	h, err := m.Fit(x, y, keras.FitConfig{Epochs: 5, BatchSize: 16, NoShuffle: true, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if it := m.Optimizer().Iterations(); it != 20 {
		t.Fatalf("%d Adam steps, want 20", it)
	}
	out := trained{loss: h.History["loss"], model: m}
	for _, w := range m.GetWeights() {
		out.weights = append(out.weights, append([]float32(nil), w.Data().([]float32)...))
	}
	return out
}

// equalWithin checks losses and weights of got against one device's.
func equalWithin(t *testing.T, what string, got, one trained, tol float64) {
	t.Helper()
	d, _ := maxDiff(got, one)
	worst := 0.0
	for e := range one.loss {
		worst = math.Max(worst, math.Abs(got.loss[e]-one.loss[e]))
	}
	t.Logf("%s: after 20 Adam steps, weights within %.2g and losses within %.2g of one device (losses %.5f -> %.5f)", what, d, worst, one.loss[0], one.loss[len(one.loss)-1])
	if d > tol || worst > tol {
		t.Errorf("%s: weights differ from one device by %g, losses by %g; want within %g", what, d, worst, tol)
	}
}

// TestEncoderEqualsOneDevice: the Transformer encoder, every weight split
// along "model", trained under ModelParallel on 1x2, 2x1 and 2x2 meshes,
// equals one device on the same global batches within 1e-5 (losses and
// weights after 20 Adam steps).
func TestEncoderEqualsOneDevice(t *testing.T) {
	x, y := sequences(smallEncoder, 64, 3)
	one := run20(t, compiledEncoder(t, nil, smallEncoder), x, y)
	if one.loss[4] >= one.loss[0] {
		t.Fatalf("one device did not learn: losses %v", one.loss)
	}
	for _, sh := range meshes {
		t.Run(fmt.Sprintf("%dx%d", sh[0], sh[1]), func(t *testing.T) {
			mp, err := distribution.NewModelParallel(encoderLayouts(t, mesh(t, sh[0], sh[1])), "batch")
			if err != nil {
				t.Fatal(err)
			}
			got := run20(t, compiledEncoder(t, mp, smallEncoder), x, y)
			equalWithin(t, fmt.Sprintf("encoder %dx%d", sh[0], sh[1]), got, one, 1e-5)
			if sh[1] > 1 && mp.Memory()[0].StepGathered == 0 {
				t.Error("nothing was split")
			}
		})
	}
}

// resnet is the seed ResNet (examples/internal/models.ResNetSeed: a 7x7
// stem, six residual blocks, global average pooling, a Dense of 10
// logits) at an eighth of its widths (8, 8, 16, 16, 32, 32) on 16x16x3
// images, with synchronized batch normalization (Keras' JAX
// ModelParallel normalizes over the global batch, which the devices'
// rows make up only together) and convolutions without biases, as Keras
// applications' ResNets: a bias before a normalization has a gradient of
// zero, whose rounding noise Adam turns into steps of the learning rate
// (the seed's biases differ from one device's by 1e-3 after 20 steps,
// on any strategy, while the losses agree within 1e-6).
func resnet() (*keras.Model, error) {
	bn := func(x *layers.KerasTensor) *layers.KerasTensor {
		return layers.Apply(layers.NewBatchNormalization(layers.WithSynchronized(true)), x)
	}
	conv := func(x *layers.KerasTensor, filters, kernel int, opts ...layers.Option) *layers.KerasTensor {
		return layers.Apply(layers.NewConv2D(filters, kernel, append(opts, layers.WithUseBias(false))...), x)
	}
	block := func(x *layers.KerasTensor, filters, stride int, convShortcut bool) *layers.KerasTensor {
		shortcut := x
		if convShortcut {
			shortcut = bn(conv(shortcut, filters, 1, layers.WithStrides(stride)))
		}
		x = conv(x, filters, 3, layers.WithStrides(stride), layers.WithPadding("same"))
		x = layers.Apply(layers.NewReLU(), bn(x))
		x = bn(conv(x, filters, 3, layers.WithPadding("same")))
		return layers.Apply(layers.NewReLU(), layers.AddTensors(x, shortcut))
	}
	in := layers.Input([]int{16, 16, 3})
	x := bn(conv(in, 8, 7, layers.WithStrides(2), layers.WithPadding("same")))
	x = layers.Apply(layers.NewReLU(), x)
	x = layers.Apply(layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), x)
	x = block(x, 8, 1, true)
	x = block(x, 8, 1, false)
	x = block(x, 16, 2, true)
	x = block(x, 16, 1, false)
	x = block(x, 32, 2, true)
	x = block(x, 32, 1, false)
	x = layers.Apply(layers.NewGlobalAveragePooling2D(), x)
	out := layers.Apply(layers.NewDense(10), x)
	return keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
}

// resnetLayouts splits the convolutions' output channels, the
// normalizations' scales and offsets and the classifier's inputs along
// "model"; the classifier's bias stays replicated.
func resnetLayouts(t *testing.T, mesh *distribution.DeviceMesh) *distribution.LayoutMap {
	t.Helper()
	lm := distribution.NewLayoutMap(mesh)
	for _, kv := range []struct {
		key  string
		axes []string
	}{
		{".*conv2d.*/kernel", []string{"", "", "", "model"}},
		{".*batch_normalization.*/(gamma|beta)", []string{"model"}},
		{".*dense.*/kernel", []string{"model", ""}},
	} {
		if err := lm.Set(kv.key, kv.axes...); err != nil {
			t.Fatal(err)
		}
	}
	return lm
}

func images(n int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 5))
	x := make([]float32, n*16*16*3)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(n, 16, 16, 3), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

func compiledResNet(t *testing.T, s engine.Strategy) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(9)
	exit := func() {}
	if s != nil {
		exit = engine.EnterScope(s)
	}
	m, err := resnet()
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.003)),
			Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestResNetEqualsOneDevice: the seed ResNet's architecture (scaled down)
// trained under ModelParallel on 1x2, 2x1 and 2x2 meshes equals one
// device within 1e-5 after 20 Adam steps, its moving statistics included.
func TestResNetEqualsOneDevice(t *testing.T) {
	x, y := images(64, 4)
	one := run20(t, compiledResNet(t, nil), x, y)
	if one.loss[4] >= one.loss[0] {
		t.Fatalf("one device did not learn: losses %v", one.loss)
	}
	for _, sh := range meshes {
		t.Run(fmt.Sprintf("%dx%d", sh[0], sh[1]), func(t *testing.T) {
			mp, err := distribution.NewModelParallel(resnetLayouts(t, mesh(t, sh[0], sh[1])), "batch")
			if err != nil {
				t.Fatal(err)
			}
			got := run20(t, compiledResNet(t, mp), x, y)
			equalWithin(t, fmt.Sprintf("ResNet %dx%d", sh[0], sh[1]), got, one, 1e-5)
		})
	}
}

// TestEncoderMixedBfloat16: under mixed_bfloat16 the sharded encoder on a
// 2x2 mesh is bitwise MirroredStrategy on its four devices (sharding
// changes nothing of the bfloat16 arithmetic), and within bfloat16's
// rounding of one device (distribute's TestMirroredEquivalenceMixed
// bounds that for replicas). mixed_float16 needs a LossScaleOptimizer,
// which split weights refuse (fsdp.go).
func TestEncoderMixedBfloat16(t *testing.T) {
	if err := mixedprecision.SetGlobalPolicy("mixed_bfloat16"); err != nil {
		t.Fatal(err)
	}
	defer mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	x, y := sequences(smallEncoder, 64, 5)
	one := run20(t, compiledEncoder(t, nil, smallEncoder), x, y)
	mp, err := distribution.NewModelParallel(encoderLayouts(t, mesh(t, 2, 2)), "batch")
	if err != nil {
		t.Fatal(err)
	}
	got := run20(t, compiledEncoder(t, mp, smallEncoder), x, y)
	mirrored, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3")
	if err != nil {
		t.Fatal(err)
	}
	ref := run20(t, compiledEncoder(t, mirrored, smallEncoder), x, y)
	if d, same := maxDiff(got, ref); !same {
		t.Errorf("mixed_bfloat16: weights differ from MirroredStrategy by up to %g; want bitwise equal", d)
	}
	for e := range ref.loss {
		if got.loss[e] != ref.loss[e] {
			t.Errorf("mixed_bfloat16: epoch %d loss %v, MirroredStrategy %v", e, got.loss[e], ref.loss[e])
		}
	}
	equalWithin(t, "encoder 2x2 mixed_bfloat16", got, one, 2e-2)
}
