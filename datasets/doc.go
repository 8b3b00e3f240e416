// Package datasets loads standard datasets and feeds them to training
// through a tf.data-like input pipeline.
//
// # Overview
//
// The loaders mirror keras.datasets: LoadMNIST and LoadFashionMNIST return
// (train, test) Pairs whose X is a uint8 tensor of shape (N, 28, 28) and Y a
// uint8 tensor of class ids, shape (N,). They read the original idx files
// (gzipped or not) or Keras' mnist.npz. With the Dir option they read that
// folder and nowhere else: a folder that is missing or lacks the files is an
// error naming the folder and the files looked for, never a reason to train
// on another copy. Otherwise they look where Keras does first (Keras' cache,
// $KERAS_HOME/datasets or ~/.keras/datasets), then in each folder listed in
// $GOKERAS_DATASETS (see EnvDatasets; separated like PATH), then in
// machine-wide folders of Debian packages (/usr/share/datasets/fashion-mnist),
// take the first complete copy, and download Keras' files into Keras' cache
// when none holds one (NoDownload turns that off). When nothing is found the
// error wraps ErrNotFound and lists every place searched; a file that exists
// but is damaged gives an error wrapping ErrFormat that names the file and
// the problem. ToFloat32 and LabelsToFloat32 turn the uint8 tensors into the
// float32 tensors models train on.
//
// # Untrusted files
//
// Every reader treats its file as untrusted: a damaged or hostile file
// gets an error, never a panic, a hang or an allocation the file did not
// pay for. Headers are checked against each other and against what a real
// file of their kind holds before any payload is read (a million images at
// most in an idx file or npz array, 192 MiB for a CIFAR file), buffers are
// sized by what a file can hold rather than by what it claims, labels
// outside the dataset's classes are reported at load time, and the pickle
// reader charges what it builds against a budget of a few bytes per byte of
// input. Fuzz targets (fuzz_test.go) check these bounds.
//
// The pipeline describes a stream of Elements (tuples of tensors) as an
// immutable Dataset built by chaining transformations, as with tf.data:
//
//	ds, err := datasets.FromTensorSlices(x, y) // one element per row
//	ds = ds.Shuffle(60000, seed).Batch(64).Prefetch(2)
//	it := ds.Iterate(ctx)
//	defer it.Close()
//	for batch, ok := it.Next(); ok; batch, ok = it.Next() {
//		// batch[0]: (64, 28, 28, 1), batch[1]: (64,)
//	}
//	err = it.Err()
//
// Other sources and stages follow tf.data: Range, Take, Skip, Repeat,
// Cache, Map and MapParallel; Go's variadic parameters stand for its
// optional arguments (Shuffle's seed, Batch's drop_remainder).
// MapPairs maps (x, y) pairs as ds.map(lambda x, y: ...) does, and
// Resize, Cast, ExpandDims and Arange are tf.image.resize, tf.cast,
// np.expand_dims and np.arange for the tensors of a pipeline, equal to
// TensorFlow's results (Float32, Uint8, ... are Keras' dtype names).
//
// Each Iterate is a new pass; Shuffle reorders every pass differently but
// deterministically from its seed. Stages are pulled one element at a time
// in the caller's goroutine, except Prefetch and MapParallel, which run
// goroutines that Close (or the end of the pass, or cancelling the
// context) stops and waits for. Rows of FromTensorSlices are not turned into
// tensors until needed: Shuffle moves indices and Batch copies rows from the
// source into one new tensor per component, so an epoch of MNIST in batches
// of 64 costs two allocations per batch, not per example.
//
// Cardinality follows tf.data, with the Infinite and Unknown constants.
// Errors never panic: invalid arguments produce a Dataset whose iterator
// fails at once, and errors from Map functions or generators end the pass
// and are returned by Iterator.Err. So does a panic in such a function,
// as a *PanicError, also where the function runs in a goroutine of
// Prefetch or MapParallel, where the panic would otherwise end the program.
package datasets
