// Package engine replays traced graphs: it is the CPU executor of gokeras
// and the tf.function of the package keras.
//
// # Overview
//
// [Compile] turns an [ops.Trace] into a [Program]: the graph's nodes in
// topological order, each with an output buffer allocated once, so a replay
// ([Program.Run]) allocates nothing. Variables are bound to the storage of
// their replica copy; placeholders to the caller's input buffers; hooks
// (optimizer updates, metrics) run after the graph on the values they asked
// for.
//
// [Function] traces a step function once per input shape and caches the
// program, as tf.function retraces per input signature.
//
// Why not gorgonia's TapeMachine: see docs/design.md. In short, the executor
// must own buffers (planned once, reused), bind variable copies per replica
// and run hooks between steps; our ops expose flat float32 kernels for that.
package engine
