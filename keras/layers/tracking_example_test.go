package layers_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// MLPBlock is the guide's composite layer: its sublayers live in plain
// fields and are tracked, built at their first call and listed in its
// weights.
type MLPBlock struct {
	layers.Base
	dense1, dense2 *layers.Dense
	dropout        *layers.Dropout
}

func NewMLPBlock() *MLPBlock {
	return &MLPBlock{
		Base:    layers.NewBase("MLPBlock"),
		dense1:  layers.NewDense(32, layers.WithActivation("relu")),
		dense2:  layers.NewDense(1),
		dropout: layers.NewDropout(0.2),
	}
}

// Call is
//
//	def call(self, inputs, training=False):
//	    x = self.dense1(inputs)
//	    x = self.dropout(x, training=training)
//	    return self.dense2(x)
func (m *MLPBlock) Call(in []ops.Tensor, training bool) ops.Tensor {
	x := layers.Call(m.dense1, training, in[0])
	x = layers.Call(m.dropout, training, x)
	return layers.Call(m.dense2, training, x)
}

// A layer made of layers, as Keras' "Making new layers and models via
// subclassing": no weight list is written by hand.
func ExampleCall() {
	mlp := NewMLPBlock()
	out, err := layers.OutputShape(mlp, []ops.Shape{{-1, 64}}) // the first call builds it
	if err != nil {
		panic(err)
	}
	fmt.Println("output:", out)
	fmt.Println("weights:", len(mlp.Weights()), "trainable:", len(mlp.TrainableWeights()))
	fmt.Println("sublayers:", len(layers.Sublayers(mlp)), "seed generators:", len(layers.SeedGenerators(mlp)))
	mlp.SetTrainable(false)
	fmt.Println("frozen, trainable:", len(mlp.TrainableWeights()))
	// Output:
	// output: (None, 1)
	// weights: 4 trainable: 4
	// sublayers: 3 seed generators: 1
	// frozen, trainable: 0
}
