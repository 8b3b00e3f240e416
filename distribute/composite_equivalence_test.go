package distribute_test

import (
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
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
