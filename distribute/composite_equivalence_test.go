package distribute_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// convBlock is a user's composite layer: its parts in unexported fields,
// tracked (no weight list by hand).
type convBlock struct {
	layers.Base
	conv  *layers.Conv2D
	pool  *layers.MaxPooling2D
	flat  *layers.Flatten
	dense *layers.Dense
}

func (b *convBlock) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := layers.Call(b.conv, training, in[0])
	x = layers.Call(b.pool, training, x)
	return layers.Call(b.dense, training, layers.Call(b.flat, training, x))
}

func compositeModel() ([]layers.Layer, error) {
	return []layers.Layer{&convBlock{
		Base:  layers.NewBase("ConvBlock", layers.WithInputShape(28, 28, 1)),
		conv:  layers.NewConv2D(8, 3, layers.WithActivation("relu")),
		pool:  layers.NewMaxPooling2D(layers.WithPoolSize(4)),
		flat:  layers.NewFlatten(),
		dense: layers.NewDense(10),
	}}, nil
}

// A composite layer's tracked weights are mirrored like any layer's: N
// replicas train it as 1 replica on the same global batch.
func TestMirroredEquivalenceCompositeLayer(t *testing.T) {
	if err := distribute.SetLogicalCPUs(4); err != nil {
		t.Fatal(err)
	}
	x, y := images(33, 28, 28, 9)
	m := trainModel(t, 1, x, y, "sgd", compositeModel)
	if n := len(m.TrainableVariables()); n != 4 {
		t.Fatalf("%d trainable variables, want the conv's and dense's 4", n)
	}
	checkEquivalence(t, x, y, "sgd", compositeModel)
}

// penalizedNet is a subclassed model (class M(keras.Model)) whose call
// adds an activity penalty, as self.add_loss does.
type penalizedNet struct {
	*keras.Model
	flat        *layers.Flatten
	hidden, out *layers.Dense
}

func (p *penalizedNet) Call(in []ops.Tensor, training bool) ops.Tensor {
	h := layers.Call(p.hidden, training, layers.Call(p.flat, training, in[0]))
	ops.AddLoss(ops.Scale(ops.Mean(ops.Square(h), false), 0.1))
	return layers.Call(p.out, training, h)
}

// trainSubclass trains a penalizedNet made in an n-replica strategy's
// scope and returns it with its history.
func trainSubclass(t *testing.T, n int, x, y *tensor.Dense) (*penalizedNet, *keras.History) {
	t.Helper()
	s, err := distribute.NewMirroredStrategy(devices(n)...)
	if err != nil {
		t.Fatal(err)
	}
	layers.SetRandomSeed(42)
	exit := s.Scope()
	p := &penalizedNet{flat: layers.NewFlatten(), hidden: layers.NewDense(8, layers.WithActivation("relu")), out: layers.NewDense(10)}
	p.Model, err = keras.Subclass(p, keras.SubclassInputShape(28, 28, 1))
	if err == nil {
		err = p.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1)), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
	}
	exit()
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: 8, Seed: 5, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatalf("%d replicas: %v", n, err)
	}
	return p, h
}

// A subclassed model with an added loss trains on 2 and 4 replicas as on
// 1: its tracked weights are mirrored and the loss it adds is scaled per
// replica as the compiled loss is (a penalty counted once per replica
// would weigh 2 or 4 times as much). The batches split evenly (32
// examples in batches of 8): an added mean over unequal local batches is
// the mean of the replicas' means, as in Keras (its
// scale_loss_for_distribution), not the global batch's.
func TestMirroredEquivalenceSubclassAddLoss(t *testing.T) {
	if err := distribute.SetLogicalCPUs(4); err != nil {
		t.Fatal(err)
	}
	x, y := images(32, 28, 28, 9)
	ref, refH := trainSubclass(t, 1, x, y)
	for _, n := range []int{2, 4} {
		m, h := trainSubclass(t, n, x, y)
		for i, v := range m.Weights() {
			if v.Replicas() != n {
				t.Fatalf("%d replicas: %s has %d copies", n, v.Name(), v.Replicas())
			}
			if d := relDiff(v.Data(0), ref.Weights()[i].Data(0)); d > 2e-5 {
				t.Errorf("%d replicas: %s differs from 1 replica by %.3g (relative)", n, v.Name(), d)
			}
		}
		for e, want := range refH.History["loss"] {
			if got := h.History["loss"][e]; math.Abs(got-want) > 1e-5*math.Max(1, want) {
				t.Errorf("%d replicas: loss[%d] = %v, 1 replica %v", n, e, got, want)
			}
		}
	}
}
