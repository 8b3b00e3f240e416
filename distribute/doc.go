// Package distribute is tf.distribute for gokeras: [MirroredStrategy] and
// [OneDeviceStrategy], their scopes, [MirroredStrategy.Run] and
// [MirroredStrategy.Reduce], distributed datasets, replica contexts and a
// deterministic all-reduce.
//
// # Overview
//
// Training with N replicas is the same computation as one replica on the
// same global batch: each global batch is split into balanced per-replica
// parts, every replica runs its own traced graph over its own copy of the
// variables, gradients are summed in replica order (so every copy gets
// bitwise the same update) and losses are averaged over the global batch.
//
//	strategy, err := distribute.NewMirroredStrategy()
//	fmt.Println("Number of devices:", strategy.NumReplicasInSync())
//	exit := strategy.Scope()
//	model, err := keras.NewSequential(...)   // mirrored variables
//	err = model.Compile(...)
//	exit()
//	history, err := model.Fit(dataset, nil, keras.FitConfig{Epochs: 5})
//
// Without GPUs, replicas run on logical CPUs: [SetLogicalCPUs] splits the
// CPU as tf.config.set_logical_device_configuration does.
//
// Custom training loops wrap the replica step in a keras.Function and run
// it with [MirroredStrategy.Run] on batches from
// [MirroredStrategy.ExperimentalDistributeDataset]; see
// examples/custom_training.
package distribute
