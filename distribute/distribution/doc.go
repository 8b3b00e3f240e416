// Package distribution is Keras 3's keras.distribution for gokeras:
// [DeviceMesh], [TensorLayout], [LayoutMap], [DataParallel] and
// [ModelParallel], set with [SetDistribution] or a scope, plus
// [ListDevices] and [DistributeTensor].
//
// # Overview
//
// A [DeviceMesh] arranges devices in a grid with named axes, such as 2x2
// ("batch", "model"). A [TensorLayout] says, per dimension of a tensor,
// which mesh axis splits it ("" for none: replicated). A [LayoutMap] maps
// variable paths to layouts by regular expression, as Keras does: the
// exact key first, else the one key that matches the whole path.
//
//	mesh, _ := distribution.NewDeviceMesh([]int{2, 2}, []string{"batch", "model"}, nil)
//	lm := distribution.NewLayoutMap(mesh)
//	lm.Set(".*dense.*kernel", "", "model")
//	lm.Set(".*dense.*bias", "model")
//	mp, _ := distribution.NewModelParallel(lm, "batch")
//	exit := mp.Scope()
//	model, _ := keras.NewSequential(...)
//	model.Compile(...)
//	exit()
//	model.Fit(x, y, keras.FitConfig{...})
//
// Devices are logical CPUs ([distribute.SetLogicalCPUs]); GPUs (the cuda
// tag) and MPI ranks are not meshes yet.
//
// # Execution
//
// A distribution is an engine strategy with one replica per mesh device.
// Each device trains on its rows of every global batch. A weight laid out
// on mesh axes is stored, per device, as the device's shard, and so are
// its optimizer slots (FSDP/ZeRO): between steps that is all a device
// holds of them. During a step each kernel that reads a split weight
// borrows it whole, gathered from the shards, and gives it back; after the
// backward pass every device reduce-scatters the gradients (receiving the
// sum of its shard) and updates its shard with its own instance of the
// optimizer. GetWeights, SetWeights and saving read and write the shards (the
// model's variables and its optimizer's slots are backed by them), so a
// sharded model saves the files an unsharded one does, and a checkpoint
// resumes on another mesh. Sums run in device order, so a
// ModelParallel step is bitwise a MirroredStrategy step on the same
// devices, and equal to one device within float32 rounding.
// docs/model_parallel.md has the design and what is left.
package distribution
