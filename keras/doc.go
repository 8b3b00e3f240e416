// Package keras is Keras for Go: models ([NewSequential], the functional
// [NewModel]), [Model.Compile], [Model.Fit], [Model.Evaluate],
// [Model.Predict], [Model.Summary], [GradientTape] for custom training
// loops, and callbacks.
//
// # Overview
//
// The MNIST CNN of the MirroredStrategy tutorial ports line by line:
//
//	model, err := keras.NewSequential(
//		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
//		layers.NewMaxPooling2D(),
//		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
//		layers.NewMaxPooling2D(),
//		layers.NewFlatten(),
//		layers.NewDense(128, layers.WithActivation("relu")),
//		layers.NewDense(10))
//	err = model.Compile(keras.CompileConfig{
//		Optimizer: optimizers.NewAdam(),
//		Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
//		Metrics:   []any{"accuracy"}})
//	model.Summary()
//	history, err := model.Fit(trainDataset, nil, keras.FitConfig{Epochs: 5, ValidationData: testDataset})
//	logs, err := model.Evaluate(testDataset, nil, keras.EvaluateConfig{})
//
// Every step is traced once per input shape into a gorgonia graph and
// replayed (package engine), as tf.function does; custom training loops use
// the same engine through [Function] and [GradientTape].
//
// Settings structs ([FitConfig], [CompileConfig], ...) work at their zero
// value, with Keras' defaults. Errors are returned, never panicked: shape
// misuse names the layer and the shapes.
package keras
