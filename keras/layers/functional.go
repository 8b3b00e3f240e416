package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// KerasTensor is a symbolic tensor of the functional API: a shape (with
// batch -1, and -1 for any dimension of unknown size, Keras' None), a
// dtype and the layer call that produced it. Errors along the way are
// kept in it, like bufio.Scanner keeps its error.
type KerasTensor struct {
	shape ops.Shape
	dtype string
	call  *CallNode
	err   error
}

// CallNode is one call of a layer on KerasTensors: a node of a functional
// model's graph. A layer called twice (shared) has two CallNodes.
type CallNode struct {
	Layer   Layer
	Inputs  []*KerasTensor
	Output  *KerasTensor
	Index   int // which call of Layer this is (0 for the first)
	IsInput bool
	// Training, when set, is the training argument this call was made
	// with (Keras' `base_model(x, training=False)`). False wins over the
	// mode the enclosing model runs in, so a base model called with
	// training false stays in inference mode while the model trains,
	// even after it is unfrozen (tf.keras' and Keras' guide's meaning;
	// Keras 3.15 itself lets fit's training=True through). True holds
	// only while the model trains: Predict and Evaluate run the call in
	// inference, as Keras 3's predict does with a node saved with
	// training=True.
	Training *bool
}

// Shape returns the symbolic shape; dimension 0 is the batch (-1).
func (k *KerasTensor) Shape() ops.Shape { return k.shape.Clone() }

// Dtype returns the tensor's dtype: "float32", or the dtype of the Input
// it is (WithDtype).
func (k *KerasTensor) Dtype() string {
	if k.dtype == "" {
		return "float32"
	}
	return k.dtype
}

// Err returns the first error met building this tensor.
func (k *KerasTensor) Err() error { return k.err }

// Node returns the layer call that produced k.
func (k *KerasTensor) Node() *CallNode { return k.call }

// InputLayer is the layer behind [Input]: it passes its input through.
type InputLayer struct {
	Base
	shape  ops.Shape
	tensor *KerasTensor
}

// None is a dimension of unknown size in an Input's shape (Keras'
// None): keras.Input(shape=(None, 8)) is Input([]int{layers.None, 8}).
// A model traces its steps once per concrete input shape, so a model
// with None dimensions (variable sequence lengths) retraces for each new
// length it sees.
const None = -1

// Input makes a symbolic input of the given shape (without batch), as
// keras.Input. A dimension may be [None] (-1), of unknown size. Options:
// WithName, WithDtype ("float32", the default, or "int32" / "int64" for
// token ids feeding an Embedding: the ids still travel as float32
// values, exact up to 2^24).
func Input(shape []int, opts ...Option) *KerasTensor {
	return NewInputLayer(shape, opts...).tensor
}

// NewInputLayer makes the InputLayer of an [Input], as
// keras.layers.InputLayer(shape=...): a Sequential model that starts
// with it is built for that shape at once, as
// keras.Sequential([keras.Input(shape), ...]). Its [InputLayer.Output]
// is the symbolic input.
func NewInputLayer(shape []int, opts ...Option) *InputLayer {
	l := &InputLayer{shape: append(ops.Shape{-1}, shape...)}
	l.Base.class = "InputLayer"
	l.cfg, l.err = newConfig("InputLayer", []string{"dtype"}, opts)
	l.name = l.cfg.name
	if l.name == "" {
		l.name = UniqueName("input")
		if l.name == "input" {
			// Keras numbers inputs from 1: input_1, input_2, ...
			l.name = UniqueName("input")
		}
	}
	l.built = true
	l.trainable = true
	for _, d := range shape {
		if (d == 0 || d < None) && l.err == nil {
			l.err = fmt.Errorf("layers: Input %q: shape %v has a non-positive dimension %d; want sizes > 0, or None (-1) for an unknown size", l.name, shape, d)
		}
	}
	dtype := l.cfg.input.dtype
	if err := checkInputDtype(dtype); err != nil && l.err == nil {
		l.err = fmt.Errorf("layers: Input %q: %w", l.name, err)
	}
	kt := &KerasTensor{shape: l.shape, dtype: dtype, err: l.err}
	kt.call = &CallNode{Layer: l, Output: kt, IsInput: true}
	l.tensor = kt
	l.recordCall(nil, kt)
	return l
}

