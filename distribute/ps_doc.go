package distribute

// Parameter-server training (TensorFlow's tf.distribute.ParameterServerStrategy
// and ClusterCoordinator), in brief; docs/parameter_server.md has the rest.
//
//	s, err := NewParameterServerStrategy(resolver, VariablePartitioner(p), MaxStaleness(k), ConnectTimeout(d), RPCTimeout(d), StepTimeout(d), ChiefTimeout(d))
//	s.TaskType(), s.TaskID(), s.IsCoordinator(), s.NumWorkers(), s.NumPS(), s.Scope(), s.NumReplicasInSync() // 1
//	s.Track(model.Weights()...)            // every task, same order: ids and placement; the chief initialises the servers
//	s.RunReplicas(step)                    // worker (or chief): pull what the last push did not return, step (optimizer pushes gradients), assign changed non-trainables
//	s.PullVariables(vars...) / s.PushVariables(vars...)   // chief: servers -> model (before saving), model -> servers (after restoring)
//	s.OptimizerState() / s.SetOptimizerState(st)           // the servers' optimizer: config, iterations, slots per variable
//	s.SetOptimizer(opt)                    // chief, custom loops: after Track, before scheduling (under TLS the servers take an optimizer only from the chief)
//	c, _ := NewClusterCoordinator(s); f := c.Function("step", fn); ds := c.CreatePerWorkerDataset(newIter)
//	rv, err := c.Schedule(f, ds.Iterator(), 0.5); v, err := rv.Fetch(); err = c.Join(); c.Done()
//	s.Join()  // worker and ps tasks: serve until the chief's s.Close() shuts the cluster down (Model.Fit on a worker returns when the chief's Fit ends)
//	NewMPIParameterServerResolver(numPS) // -tags mpi: rank 0 chief, then ps, then workers
//	FixedShardsPartitioner(n), MinSizePartitioner(minShardBytes, maxShards), MaxSizePartitioner(maxShardBytes, maxShards)
//	errors.Is(err, ErrParameterServerGone): a server died; relaunch the job from the last checkpoint
