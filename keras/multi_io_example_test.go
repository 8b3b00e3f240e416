package keras_test

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"gorgonia.org/tensor"
)

// A model with two inputs and two outputs, its data, losses, loss weights
// and metrics given by name, as Keras 3:
//
//	a = keras.Input((4,), name="a"); b = keras.Input((3,), name="b")
//	h = layers.Concatenate()([layers.Dense(5, activation="relu")(a), layers.Dense(5, activation="tanh")(b)])
//	out_a = layers.Dense(3, activation="softmax", name="out_a")(h)
//	out_b = layers.Dense(1, name="out_b")(h)
//	model = keras.Model([a, b], [out_a, out_b])
//	model.compile(optimizer="sgd",
//	    loss={"out_a": "sparse_categorical_crossentropy", "out_b": "mse"},
//	    loss_weights={"out_a": 1.0, "out_b": 0.5},
//	    metrics={"out_a": ["accuracy"], "out_b": ["mae"]})
//	history = model.fit({"a": xa, "b": xb}, {"out_a": ya, "out_b": yb}, epochs=2, batch_size=4)
//	preds = model.predict({"a": xa, "b": xb})
func ExampleModel_Fit_multiInputMultiOutput() {
	layers.ClearSession()
	layers.SetRandomSeed(1)
	a := layers.Input([]int{4}, layers.WithName("a"))
	b := layers.Input([]int{3}, layers.WithName("b"))
	h := layers.Apply(layers.NewConcatenate(),
		layers.Apply(layers.NewDense(5, layers.WithActivation("relu")), a),
		layers.Apply(layers.NewDense(5, layers.WithActivation("tanh")), b))
	outA := layers.Apply(layers.NewDense(3, layers.WithActivation("softmax"), layers.WithName("out_a")), h)
	outB := layers.Apply(layers.NewDense(1, layers.WithName("out_b")), h)
	model, _ := keras.NewModel([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{outA, outB})
	_ = model.Compile(keras.CompileConfig{
		Optimizer:           "sgd",
		Loss:                map[string]any{"out_a": "sparse_categorical_crossentropy", "out_b": "mse"},
		LossWeightsByOutput: map[string]float64{"out_a": 1.0, "out_b": 0.5},
		MetricsByOutput:     map[string][]any{"out_a": {"accuracy"}, "out_b": {"mae"}},
	})
	const n = 8
	fill := func(shape ...int) *tensor.Dense { // 0, 1, 2, 0, 1, 2, ...
		d := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float32))
		for i, v := 0, d.Data().([]float32); i < len(v); i++ {
			v[i] = float32(i % 3)
		}
		return d
	}
	x := map[string]*tensor.Dense{"a": fill(n, 4), "b": fill(n, 3)}
	y := map[string]*tensor.Dense{"out_a": fill(n), "out_b": fill(n, 1)} // class ids, values
	hist, err := model.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: 4, Verbose: keras.VerboseSilent})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(slices.Sorted(slices.Values(hist.Names)))
	preds, _ := model.PredictByName(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	fmt.Println(model.OutputNames(), preds["out_a"].Shape(), preds["out_b"].Shape())
	// The same data as slices in input and output order.
	_, err = model.Evaluate([]*tensor.Dense{x["a"], x["b"]}, []*tensor.Dense{y["out_a"], y["out_b"]}, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	fmt.Println(err)
	// A map naming an input the model does not have.
	_, err = model.Predict(map[string]*tensor.Dense{"a": x["a"], "c": x["b"]}, keras.PredictConfig{})
	fmt.Println(err)
	// Output:
	// [loss out_a_accuracy out_a_loss out_b_loss out_b_mae]
	// [out_a out_b] (8, 3) (8, 1)
	// <nil>
	// keras: Predict: no input named "c"; the model's inputs are [a b]
}

// A dataset whose elements carry named components, as a tf.data dataset
// of ({"a": xa, "b": xb}, {"out": y}) dicts: NamedDataset names them, in
// any order, and Fit puts them in the model's.
func ExampleNamedDataset() {
	layers.ClearSession()
	a := layers.Input([]int{2}, layers.WithName("a"))
	b := layers.Input([]int{2}, layers.WithName("b"))
	out := layers.Apply(layers.NewDense(1, layers.WithName("out")), layers.Apply(layers.NewAdd(), a, b))
	model, _ := keras.NewModel([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{out})
	_ = model.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "mse"})
	col := func(shape ...int) *tensor.Dense {
		return tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float32))
	}
	// Elements are (b, a, out): not the model's order.
	ds, _ := datasets.FromTensorSlices(col(6, 2), col(6, 2), col(6, 1))
	data := keras.NamedDataset{Dataset: ds.Batch(3, false), X: []string{"b", "a"}, Y: []string{"out"}}
	hist, err := model.Fit(data, nil, keras.FitConfig{Verbose: keras.VerboseSilent})
	fmt.Println(hist.Names, err)
	// Output:
	// [loss] <nil>
}

// StepsPerExecution runs several batches per execution, with the batch
// callbacks at its first and last batch, as Keras' steps_per_execution;
// the numbers are those of one step per execution.
func ExampleCompileConfig_stepsPerExecution() {
	layers.ClearSession()
	model, _ := keras.NewSequential(layers.NewDense(1, layers.WithInputShape(2)))
	_ = model.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "mse", StepsPerExecution: 3})
	x := tensor.New(tensor.WithShape(10, 2), tensor.Of(tensor.Float32))
	y := tensor.New(tensor.WithShape(10, 1), tensor.Of(tensor.Float32))
	var ends []int
	cb := &callbacks.LambdaCallback{TrainBatchEnd: func(batch int, _ keras.Logs) error { ends = append(ends, batch); return nil }}
	_, err := model.Fit(x, y, keras.FitConfig{BatchSize: 2, Callbacks: []keras.Callback{cb}, Verbose: keras.VerboseSilent})
	fmt.Println(ends, err)
	// Output:
	// [2 4] <nil>
}