// Tensor returns the symbolic input the layer makes (its output).
func (l *InputLayer) Tensor() *KerasTensor { return l.tensor }

// Dtype returns the input's dtype ("float32" unless WithDtype).
func (l *InputLayer) Dtype() string { return l.tensor.Dtype() }

// Build implements Layer.
func (l *InputLayer) Build([]ops.Shape) error { return nil }

// Call implements Layer.
func (l *InputLayer) Call(in []ops.Tensor, _ bool) ops.Tensor { return in[0] }

// GetConfig implements Layer.
func (l *InputLayer) GetConfig() map[string]any {
	shape := make([]any, len(l.shape))
	for i, d := range l.shape {
		if d >= 0 {
			shape[i] = d
		}
	}
	return map[string]any{"name": l.name, "batch_input_shape": shape, "dtype": l.Dtype(), "sparse": false}
}

// OutputShape returns the input's shape (batch -1).
func (l *InputLayer) OutputShape() ops.Shape { return l.shape.Clone() }

var callCounts = map[Layer]int{}

// Apply calls layer l on symbolic inputs, building it on first use, as
// `layer(x)` does in Keras. The output's shape is computed by tracing the
// layer once on placeholders.
func Apply(l Layer, inputs ...*KerasTensor) *KerasTensor {
	return apply(l, nil, inputs)
}

// ApplyTraining is [Apply] with Keras' training argument given:
// `layer(x, training=False)`. The call runs in that mode whatever mode
// the model holding it runs in (see [CallNode.Training]); fine-tuning
// calls a pretrained base this way so its BatchNormalization layers
// keep their moving statistics.
func ApplyTraining(l Layer, training bool, inputs ...*KerasTensor) *KerasTensor {
	return apply(l, &training, inputs)
}

func apply(l Layer, training *bool, inputs []*KerasTensor) *KerasTensor {
	out := &KerasTensor{}
	for _, in := range inputs {
		if in == nil {
			out.err = fmt.Errorf("layers: %s %q: nil input", l.ClassName(), l.Name())
			return out
		}
		if in.err != nil {
			out.err = in.err
			return out
		}
	}
	shapes := make([]ops.Shape, len(inputs))
	for i, in := range inputs {
		shapes[i] = in.shape
	}
	shape, err := OutputShape(l, shapes)
	if err != nil {
		out.err = err
		return out
	}
	out.shape = shape
	namesMu.Lock()
	idx := callCounts[l]
	callCounts[l] = idx + 1
	namesMu.Unlock()
	out.call = &CallNode{Layer: l, Inputs: inputs, Output: out, Index: idx, Training: training}
	if r, ok := l.(interface {
		recordCall([]*KerasTensor, *KerasTensor)
	}); ok {
		r.recordCall(inputs, out)
	}
	return out
}

