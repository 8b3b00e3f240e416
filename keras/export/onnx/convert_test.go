package onnx

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/ops"
)

func ins(ts ...*layers.KerasTensor) []*layers.KerasTensor { return ts }

// TestSeedCNNGraph: the seed CNN is one transpose to NCHW at the input,
// the convolutions and poolings channels-first, one transpose back
// before Flatten (Keras' row order of the Dense kernel), two Gemms; the
// input and output keep Keras' shapes with a symbolic batch, and the
// output is named after its layer.
func TestSeedCNNGraph(t *testing.T) {
	x := layers.Input([]int{28, 28, 1})
	conv := layers.NewConv2D(32, 3, layers.WithActivation("relu"))
	h := layers.Apply(conv, x)
	h = layers.Apply(layers.NewMaxPooling2D(), h)
	h = layers.Apply(layers.NewConv2D(64, 3, layers.WithActivation("relu")), h)
	h = layers.Apply(layers.NewMaxPooling2D(), h)
	h = layers.Apply(layers.NewFlatten(), h)
	h = layers.Apply(layers.NewDense(128, layers.WithActivation("relu")), h)
	last := layers.NewDense(10)
	y := layers.Apply(last, h)
	d := export(t, ins(x), ins(y))
	want := []string{"Transpose", "Conv", "Relu", "MaxPool", "Conv", "Relu", "MaxPool", "Transpose", "Flatten", "Gemm", "Relu", "Gemm"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	if p := d.nodes[0].ints["perm"]; !slices.Equal(p, []int64{0, 3, 1, 2}) {
		t.Errorf("input transpose perm %v", p)
	}
	if p := d.nodes[7].ints["perm"]; !slices.Equal(p, []int64{0, 2, 3, 1}) {
		t.Errorf("transpose before Flatten: perm %v", p)
	}
	if in := d.inputs[0]; in.name != x.Node().Layer.Name() || in.dtype != typeFloat || !slices.Equal(in.dims[1:], []int64{28, 28, 1}) || in.param[0] != "batch" {
		t.Errorf("input %+v", in)
	}
	if out := d.outputs[0]; out.name != last.Name() || !slices.Equal(out.dims[1:], []int64{10}) || d.nodes[11].outputs[0] != last.Name() {
		t.Errorf("output %+v (last node writes %v)", out, d.nodes[11].outputs)
	}
	c := d.nodes[1]
	if !slices.Equal(c.ints["kernel_shape"], []int64{3, 3}) || !slices.Equal(c.ints["pads"], []int64{0, 0, 0, 0}) || !slices.Equal(c.ints["strides"], []int64{1, 1}) || c.ints["group"][0] != 1 {
		t.Errorf("Conv attributes %v", c.ints)
	}
	if c.outputs[0] != conv.Name()+"/Conv" {
		t.Errorf("conv output %q", c.outputs[0])
	}
	if d.nodes[2].outputs[0] != conv.Name() {
		t.Errorf("the conv layer's value is %q, want the layer's name %q", d.nodes[2].outputs[0], conv.Name())
	}
	// The kernel is OIHW: W[o][i][y][x] = K[y][x][i][o].
	kernel := d.inits[c.inputs[1]]
	if !slices.Equal(kernel.dims, []int64{32, 1, 3, 3}) {
		t.Fatalf("kernel dims %v", kernel.dims)
	}
	k := conv.Kernel.Numpy()
	for _, idx := range [][3]int{{0, 0, 0}, {5, 1, 2}, {31, 2, 1}, {17, 2, 2}} {
		o, yy, xx := idx[0], idx[1], idx[2]
		if got, want := kernel.float((o*3+yy)*3+xx), k[(yy*3+xx)*32+o]; got != want {
			t.Errorf("W[%d][0][%d][%d] = %v, Keras kernel[%d][%d][0][%d] = %v", o, yy, xx, got, yy, xx, o, want)
		}
	}
	if b := d.inits[c.inputs[2]]; !slices.Equal(b.dims, []int64{32}) || b.float(3) != conv.Bias.Numpy()[3] {
		t.Errorf("bias %v", b.dims)
	}
}

// TestImageLayersStayChannelsFirst: a residual block with batch
// normalization, merges and global pooling transposes once, at the
// input; an image output is transposed back once, at the end.
func TestImageLayersStayChannelsFirst(t *testing.T) {
	x := layers.Input([]int{8, 8, 3})
	a := layers.Apply(layers.NewConv2D(4, 3, layers.WithPadding("same"), layers.WithStrides(2)), x)
	a = layers.Apply(layers.NewBatchNormalization(), a)
	a = layers.Apply(layers.NewReLU(), a)
	b := layers.Apply(layers.NewConv2D(4, 1, layers.WithStrides(2)), x)
	s := layers.AddTensors(a, b)
	s = layers.Apply(layers.NewZeroPadding2D(1, 1, 0, 2), s)
	s = layers.Apply(layers.NewLayerNormalization(), s)
	cat := layers.ConcatenateTensors(-1, s, s)
	g := layers.Apply(layers.NewGlobalAveragePooling2D(), cat)
	y := layers.Apply(layers.NewDense(2), g)
	d := export(t, ins(x), ins(y, cat))
	if n := d.count("Transpose"); n != 2 {
		t.Errorf("%d transposes (%v); want 2 (the input, the image output)", n, d.ops())
	}
	if d.nodes[0].op != "Transpose" || d.producerOf(d.outputs[1].name).op != "Transpose" {
		t.Errorf("transposes not at the input and the output: %v", d.ops())
	}
	for _, n := range d.nodes {
		switch n.op {
		case "Concat":
			if n.ints["axis"][0] != 1 {
				t.Errorf("Concat of channels on axis %v; want NCHW's 1", n.ints["axis"])
			}
		case "Pad":
			if pads := d.inits[n.inputs[1]]; len(pads.raw) != 64 {
				t.Errorf("Pad's pads %v", pads.dims)
			}
		case "Conv":
			if n.ints["strides"][0] == 2 && n.ints["kernel_shape"][0] == 3 && !slices.Equal(n.ints["pads"], []int64{0, 0, 1, 1}) {
				// 8 pixels, stride 2, kernel 3: 1 pixel of padding in all, after (TensorFlow's "same").
				t.Errorf("same padding %v", n.ints["pads"])
			}
		case "ReduceMean":
			if n.ints["axes"][0] != 1 {
				t.Errorf("LayerNormalization of channels reduces axis %v", n.ints["axes"])
			}
		case "LayerNormalization":
			t.Errorf("ONNX LayerNormalization over NCHW's last axis (width) for Keras' channels")
		}
	}
	if out := d.outputs[1]; !slices.Equal(out.dims[1:], []int64{6, 6, 8}) {
		t.Errorf("image output dims %v, want Keras' (batch, 6, 6, 8)", out.dims)
	}
}

// TestMixedPrecisionExportsFloat32: layers computing in bfloat16 export
// float32 weights and float32 computation, with no casts.
func TestMixedPrecisionExportsFloat32(t *testing.T) {
	p := layers.WithPolicy(mixedprecision.MustPolicy("mixed_bfloat16"))
	x := layers.Input([]int{4, 4, 2})
	h := layers.Apply(layers.NewConv2D(3, 3, p), x)
	h = layers.Apply(layers.NewFlatten(p), h)
	y := layers.Apply(layers.NewDense(2, p, layers.WithActivation("softmax")), h)
	d := export(t, ins(x), ins(y))
	for name, in := range d.inits {
		if in.dtype != typeFloat && in.dtype != typeInt64 {
			t.Errorf("initializer %s of type %d", name, in.dtype)
		}
	}
	if d.inputs[0].dtype != typeFloat || d.outputs[0].dtype != typeFloat || d.count("Cast") != 0 {
		t.Errorf("input %d, output %d, ops %v", d.inputs[0].dtype, d.outputs[0].dtype, d.ops())
	}
}

// stubLayer is a layer of any class whose config and weights the test
// chooses.
type stubLayer struct {
	layers.Base
	class string
	cfg   map[string]any
}

func (s *stubLayer) ClassName() string                       { return s.class }
func (s *stubLayer) GetConfig() map[string]any               { return s.cfg }
func (s *stubLayer) Call(in []ops.Tensor, _ bool) ops.Tensor { return in[0] }

// TestUnsupportedAndMalformedLayers: a class without a converter, a
// setting a converter cannot write, or a config or weight that does not
// fit is an error naming the layer and its class, never a panic or a
// silently different graph.
func TestUnsupportedAndMalformedLayers(t *testing.T) {
	for _, c := range []struct {
		class       string
		cfg         map[string]any
		unsupported bool
		msg         string
	}{
		{"ConvLSTM2D", nil, true, "the exporter writes"},
		{"GroupQueryAttention", nil, true, "the exporter writes"},
		{"TimeDistributed", nil, true, "TimeDistributed layer of type"},
		{"Activation", map[string]any{"activation": "hard_tanh"}, true, `activation "hard_tanh"`},
		{"Activation", map[string]any{"activation": map[string]any{"class_name": "MyAct"}}, true, "built-in activations"},
		{"Dense", map[string]any{"units": 3}, false, `no weight "kernel"`},
		{"Dense", map[string]any{"units": "three"}, false, `"units"`},
		{"Conv2D", map[string]any{"filters": 2, "kernel_size": []any{3, 3}, "data_format": "channels_first"}, true, "channels_first"},
		{"Conv2D", map[string]any{"filters": 2, "kernel_size": []any{3, 3}, "padding": "causal"}, true, "causal"},
		{"Conv2D", map[string]any{"filters": 2}, false, "kernel_size"},
		{"LayerNormalization", map[string]any{"rms_scaling": true}, true, "rms_scaling"},
		{"LayerNormalization", map[string]any{"axis": []any{1, 2}}, true, "one axis"},
		{"BatchNormalization", map[string]any{"axis": 1}, true, "axis 1"},
		{"UpSampling2D", map[string]any{"interpolation": "bicubic"}, true, "bicubic"},
		{"Reshape", map[string]any{"target_shape": []any{-2}}, false, "target_shape"},
		{"Concatenate", map[string]any{"axis": 0}, true, "batch axis"},
	} {
		x := layers.Input([]int{4, 4, 2})
		l := &stubLayer{Base: layers.NewBase(c.class), class: c.class, cfg: c.cfg}
		y := layers.Apply(l, x)
		_, err := Marshal(graphOf(t, ins(x), ins(y)))
		var le *LayerError
		if !errors.As(err, &le) || le.Layer != l.Name() || le.Class != c.class {
			t.Errorf("%s %v: error %v; want a LayerError naming %q (%s)", c.class, c.cfg, err, l.Name(), c.class)
			continue
		}
		if errors.Is(err, ErrUnsupported) != c.unsupported || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s %v: error %q; want one with %q (unsupported %v)", c.class, c.cfg, err, c.msg, c.unsupported)
		}
	}
}

