// Package distribute is tf.distribute for gokeras: [MirroredStrategy],
// [OneDeviceStrategy], [MultiWorkerMirroredStrategy] and
// [ParameterServerStrategy], their scopes,
// [MirroredStrategy.Run] and [MirroredStrategy.Reduce], distributed datasets
// and input sharding ([InputContext], [AutoShardPolicy]), cluster resolvers
// (TF_CONFIG, OpenMPI, Slurm: [ResolveCluster]), replica contexts and a
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
//
// # Several processes
//
// [NewMultiWorkerMirroredStrategy] trains over processes started by mpirun,
// Slurm's srun or a Kubernetes MPIJob: the same Fit, Evaluate, Predict and
// custom loops, with NumReplicasInSync = workers x local replicas. Local
// replicas reduce in process first, then one MPI call per pack of gradients
// (build tag mpi; the default build is a cluster of one worker and names the
// tag when the environment describes more). Where a worker stands comes from
// [ResolveCluster] and is checked against MPI. docs/multi_worker.md has the
// commands, the design and the measurements.
//
// # Parameter servers
//
// [NewParameterServerStrategy] is TensorFlow's asynchronous
// ParameterServerStrategy over gRPC: the variables that
// [ParameterServerStrategy.Track] places live on "ps" tasks (split by a
// [Partitioner] if asked), workers run the steps a [ClusterCoordinator]
// schedules on the chief and push their gradients to the servers, which
// apply their own optimizer in arrival order. A worker that dies is
// tolerated; a server that dies stops the job ([ErrParameterServerGone]).
// docs/parameter_server.md has the commands and the semantics.
package distribute