// OutputShape builds l if needed and returns its output shape for inputs of
// the given shapes (batch -1), by tracing a call on placeholders.
func OutputShape(l Layer, shapes []ops.Shape) (out ops.Shape, err error) {
	if err := l.Err(); err != nil {
		return nil, err
	}
	Track(l) // a user's layer: the layers and variables in its fields
	if !l.Built() {
		if err := buildGuarded(l, shapes); err != nil {
			return nil, fmt.Errorf("layers: %s %q: build for input %v: %w", l.ClassName(), l.Name(), shapesStr(shapes), err)
		}
		if b, ok := l.(interface{ setBuilt() }); ok {
			b.setBuilt() // a user's layer embedding Base, as Keras' build wrapper
		}
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*ops.Error)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("layers: %s %q: input %v: %w", l.ClassName(), l.Name(), shapesStr(shapes), e)
		}
	}()
	// A stand-in batch of 2, and stand-in sizes for None dimensions:
	// shapes are checked, nothing is computed. With None dimensions a
	// second trace with other sizes tells which output dimensions follow
	// them (None) and which do not.
	trace := func(none int) ops.Shape {
		tr := ops.NewTrace(false, 0, 0)
		ins := make([]ops.Tensor, len(shapes))
		for i, s := range shapes {
			c := s.Clone()
			for j := range c {
				if c[j] < 0 {
					c[j] = none
					if j == 0 {
						c[j] = 2
					}
				}
			}
			ins[i] = tr.Input("x", c)
		}
		return l.Call(ins, false).Shape()
	}
	if !hasNone(shapes) {
		out = trace(5)
	} else {
		out = traceNone(shapes, trace)
	}
	if len(out) > 0 && len(shapes) > 0 && len(shapes[0]) > 0 && shapes[0][0] < 0 {
		out[0] = -1
	}
	return out, nil
}

// noneSizes are the pairs of stand-in sizes tried for None dimensions,
// smallest first: a layer whose window does not fit the smaller sizes
// (a 7x7 "valid" convolution on 5 pixels: ResNet's stem on a None-sized
// image) is traced with larger ones, and a layer whose stride folds both
// sizes of a pair onto one output size (ConvNeXt's stride-4 stem turns 5
// and 7 into 1) with pairs that differ by more.
var noneSizes = [][2]int{{5, 7}, {37, 101}, {263, 519}}

// traceNone traces a call on inputs with None dimensions with the first
// pair of noneSizes both of whose traces succeed, and marks the output
// dimensions that differ between the two None. Where an output of the
// input's rank keeps equal sizes at a place the first input has None, the
// larger pairs are traced too and the dimensions that differ in any of
// them are None. When no pair fits it panics with the first pair's error.
func traceNone(shapes []ops.Shape, trace func(none int) ops.Shape) ops.Shape {
	var first any
	var out ops.Shape
	for _, p := range noneSizes {
		a, b, r := func() (a, b ops.Shape, r any) {
			defer func() { r = recover() }()
			return trace(p[0]), trace(p[1]), nil
		}()
		if r != nil {
			if _, ok := r.(*ops.Error); !ok {
				panic(r)
			}
			if first == nil {
				first = r
			}
			continue
		}
		if out == nil {
			out = a
		}
		for i := range out {
			if i < len(a) && i < len(b) && a[i] != b[i] {
				out[i] = -1
			}
		}
		if !foldedNone(shapes[0], out) {
			return out
		}
	}
	if out == nil {
		panic(first)
	}
	return out
}

// foldedNone reports whether out, of in's rank, has a known size where
// in has None (past the batch): a stride may have folded the two
// stand-in sizes onto one.
func foldedNone(in, out ops.Shape) bool {
	if len(in) != len(out) {
		return false
	}
	for i := 1; i < len(in); i++ {
		if in[i] < 0 && out[i] >= 0 {
			return true
		}
	}
	return false
}

// hasNone reports whether a shape has a dimension of unknown size past
// the batch.
func hasNone(shapes []ops.Shape) bool {
	for _, s := range shapes {
		for j, d := range s {
			if j > 0 && d < 0 {
				return true
			}
		}
	}
	return false
}

// buildGuarded is l.Build, with an *ops.Error it panics with (a weight
// whose shape depends on a None dimension, say) returned as an error.
func buildGuarded(l Layer, shapes []ops.Shape) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*ops.Error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	return l.Build(shapes)
}

func shapesStr(s []ops.Shape) string {
	if len(s) == 1 {
		return s[0].String()
	}
	return fmt.Sprint(s)
}

// ResetCallCounts forgets how often layers were called; keras.ClearSession uses it.
func ResetCallCounts() {
	namesMu.Lock()
	callCounts = map[Layer]int{}
	namesMu.Unlock()
}