// TestMalformedGraphs: graphs that do not hold together are errors.
func TestMalformedGraphs(t *testing.T) {
	x := layers.Input([]int{3})
	dense := layers.NewDense(2)
	y := layers.Apply(dense, x)
	good := graphOf(t, ins(x), ins(y))
	if _, err := Marshal(good); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		edit func(g *Graph)
	}{
		{"no inputs", func(g *Graph) { g.Inputs = nil }},
		{"no outputs", func(g *Graph) { g.Outputs = nil }},
		{"input tensor out of range", func(g *Graph) { g.Inputs[0].Tensor = 9 }},
		{"node input out of order", func(g *Graph) { g.Nodes[0].Inputs = []int{1} }},
		{"node output out of range", func(g *Graph) { g.Nodes[0].Output = -1 }},
		{"output never computed", func(g *Graph) { g.Outputs[0].Tensor = 5 }},
		{"two outputs of one name", func(g *Graph) { g.Outputs = append(g.Outputs, g.Outputs[0]) }},
		{"an input named as an output", func(g *Graph) { g.Inputs[0].Name = g.Outputs[0].Name }},
		{"nil layer", func(g *Graph) { g.Nodes[0].Layer = nil }},
		{"input dtype", func(g *Graph) { g.Tensors[0].Dtype = "string" }},
		{"input without batch", func(g *Graph) { g.Tensors[0].Shape = ops.Shape{3} }},
	} {
		g := graphOf(t, ins(x), ins(y))
		c.edit(&g)
		if _, err := Marshal(g); err == nil {
			t.Errorf("%s: no error", c.what)
		}
	}
}

