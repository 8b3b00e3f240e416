package keras_test

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// Models called as layers, as Keras calls a model on a tensor: two models
// on one Input, added (an ensemble), and a frozen pretrained base in a
// Sequential. The nested models share their weights with the outer one
// and show as one row each in its Summary.
//
//	x = keras.Input((8,))
//	y = layers.Add()([model_a(x), model_b(x)])
//	ensemble = keras.Model(x, y)
//	base.trainable = False
//	clf = keras.Sequential([base, layers.Dense(3)])
func ExampleModel_Apply() {
	layers.ClearSession()
	modelA := keras.MustSequential(layers.NewDense(4, layers.WithActivation("relu"), layers.WithInputShape(8)), layers.NewDense(2))
	modelB := keras.MustSequential(layers.NewDense(2, layers.WithInputShape(8)))
	x := layers.Input([]int{8}, layers.WithName("x"))
	y := layers.Apply(layers.NewAdd(), modelA.Apply(x), modelB.Apply(x))
	ensemble, _ := keras.NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{y})
	for _, l := range ensemble.Layers() {
		fmt.Println(l.Name(), l.ClassName(), len(l.Weights()))
	}
	fmt.Println(len(ensemble.TrainableVariables()), ensemble.Weights()[0] == modelA.Weights()[0])

	base := keras.MustSequential(layers.NewDense(16, layers.WithActivation("relu"), layers.WithInputShape(8)))
	base.SetTrainable(false)
	clf := keras.MustSequential(base.AsLayer(), layers.NewDense(3))
	fmt.Println(clf.Built(), len(clf.TrainableVariables()), len(clf.NonTrainableVariables()))
	// Output:
	// x InputLayer 0
	// sequential Sequential 4
	// sequential_1 Sequential 2
	// add Add 0
	// 6 true
	// true 2 2
}

// GetConfig and ModelFromConfig are Keras' get_config and from_config: a
// new model of the same architecture, with new weights.
func ExampleModel_GetConfig() {
	layers.ClearSession()
	model := keras.MustSequential(layers.NewDense(4, layers.WithInputShape(3), layers.WithName("hidden")), layers.NewDense(1, layers.WithName("out")))
	cfg, _ := model.GetConfig()
	clone, err := keras.ModelFromConfig(cfg)
	fmt.Println(err, clone.Name(), len(clone.Weights()), clone.Weights()[0] != model.Weights()[0])
	for _, l := range clone.Layers() {
		fmt.Println(l.Name(), l.ClassName())
	}
	// Output:
	// <nil> sequential 4 true
	// hidden Dense
	// out Dense
}
