// Package ops is the public operation set of gokeras: the functions layers,
// losses and user train steps call to build a traced computation.
//
// # Overview
//
// A step function is traced once per input shape into a gorgonia
// ExprGraph (like tf.function). A [Trace] owns that graph; a [Tensor] is a
// symbolic value in it. Every op here is a gorgonia Op of ours (type [*Op])
// carrying a forward kernel and a symbolic derivative, so gradients come from
// gorgonia's symbolic differentiation ([Gradients]) and any executor that
// knows our ops can replay the graph (package engine on the CPU).
//
// Variables ([Variable]) outlive graphs: a trace reads them through
// [Trace.Read], which binds the variable's storage (one copy per replica) to
// an input node of that graph.
//
// Layout is NHWC (channels last) and every value is float32, as in Keras.
// Labels and class ids travel as float32 too.
//
// Misuse while building a graph (incompatible shapes, bad arguments) panics
// with an [*Error] naming the op and the shapes; the public boundaries of
// package keras (model construction, Compile, Fit, Predict) recover it into a
// returned error, so users never see a gorgonia stack trace.
package ops
