package keras_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Regressor is a model type with its own call, as Keras'
// `class Regressor(keras.Model)`: it embeds *keras.Model, set by
// keras.Subclass, and keeps its layers in fields.
type Regressor struct {
	*keras.Model
	hidden, out *layers.Dense
}

// Call is the model's call; it also adds an activity penalty, as
// self.add_loss does.
func (r *Regressor) Call(in []ops.Tensor, training bool) ops.Tensor {
	h := layers.Call(r.hidden, training, in[0])
	ops.AddLoss(ops.Scale(ops.Mean(ops.Square(h), false), 1e-3))
	return layers.Call(r.out, training, h)
}

// A subclassed model through Compile and Fit.
func ExampleSubclass() {
	layers.SetRandomSeed(1)
	r := &Regressor{hidden: layers.NewDense(8, layers.WithActivation("relu")), out: layers.NewDense(1)}
	m, err := keras.Subclass(r, keras.SubclassInputShape(3))
	if err != nil {
		panic(err)
	}
	r.Model = m
	if err := r.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(), Loss: "mse"}); err != nil {
		panic(err)
	}
	x := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}))
	y := tensor.New(tensor.WithShape(4, 1), tensor.WithBacking([]float32{1, 2, 3, 4}))
	if _, err := r.Fit(x, y, keras.FitConfig{Epochs: 2, Verbose: keras.VerboseSilent}); err != nil {
		panic(err)
	}
	fmt.Println("trainable variables:", len(r.TrainableVariables()), "params:", r.CountParams())
	// Output:
	// trainable variables: 4 params: 41
}