// TestOutputsOfInputsAndRepeats: an output that is an input, or a tensor
// that is two outputs, is copied by an Identity under the output's name.
func TestOutputsOfInputsAndRepeats(t *testing.T) {
	x := layers.Input([]int{3})
	y := layers.Apply(layers.NewDropout(0.5), x) // the identity: y is x's value
	g := graphOf(t, ins(x), ins(y))
	g.Outputs = append(g.Outputs, Port{Name: "again", Tensor: g.Outputs[0].Tensor})
	data, err := Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, data)
	if !slices.Equal(d.ops(), []string{"Identity", "Identity"}) || d.nodes[0].inputs[0] != d.inputs[0].name {
		t.Errorf("ops %v", d.nodes)
	}
}

// TestSupportedClasses lists what the issue asks the exporter to write.
func TestSupportedClasses(t *testing.T) {
	have := SupportedClasses()
	for _, c := range []string{"Dense", "Conv2D", "DepthwiseConv2D", "SeparableConv2D", "Conv2DTranspose", "BatchNormalization",
		"LayerNormalization", "ReLU", "ELU", "LeakyReLU", "Activation", "MaxPooling2D", "AveragePooling2D", "GlobalAveragePooling2D",
		"GlobalMaxPooling2D", "Flatten", "Reshape", "Dropout", "Add", "Multiply", "Concatenate", "ZeroPadding2D", "Rescaling", "Embedding",
		"Normalization", "Conv1D", "Conv3D", "MaxPooling1D", "AveragePooling1D", "MaxPooling3D", "AveragePooling3D", "SimpleRNN", "LSTM", "GRU", "Bidirectional",
		"Masking", "TimeDistributed", "Attention", "AdditiveAttention"} {
		if !slices.Contains(have, c) {
			t.Errorf("%s has no converter", c)
		}
	}
}

