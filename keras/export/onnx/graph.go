package onnx

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// Opset is the version of the default ONNX operator set the exported
// graphs use, and IRVersion the ONNX IR version that goes with it (ONNX
// 1.12's pair). Opset 17 is the first with LayerNormalization and is
// run by every current runtime.
const (
	Opset     = 17
	IRVersion = 8
)

// Graph is a Keras model's computation as [Marshal] converts it: tensors
// numbered by their index in Tensors, the model's inputs and outputs by
// name, and every layer call in topological order. A model nested in
// another is inlined: its layer calls appear among the outer ones,
// reading the outer tensors, so the same inner model called twice has
// two sets of calls over different tensors.
type Graph struct {
	// Name is the graph's name (the model's).
	Name string
	// Tensors are the symbolic tensors of the model: Keras shapes (batch
	// -1, -1 for any other dimension of unknown size) and dtypes.
	Tensors []Tensor
	Inputs  []Port
	Outputs []Port
	Nodes   []Node
}

// Tensor is one symbolic tensor of a [Graph].
type Tensor struct {
	Shape ops.Shape // Keras' (channels-last) shape, batch -1
	Dtype string    // "float32" unless an Input says "int32" or "int64"
}

// Port is a named input or output of a [Graph].
type Port struct {
	Name   string
	Tensor int // index in Graph.Tensors
}

// Node is one call of a layer in a [Graph].
type Node struct {
	Layer layers.Layer
	// Name names the call's ONNX nodes and its output value: the layer's
	// name, prefixed by the enclosing models' names for nested models
	// ("encoder/dense"). Names are made unique if they collide.
	Name   string
	Inputs []int // indices in Graph.Tensors
	Output int
}

// ErrUnsupported is the cause of every error for a layer, or a setting
// of a layer, that the exporter cannot write as ONNX: errors.Is(err,
// onnx.ErrUnsupported) tells it from a malformed graph.
var ErrUnsupported = errors.New("not supported by the ONNX export")

// LayerError is an error converting one layer call; it names the layer
// and its Keras class.
type LayerError struct {
	Layer, Class string
	Err          error
}

func (e *LayerError) Error() string {
	return fmt.Sprintf("onnx: layer %q (%s): %v", e.Layer, e.Class, e.Err)
}

func (e *LayerError) Unwrap() error { return e.Err }

// ONNX's TensorProto.DataType numbers the exporter uses.
const (
	typeFloat int32 = 1
	typeInt32 int32 = 6
	typeInt64 int32 = 7
	typeBool  int32 = 9
)

// attr is one attribute of a node; exactly one of the value fields is meaningful, by kind.
type attr struct {
	name    string
	kind    int32 // AttributeProto.AttributeType: 1 float, 2 int, 3 string, 6 floats, 7 ints, 8 strings
	f       float32
	i       int64
	s       string
	floats  []float32
	ints    []int64
	strings []string
}

func attrInt(name string, v int) attr       { return attr{name: name, kind: 2, i: int64(v)} }
func attrFloat(name string, v float64) attr { return attr{name: name, kind: 1, f: float32(v)} }
func attrString(name, v string) attr        { return attr{name: name, kind: 3, s: v} }
func attrStrings(name string, vs ...string) attr {
	return attr{name: name, kind: 8, strings: append([]string(nil), vs...)}
}
func attrFloats(name string, vs ...float64) attr {
	a := attr{name: name, kind: 6, floats: make([]float32, len(vs))}
	for i, v := range vs {
		a.floats[i] = float32(v)
	}
	return a
}
func attrInts(name string, vs ...int) attr {
	a := attr{name: name, kind: 7, ints: make([]int64, len(vs))}
	for i, v := range vs {
		a.ints[i] = int64(v)
	}
	return a
}

// node is one ONNX node of the graph being built.
type node struct {
	op      string
	name    string
	inputs  []string
	outputs []string
	attrs   []attr
}

// initializer is a constant tensor: a weight or a shape.
type initializer struct {
	name  string
	dtype int32
	dims  []int64
	raw   []byte // little-endian values
}

// valueInfo is a graph input or output: its type and shape, each
// dimension a size or, when param is set, a symbol.
type valueInfo struct {
	name  string
	dtype int32
	dims  []int64
	param []string // per dimension: "" for a known size
}

// builder accumulates an ONNX graph: nodes in order, initializers, and
// the names given out so far (value, node and initializer names are
// unique in the graph).
type builder struct {
	nodes    []node
	inits    []initializer
	inputs   []valueInfo
	outputs  []valueInfo
	names    map[string]bool
	scope    string // the layer call whose nodes are being made
	graphIns map[string]bool
}

// fresh returns base, or base_1, base_2, ... if base is taken.
func (b *builder) fresh(base string) string {
	if b.names == nil {
		b.names = map[string]bool{}
	}
	name := base
	for i := 1; b.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	b.names[name] = true
	return name
}

// op appends a node of one output under the current scope and returns
// the output's name: scope/op, or out when given.
func (b *builder) op(op string, inputs []string, out string, attrs ...attr) string {
	if out == "" {
		out = b.fresh(b.scope + "/" + op)
	}
	b.nodes = append(b.nodes, node{op: op, name: b.fresh(b.scope + "/" + op + "_node"), inputs: inputs, outputs: []string{out}, attrs: attrs})
	return out
}

// opOuts appends a node of several outputs under the current scope:
// outs[i] names output i, "" leaving an optional output out.
func (b *builder) opOuts(op string, inputs, outs []string, attrs ...attr) {
	b.nodes = append(b.nodes, node{op: op, name: b.fresh(b.scope + "/" + op + "_node"), inputs: inputs, outputs: outs, attrs: attrs})
}

// constFloats adds a float32 initializer named scope/name.
func (b *builder) constFloats(name string, dims []int, data []float32) string {
	n := b.fresh(b.scope + "/" + name)
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		putFloat32(raw[4*i:], v)
	}
	b.inits = append(b.inits, initializer{name: n, dtype: typeFloat, dims: int64s(dims), raw: raw})
	return n
}

// constInt64s adds an int64 initializer (shapes, pads, axes).
func (b *builder) constInt64s(name string, dims []int, data []int64) string {
	n := b.fresh(b.scope + "/" + name)
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		putUint64(raw[8*i:], uint64(v))
	}
	b.inits = append(b.inits, initializer{name: n, dtype: typeInt64, dims: int64s(dims), raw: raw})
	return n
}

// scalar is a float32 constant of shape [] (broadcast by the elementwise ops).
func (b *builder) scalar(name string, v float64) string {
	return b.constFloats(name, nil, []float32{float32(v)})
}

// rename gives the value old the name new everywhere in the graph.
func (b *builder) rename(old, new string) {
	for i := range b.nodes {
		for j, s := range b.nodes[i].inputs {
			if s == old {
				b.nodes[i].inputs[j] = new
			}
		}
		for j, s := range b.nodes[i].outputs {
			if s == old {
				b.nodes[i].outputs[j] = new
			}
		}
	}
}

// produced reports whether a node makes value name.
func (b *builder) produced(name string) bool {
	for _, n := range b.nodes {
		for _, o := range n.outputs {
			if o == name {
				return true
			}
		}
	}
	return false
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, d := range v {
		out[i] = int64(d)
	}
	return out
}

// sanitize keeps a Keras name usable as an ONNX name (any string is valid
// ONNX; this only removes characters tools print badly).
func sanitize(s string) string {
	if s == "" {
		return "tensor"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}
