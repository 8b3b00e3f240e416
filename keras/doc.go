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
// # Layers and models of your own
//
// A layer made of layers embeds layers.Base and keeps its parts in
// fields, as a Keras layer assigns them to attributes; they are tracked
// (weights, freezing, losses, saving) with nothing listed by hand, and
// layers.Call calls a part, building it at its first call. A model with
// its own call (`class VAE(keras.Model)`) is a Go type made a model by
// [Subclass]; examples/vae_subclassing ports the guide "Making new layers
// and models via subclassing".
//
// # Where Keras' names are
//
// One Go spelling for each Keras name; where the place differs:
//
//	keras.utils.to_categorical            utils.ToCategorical (package keras/utils)
//	keras.mixed_precision.set_global_policy  mixedprecision.SetGlobalPolicy
//	model.stop_training = True            model.StopTraining()
//	optimizer.learning_rate (= lr)         optimizer.CurrentLearningRate() (SetLearningRate(lr))
//	model(x, training=False)              model.Forward(x, false); in a graph base.ApplyTraining(false, x)
//	layer.get_weights() / set_weights()   layers.GetWeights(l) / layers.SetWeights(l, ws)
//	model.count_params(), get_layer(n)    [Model.CountParams], [Model.GetLayer]
//	model.to_json(), model_from_json(s)   [Model.ToJSON], [ModelFromJSON]
//	train_on_batch / test_on_batch / predict_on_batch  [Model.TrainOnBatch], [Model.TestOnBatch], [Model.PredictOnBatch]
//	tf.train.Checkpoint, CheckpointManager, latest_checkpoint  [Checkpoint], [CheckpointManager], [LatestCheckpoint]
//	logs["outputs"] in on_predict_batch_end  [PredictBatchOutputsCallback] (LambdaCallback.PredictBatchOutputs)
//	metric(y_true, y_pred)                metrics.Call(m, yTrue, yPred)
//	SimpleClusterResolver(cluster_spec)   distribute.NewSimpleClusterResolver(spec, taskType, taskID)
//	strategy.experimental_run_v2 (TF 2.0)  strategy.Run (package distribute; ExperimentalRunV2 too)
//	strategy.experimental_barrier           MultiWorkerMirroredStrategy.Barrier (ExperimentalBarrier too)
//	strategy.reduce(op, 3.0, axis=None)     strategy.ReduceValue(op, 3.0) (a plain number, not per-replica)
//	ds.map(lambda x, y: (tf.image.resize(x, size), y))  ds.MapPairs(fn) with datasets.Resize (package datasets)
//	tf.cast(x, tf.uint8), dtype="uint8"    datasets.Cast(x, datasets.Uint8) on data; ops.Cast(x, "uint8") in a graph
//	np.expand_dims(x, 0), ops.expand_dims  datasets.ExpandDims(x, 0) on data; layers.CallOp("ExpandDims", map[string]any{"axis": 0}, x) in a model
//	np.arange(n), keras.ops.arange(n)      datasets.Arange(n) (float32)
//
// Settings structs ([FitConfig], [CompileConfig], ...) work at their zero
// value, with Keras' defaults. Errors are returned, never panicked: shape
// misuse names the layer and the shapes.
package keras