// TestSupportedOperations lists the operation nodes the issue asks for:
// the elementwise ones of MobileNetV3, EfficientNet and ConvNeXt, the mask
// ones, and every class keras/testdata/zoo/op_graph.keras holds (shapes,
// indexing, reductions, comparisons, casts, matmul).
func TestSupportedOperations(t *testing.T) {
	have := SupportedOperations()
	for _, c := range []string{"Add", "Subtract", "Multiply", "TrueDivide", "Power", "Maximum", "Minimum", "Relu", "Relu6", "Sigmoid",
		"HardSigmoid", "HardSilu", "Silu", "Selu", "Gelu", "Elu", "LeakyRelu", "Softplus", "Softsign", "Tanh", "Softmax", "LogSoftmax",
		"Negative", "Absolute", "Square", "Sqrt", "Exp", "Log", "Clip", "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "Any",
		"Reshape", "Transpose", "ExpandDims", "Squeeze", "GetItem", "Concatenate", "Stack", "Matmul", "Greater", "GreaterEqual", "Less",
		"LessEqual", "LogicalNot", "LogicalXor", "Sign", "Cast", "Where", "Sum", "Mean", "Max", "Min", "All"} {
		if !slices.Contains(have, c) {
			t.Errorf("operation %s has no converter", c)
		}
	}
}
