// Package onnx writes gokeras models as ONNX models, the "onnx" format of
// Keras 3's model.export (keras.Model.Export calls it).
//
// # Overview
//
// [Marshal] converts a [Graph] (a model's layer calls in topological
// order, nested models inlined) into a standard ONNX ModelProto of
// operator set [Opset] with a symbolic batch dimension, weights stored as
// little-endian float32 initializers. Every layer class of
// [SupportedClasses] has a converter that reads the layer's Keras config
// (GetConfig) and weights, and so has every class of Keras 3 operation
// node of [SupportedOperations] (keras.ops calls recorded in functional
// graphs: MobileNetV3's `x + 3.0`, ConvNeXt's residual Add, told from
// the layers of the same names by their type, layers.Operation): the
// elementwise arithmetic and activations (layers_ops.go), the shape
// operations and indexing (reshape, transpose, expand_dims, squeeze,
// x[:, 1:5, ::2], x[..., None, 2], concatenate, stack, matmul;
// layers_ops_array.go) and the comparisons, logic, casts, where and
// reductions (layers_ops_math.go), each as gokeras computes it, booleans
// as float32 1 and 0. Their axes count the batch, which the graph keeps
// symbolic: a config that would move, index, slice or reduce the batch
// axis, or fix its size, is refused. Any
// other layer or operation, or a setting a converter
// cannot write, is an error naming the layer and its class
// ([LayerError], wrapping [ErrUnsupported]), never a graph that computes
// something else.
//
// Keras images are channels-last (NHWC) and ONNX's convolutions and
// poolings channels-first (NCHW); likewise sequences (NLC against NCL)
// and volumes (NDHWC against NCDHW) for the 1-D and 3-D ones. Each such
// value is held in one layout and converted at most once, when a layer
// needs the other: an image input is transposed once before the first
// convolution, the graph stays channels-first through convolutions,
// normalizations, activations and merges, and goes back to channels-last
// only where Keras' semantics depend on the order (Flatten, whose order
// the next Dense kernel's rows follow; Reshape; the outputs).
//
// The recurrent layers (SimpleRNN, LSTM, GRU, Bidirectional) are ONNX's
// RNN, LSTM and GRU nodes, their gates reordered to ONNX's and Keras'
// hard_sigmoid as HardSigmoid(alpha 1/6, beta 1/2) (see layers_rnn.go).
// A timestep mask (Embedding's mask_zero, Masking, or a Keras file's
// mask argument: NotEqual, Any and LogicalOr nodes attached by gokeras'
// MaskAttach; see layers_mask.go) is a (batch, steps) float value the
// graph carries beside the tensor as gokeras does; a recurrent layer that
// reads one is unrolled over its known steps, a node per step blended
// with the previous states by the mask (a masked step, anywhere, keeps
// the state and output, zero_output_for_mask honoured), since ONNX's
// sequence_lens can only say right padding. MultiHeadAttention and
// Attention (dot, concat, AdditiveAttention; scale, causal mask) are
// written out as MatMul, Softmax, Reshape and Transpose nodes in
// gokeras' order of operations, the masks applied as gokeras applies
// them, and TimeDistributed folds the steps into the batch around its
// inner layer's converter.
//
// The protobuf encoding is google.golang.org/protobuf's: the ONNX
// messages are described in Go (descriptorpb, with onnx.proto's field
// numbers) and built as dynamicpb messages, so no generated code or copy
// of onnx.proto is needed. tools/onnx_reference/check.sh runs exported
// models in onnxruntime against gokeras' predictions and through onnx's
// own checker.
//
// Everything is exported in float32: gokeras stores weights in float32
// under any dtype policy, so mixed-precision models export their float32
// weights and compute in float32.
package onnx
