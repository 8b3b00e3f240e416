package keras

import (
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/ops"
)

// The models of the ONNX export cases (export_test.go's exportCases).

// exportSeedResNet is the seed ResNet at full width
// (examples/internal/models.ResNetSeed: 2.8 million parameters).
func exportSeedResNet(t *testing.T) *Model {
	in := layers.Input([]int{32, 32, 3})
	x := layers.Apply(layers.NewConv2D(64, 7, layers.WithStrides(2), layers.WithPadding("same")), in)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	x = layers.Apply(layers.NewReLU(), x)
	x = layers.Apply(layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), x)
	for _, b := range []struct {
		filters, stride int
		conv            bool
	}{{64, 1, true}, {64, 1, false}, {128, 2, true}, {128, 1, false}, {256, 2, true}, {256, 1, false}} {
		x = ioBlock(x, b.filters, 3, b.stride, b.conv)
	}
	x = layers.Apply(layers.NewGlobalAveragePooling2D(), x)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{layers.Apply(layers.NewDense(10), x)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportMLP has Dense layers with every activation the exporter writes,
// the activation layers and the normalizations of (batch, features).
func exportMLP(t *testing.T) *Model {
	x := layers.Input([]int{6}, layers.WithName("features"))
	h := x
	for _, act := range []string{"relu", "gelu", "swish", "hard_sigmoid", "hard_swish", "tanh", "elu", "selu",
		"softplus", "softsign", "mish", "relu6", "leaky_relu", "sigmoid", "linear"} {
		h = layers.Apply(layers.NewDense(6, layers.WithActivation(act)), h)
	}
	h = layers.Apply(layers.NewLayerNormalization(), h)
	h = layers.Apply(layers.NewBatchNormalization(), h)
	h = layers.Apply(layers.NewDropout(0.5), h)
	a := layers.Apply(layers.NewReLU(layers.WithMaxValue(0.4), layers.WithNegativeSlope(0.1), layers.WithThreshold(0.05)), h)
	b := layers.Apply(layers.NewReLU(layers.WithNegativeSlope(0.2)), h)
	c := layers.Apply(layers.NewLeakyReLU(layers.WithNegativeSlope(0.25)), h)
	d := layers.Apply(layers.NewELU(layers.WithAlpha(0.7)), h)
	h = layers.AverageTensors(layers.SubtractTensors(a, b), layers.MaximumTensors(c, d), layers.MultiplyTensors(a, d))
	h = layers.Apply(layers.NewActivation("gelu"), h)
	h = layers.Apply(layers.NewReshape([]int{3, 2}), h)
	h = layers.Apply(layers.NewDense(4, layers.WithActivation("softmax")), h) // on (batch, 3, 2): MatMul
	h = layers.Apply(layers.NewLayerNormalization(layers.WithAxis(1)), h)
	h = layers.Apply(layers.NewSoftmax(), h)
	h = layers.Apply(layers.NewFlatten(), h)
	out := layers.Apply(layers.NewDense(3, layers.WithActivation("log_softmax")), h)
	m, err := NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportMobile has the MobileNet-style convolutions and the image layers
// around them.
func exportMobile(t *testing.T) *Model {
	in := layers.Input([]int{12, 10, 3}, layers.WithName("image"))
	x := layers.Apply(layers.NewRescaling(1.0/127.5, layers.WithOffset(-1)), in)
	x = layers.Apply(layers.NewZeroPadding2D(1, 0, 2, 1), x)
	x = layers.Apply(layers.NewConv2D(8, 3, layers.WithStrides(2), layers.WithActivation("relu6")), x)
	x = layers.Apply(layers.NewConv2D(8, 3, layers.WithGroups(2), layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewConv2D(8, 3, layers.WithGroups(8), layers.WithPadding("same"), layers.WithDilationRate(2)), x) // depthwise as grouped
	d := layers.Apply(layers.NewDepthwiseConv2D(3, layers.WithPadding("same"), layers.WithDepthMultiplier(2), layers.WithActivation("hard_swish")), x)
	d = layers.Apply(layers.NewBatchNormalization(), d)
	s := layers.Apply(layers.NewSeparableConv2D(16, 3, layers.WithPadding("same"), layers.WithDilationRate(2), layers.WithActivation("swish")), x)
	x = layers.MultiplyTensors(d, layers.Apply(layers.NewActivation("sigmoid"), s))
	x = layers.Apply(layers.NewLayerNormalization(), x) // over the channels, axis 1 of NCHW
	x = layers.Apply(layers.NewDepthwiseConv2D(3, layers.WithStrides(2), layers.WithPadding("same"), layers.WithUseBias(false)), x)
	y := layers.Apply(layers.NewAveragePooling2D(layers.WithPoolSize(2), layers.WithStrides(1), layers.WithPadding("same")), x)
	z := layers.Apply(layers.NewMaxPooling2D(layers.WithPoolSize(2), layers.WithStrides(1), layers.WithPadding("same")), x)
	x = layers.ConcatenateTensors(-1, y, z)
	x = layers.Apply(layers.NewConv2DTranspose(6, 3, layers.WithStrides(2), layers.WithPadding("same"), layers.WithActivation("elu")), x)
	x = layers.Apply(layers.NewConv2DTranspose(4, 2, layers.WithStrides(2), layers.WithPadding("valid")), x)
	x = layers.Apply(layers.NewCropping2D(1, 2, 0, 1), x)
	x = layers.Apply(layers.NewActivation("softmax"), x) // over the channels
	pooled := layers.Apply(layers.NewGlobalMaxPooling2D(), x)
	kept := layers.Apply(layers.NewGlobalAveragePooling2D(layers.WithKeepDims(true)), x)
	out := layers.Apply(layers.NewDense(5), layers.ConcatenateTensors(-1, pooled, layers.Apply(layers.NewFlatten(), kept)))
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out, x}, ModelName("mobile"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportOperations has Keras 3 operation nodes (keras.ops calls on
// symbolic tensors: MobileNetV3's hard sigmoid, ConvNeXt's residual Add,
// products with constant arrays),
// the Normalization layer (per channel, adapted, and fixed), and Dense
// layers on images.
func exportOperations(t *testing.T) *Model {
	in := layers.Input([]int{5, 4, 3})
	norm := layers.NewNormalization(layers.NormalizationSettings{})
	x := layers.Apply(norm, in)
	// EfficientNet's ImageNet stem: one scale per channel, a constant array.
	x = layers.CallOp("Multiply", nil, x, layers.OpArray{Shape: []int{3}, Values: []float64{2.09, 2.11, 2.108}, Dtype: "float32"})
	x = layers.Apply(layers.NewConv2D(4, 3, layers.WithPadding("same")), x)
	// A constant of (width, channels) on the channels-first image, reordered as it is.
	wc := make([]float64, 16)
	for i := range wc {
		wc[i] = 0.5 + float64(i)/16
	}
	x = layers.CallOp("Multiply", nil, layers.OpArray{Shape: []int{1, 4, 4}, Values: wc, Dtype: "float32"}, x)
	hs := layers.CallOp("Multiply", nil, layers.Apply(layers.NewReLU(layers.WithMaxValue(6)), layers.CallOp("Add", nil, x, 3.0)), 1.0/6)
	x = layers.Apply(layers.NewMultiply(), x, hs)
	y := layers.Apply(layers.NewDense(4, layers.WithActivation("gelu")), x) // a 1x1 convolution of the NCHW image
	x = layers.CallOp("Add", nil, x, y)
	x = layers.CallOp("Subtract", nil, 2.0, layers.CallOp("Divide", nil, x, 4.0))
	x = layers.CallOp("Maximum", nil, layers.CallOp("Gelu", nil, x), layers.CallOp("Tanh", nil, x))
	x = layers.CallOp("Softmax", map[string]any{"axis": -1}, x)
	x = layers.Apply(layers.NewNormalization(layers.NormalizationSettings{Mean: []float64{0.1, 0.2, 0.3, 0.4}, Variance: []float64{2, 1, 0.5, 0.25}, Invert: true}), x)
	x = layers.Apply(layers.NewDense(3), layers.Apply(layers.NewGlobalAveragePooling2D(layers.WithKeepDims(true)), x)) // Dense on a 1x1 image
	out := layers.Apply(layers.NewFlatten(), x)                                                                        // no transpose for a 1x1 image
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	data := make([]float32, 6*5*4*3)
	for i := range data {
		data[i] = float32(r.NormFloat64()*2 + float64(i%3))
	}
	if err := norm.Adapt(ops.Shape{6, 5, 4, 3}, data); err != nil {
		t.Fatal(err)
	}
	return m
}

// exportElementwiseOps has every elementwise operation node the
// exporter writes, summed.
func exportElementwiseOps(t *testing.T) *Model {
	in := layers.Input([]int{6})
	x := layers.Apply(layers.NewDense(6), in)
	pos := layers.CallOp("Add", nil, layers.CallOp("Abs", nil, x), 0.5)
	terms := []*layers.KerasTensor{
		layers.CallOp("Negative", nil, x), layers.CallOp("Absolute", nil, x), layers.CallOp("Square", nil, x),
		layers.CallOp("Sqrt", nil, pos), layers.CallOp("Log", nil, pos), layers.CallOp("Exp", nil, layers.CallOp("Minimum", nil, x, 2.0)),
		layers.CallOp("Power", nil, pos, 2.0), layers.CallOp("Power", nil, pos, 0.5), layers.CallOp("TrueDivide", nil, 1.0, pos),
		layers.CallOp("Clip", map[string]any{"x_min": -0.5, "x_max": 0.25}, x),
		layers.CallOp("Elu", map[string]any{"alpha": 0.5}, x), layers.CallOp("LeakyRelu", map[string]any{"negative_slope": 0.3}, x),
		layers.CallOp("Relu", nil, x), layers.CallOp("Relu6", nil, layers.CallOp("Multiply", nil, x, 4.0)),
		layers.CallOp("Sigmoid", nil, x), layers.CallOp("HardSigmoid", nil, x), layers.CallOp("HardSilu", nil, x),
		layers.CallOp("Silu", nil, x), layers.CallOp("Selu", nil, x), layers.CallOp("Softplus", nil, x),
		layers.CallOp("Softsign", nil, x), layers.CallOp("Tanh", nil, x), layers.CallOp("Gelu", map[string]any{"approximate": false}, x),
		layers.CallOp("LogSoftmax", map[string]any{"axis": -1}, x), layers.CallOp("Maximum", nil, x, layers.CallOp("Negative", nil, x)),
	}
	out := terms[0]
	for _, term := range terms[1:] {
		out = layers.CallOp("Add", nil, out, term)
	}
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportAnySize takes images of any height and width (None): "same"
// padding is ONNX's SAME_UPPER then, TensorFlow's rule at run time.
func exportAnySize(t *testing.T) *Model {
	in := layers.Input([]int{layers.None, layers.None, 3})
	x := layers.Apply(layers.NewConv2D(4, 3, layers.WithStrides(2), layers.WithPadding("same"), layers.WithActivation("relu")), in)
	x = layers.Apply(layers.NewMaxPooling2D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewDepthwiseConv2D(3, layers.WithPadding("same"), layers.WithStrides(2)), x)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	out := layers.Apply(layers.NewDense(2), layers.Apply(layers.NewGlobalAveragePooling2D(), x))
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportMixed is a small CNN whose layers compute under policy.
func exportMixed(policy string) func(t *testing.T) *Model {
	return func(t *testing.T) *Model {
		p := layers.WithPolicy(mixedprecision.MustPolicy(policy))
		m, err := NewSequential(
			layers.NewConv2D(4, 3, p, layers.WithInputShape(8, 8, 2), layers.WithActivation("relu")),
			layers.NewBatchNormalization(p),
			layers.NewFlatten(p),
			layers.NewDense(3, p, layers.WithActivation("softmax")),
		)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// exportUpsample has both upsampling interpolations and a Reshape of an image.
func exportUpsample(t *testing.T) *Model {
	in := layers.Input([]int{6, 5, 2})
	a := layers.Apply(layers.NewUpSampling2D(2, 3), in)
	b := layers.Apply(layers.NewUpSampling2D(2, 3, layers.WithInterpolation("bilinear")), in)
	x := layers.Apply(layers.NewConv2D(3, 3, layers.WithPadding("same")), layers.AddTensors(a, b))
	x = layers.Apply(layers.NewReshape([]int{12, 15, 3}), x) // an image again, in Keras' order
	x = layers.Apply(layers.NewConv2D(2, 1), x)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{x})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportEmbedding reads token ids (int32): one Embedding averaged over
// the unmasked steps (mask_zero), one flattened.
func exportEmbedding(t *testing.T) *Model {
	ids := layers.Input([]int{7}, layers.WithDtype("int32"), layers.WithName("tokens"))
	a := layers.Apply(layers.NewGlobalAveragePooling1D(), layers.Apply(layers.NewEmbedding(20, 4, layers.WithMaskZero(true)), ids))
	e := layers.Apply(layers.NewEmbedding(20, 3), ids)
	b := layers.Apply(layers.NewGlobalMaxPooling1D(), e)
	c := layers.Apply(layers.NewFlatten(), e)
	out := layers.Apply(layers.NewDense(2, layers.WithActivation("sigmoid")), layers.ConcatenateTensors(-1, a, b, c))
	m, err := NewModel([]*layers.KerasTensor{ids}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportShared calls one nested model on two tensors (an ensemble of
// shared weights) and one Dense layer twice.
func exportShared(t *testing.T) *Model {
	inner, err := NewSequential(layers.NewDense(5, layers.WithActivation("tanh"), layers.WithInputShape(4)), layers.NewDense(4))
	if err != nil {
		t.Fatal(err)
	}
	x := layers.Input([]int{4})
	dense := layers.NewDense(4, layers.WithActivation("relu"))
	y := inner.Apply(layers.Apply(dense, x))
	z := inner.Apply(layers.Apply(dense, y))
	m, err := NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{layers.AddTensors(y, z)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportSequenceVolume has the 1-D and 3-D convolutions and poolings:
// a sequence through causal, dilated, grouped and strided Conv1D layers
// (held channels-first between them, as images are), a volume through
// Conv3D and the 3-D poolings, and the layers that read such values
// (BatchNormalization, LayerNormalization, Dense, Add, Concatenate,
// Flatten, the global poolings).
func exportSequenceVolume(t *testing.T) *Model {
	seq := layers.Input([]int{12, 4}, layers.WithName("sequence"))
	s := layers.Apply(layers.NewConv1D(6, 3, layers.WithPadding("causal"), layers.WithDilationRate(2), layers.WithActivation("relu")), seq)
	s = layers.Apply(layers.NewConv1D(6, 3, layers.WithGroups(2), layers.WithPadding("same"), layers.WithStrides(2)), s)
	s = layers.Apply(layers.NewBatchNormalization(), s)
	a := layers.Apply(layers.NewMaxPooling1D(layers.WithPoolSize(2), layers.WithPadding("same")), s)
	b := layers.Apply(layers.NewAveragePooling1D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), s)
	s = layers.AddTensors(a, b)
	s = layers.Apply(layers.NewConv1D(5, 2, layers.WithUseBias(false), layers.WithActivation("tanh")), s)
	s = layers.Apply(layers.NewDense(4, layers.WithActivation("swish")), s) // a width-1 Conv of the channels-first sequence
	s = layers.Apply(layers.NewLayerNormalization(), s)
	s = layers.ConcatenateTensors(-1, s, layers.Apply(layers.NewConv1D(3, 1), s))
	flat := layers.Apply(layers.NewFlatten(), s)
	pooled := layers.Apply(layers.NewGlobalMaxPooling1D(), layers.Apply(layers.NewConv1D(4, 2, layers.WithStrides(2), layers.WithPadding("same")), seq))

	vol := layers.Input([]int{5, 6, 4, 2}, layers.WithName("volume"))
	v := layers.Apply(layers.NewConv3D(4, 3, layers.WithPadding("same"), layers.WithActivation("relu")), vol)
	v = layers.Apply(layers.NewMaxPooling3D(layers.WithPoolSize(2), layers.WithPadding("same")), v)
	v = layers.Apply(layers.NewBatchNormalization(), v)
	v = layers.Apply(layers.NewConv3D(3, 0, layers.WithKernelSize(2, 3, 1), layers.WithDilationRate(1, 1, 2)), v)
	v = layers.Apply(layers.NewAveragePooling3D(layers.WithPoolSize(2), layers.WithStrides(1), layers.WithPadding("same")), v)
	vmax := layers.Apply(layers.NewGlobalMaxPooling3D(), v)
	vavg := layers.Apply(layers.NewFlatten(), layers.Apply(layers.NewGlobalAveragePooling3D(layers.WithKeepDims(true)), v))
	v2 := layers.Apply(layers.NewConv3D(2, 2, layers.WithStrides(2, 1, 2)), vol)

	out := layers.Apply(layers.NewDense(3), layers.ConcatenateTensors(-1, flat, pooled, vmax, vavg))
	m, err := NewModel([]*layers.KerasTensor{seq, vol}, []*layers.KerasTensor{out, v2})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportRecurrent has the recurrent layers on token embeddings: LSTM,
// GRU (reset_after both ways) and SimpleRNN, returning sequences or the
// last output, reading forward and backward (go_backwards), stacked;
// Bidirectional with each merge mode, with Keras' default backward layer
// (one ONNX node of both directions), a forward layer that reads
// backward, and a backward layer of other units; an LSTM after a Conv1D
// (a channels-first sequence).
func exportRecurrent(t *testing.T) *Model {
	ids := layers.Input([]int{7}, layers.WithDtype("int32"), layers.WithName("tokens"))
	e := layers.Apply(layers.NewEmbedding(20, 5), ids)
	seq := layers.WithReturnSequences(true)
	a := layers.Apply(layers.NewLSTM(4, seq), e)
	a = layers.Apply(layers.NewGRU(3, seq, layers.WithGoBackwards(true)), a)
	a = layers.Apply(layers.NewSimpleRNN(3, layers.WithActivation("relu")), a)
	b := layers.Apply(layers.NewBidirectional(layers.NewLSTM(3, seq)), e)
	b = layers.Apply(layers.NewBidirectional(layers.NewGRU(2, layers.WithResetAfter(false)), layers.WithMergeMode("sum")), b)
	c := layers.Apply(layers.NewGRU(4, layers.WithGoBackwards(true), layers.WithRecurrentActivation("softsign")), e)
	d := layers.Apply(layers.NewBidirectional(layers.NewSimpleRNN(2, seq, layers.WithGoBackwards(true)), layers.WithMergeMode("ave")), e)
	d = layers.Apply(layers.NewFlatten(), d) // in time order: a mean over time would hide the order
	bw := layers.NewGRU(2, seq, layers.WithGoBackwards(true), layers.WithActivation("softplus"))
	f := layers.Apply(layers.NewBidirectional(layers.NewGRU(2, seq), layers.WithMergeMode("mul"), layers.WithBackwardLayer(bw)), e)
	f = layers.Apply(layers.NewFlatten(), layers.Apply(layers.NewBidirectional(layers.NewLSTM(2, seq), layers.WithMergeMode("concat"), layers.WithBackwardLayer(layers.NewLSTM(3, seq, layers.WithGoBackwards(true)))), f))
	g := layers.Apply(layers.NewConv1D(4, 3, layers.WithPadding("causal")), e)
	g = layers.Apply(layers.NewLSTM(3, layers.WithUseBias(false), layers.WithActivation("softsign"), layers.WithRecurrentActivation("tanh")), g)
	out := layers.Apply(layers.NewDense(3), layers.ConcatenateTensors(-1, a, b, c, d, f, g))
	m, err := NewModel([]*layers.KerasTensor{ids}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportAttention has MultiHeadAttention over a query and a value of
// other lengths, with a key of its own, an output_shape, no biases, and
// self-attention under the causal mask.
func exportAttention(t *testing.T) *Model {
	q := layers.Input([]int{5, 3}, layers.WithName("query"))
	v := layers.Input([]int{4, 3}, layers.WithName("value"))
	key := layers.Input([]int{4, 2}, layers.WithName("key"))
	a := layers.Apply(layers.NewMultiHeadAttention(2, 3, layers.WithValueDim(4)), q, v)
	b := layers.Apply(layers.NewMultiHeadAttention(3, 2, layers.WithOutputShape(5), layers.WithUseBias(false)), q, v, key)
	self := layers.NewMultiHeadAttention(2, 2)
	self.UseCausalMask = true
	c := layers.Apply(self, q, q)
	out := layers.Apply(layers.NewDense(3), layers.ConcatenateTensors(-1, a, b, c))
	m, err := NewModel([]*layers.KerasTensor{q, v, key}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportEncoder is a BERT-style encoder: token and segment embeddings
// summed and normalized, then two blocks of multi-head self-attention
// (the first masking the padding tokens, id 0, through the token
// embedding's mask; the second causal), each with a residual Add and
// LayerNormalization, and a feed-forward Dense(gelu) + Dense with its
// own; the mean of the steps and a Dense head, and the sequence; and
// the masked self-attention of the token embeddings, averaged.
func exportEncoder(t *testing.T) *Model {
	const d = 8
	tokens := layers.Input([]int{8}, layers.WithDtype("int32"), layers.WithName("tokens"))
	segments := layers.Input([]int{8}, layers.WithDtype("int32"), layers.WithName("segments"))
	e := layers.Apply(layers.NewEmbedding(20, d, layers.WithMaskZero(true)), tokens)
	x := layers.AddTensors(e, layers.Apply(layers.NewEmbedding(20, d), segments))
	x = layers.Apply(layers.NewLayerNormalization(layers.WithEpsilon(1e-12)), x)
	block := func(x, value *layers.KerasTensor, causal bool) *layers.KerasTensor {
		mha := layers.NewMultiHeadAttention(4, 2)
		mha.UseCausalMask = causal
		a := layers.Apply(layers.NewDropout(0.1), layers.Apply(mha, x, value))
		h := layers.Apply(layers.NewLayerNormalization(layers.WithEpsilon(1e-12)), layers.AddTensors(x, a))
		f := layers.Apply(layers.NewDense(2*d, layers.WithActivation("gelu")), h)
		f = layers.Apply(layers.NewDropout(0.1), layers.Apply(layers.NewDense(d), f))
		return layers.Apply(layers.NewLayerNormalization(layers.WithEpsilon(1e-12)), layers.AddTensors(h, f))
	}
	h := block(x, e, false) // the value (and key) carry the padding mask
	h = block(h, h, true)
	out := layers.Apply(layers.NewDense(2), layers.Apply(layers.NewGlobalAveragePooling1D(), h))
	// Self-attention of the masked tokens: the output carries the query's
	// mask (its masked rows are the output bias), and the mean is over
	// the unmasked steps.
	att := layers.Apply(layers.NewMultiHeadAttention(2, 3), e, e)
	own := layers.Apply(layers.NewGlobalAveragePooling1D(), att)
	m, err := NewModel([]*layers.KerasTensor{tokens, segments}, []*layers.KerasTensor{out, h, own, att})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportEdges has the padding, cropping and upsampling layers of
// sequences and volumes, and the depthwise and separable 1-D
// convolutions, all on channels-first values.
func exportEdges(t *testing.T) *Model {
	seq := layers.Input([]int{10, 3}, layers.WithName("sequence"))
	s := layers.Apply(layers.NewZeroPadding1D(1, 2), seq)
	s = layers.Apply(layers.NewDepthwiseConv1D(3, layers.WithDepthMultiplier(2), layers.WithPadding("same"), layers.WithActivation("tanh")), s)
	s = layers.Apply(layers.NewSeparableConv1D(4, 3, layers.WithDilationRate(2), layers.WithActivation("relu")), s)
	s = layers.Apply(layers.NewDepthwiseConv1D(2, layers.WithStrides(2), layers.WithUseBias(false)), s)
	s = layers.Apply(layers.NewUpSampling1D(3), s)
	s = layers.Apply(layers.NewCropping1D(1, 3), s)
	vol := layers.Input([]int{3, 4, 5, 2}, layers.WithName("volume"))
	v := layers.Apply(layers.NewZeroPadding3D([3][2]int{{1, 0}, {0, 2}, {1, 1}}), vol)
	v = layers.Apply(layers.NewUpSampling3D(1, 2, 2), v)
	v = layers.Apply(layers.NewConv3D(3, 2, layers.WithActivation("relu")), v)
	v = layers.Apply(layers.NewCropping3D([3][2]int{{0, 1}, {1, 1}, {2, 0}}), v)
	m, err := NewModel([]*layers.KerasTensor{seq, vol}, []*layers.KerasTensor{s, v})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportMaskedRecurrent: Masking's mask (steps zeroed in the middle, at
// the end and at the start: exportCase.zeroSteps) read by every recurrent
// class, forward and go_backwards, returning sequences or the last
// output, and by Bidirectional (whose layers zero masked outputs); an
// unmasked branch has hard_sigmoid recurrent activations (one
// bidirectional node with two HardSigmoid alphas).
func exportMaskedRecurrent(t *testing.T) *Model {
	x := layers.Input([]int{6, 3}, layers.WithName("series"))
	seq := layers.WithReturnSequences(true)
	hs := layers.WithRecurrentActivation("hard_sigmoid")
	m := layers.Apply(layers.NewMasking(), x)
	a := layers.Apply(layers.NewLSTM(4, seq, hs), m)
	a = layers.Apply(layers.NewGRU(3, seq, layers.WithGoBackwards(true)), a)
	a = layers.Apply(layers.NewSimpleRNN(3, layers.WithActivation("relu")), a)
	b := layers.Apply(layers.NewBidirectional(layers.NewGRU(2, seq, hs, layers.WithResetAfter(false))), m)
	b = layers.Apply(layers.NewFlatten(), b)
	c := layers.Apply(layers.NewBidirectional(layers.NewLSTM(2), layers.WithMergeMode("ave")), m)
	d := layers.Apply(layers.NewLSTM(3, layers.WithGoBackwards(true), layers.WithZeroOutputForMask(true)), m)
	e := layers.Apply(layers.NewSimpleRNN(2, seq, layers.WithZeroOutputForMask(true)), m)
	e = layers.Apply(layers.NewFlatten(), e)
	u := layers.Apply(layers.NewBidirectional(layers.NewGRU(2, hs, layers.WithActivation("hard_sigmoid"))), x)
	u2 := layers.Apply(layers.NewLSTM(3, hs), x)
	out := layers.ConcatenateTensors(-1, a, b, c, d, e, u, u2)
	mdl, err := NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return mdl
}

// exportMaskedWrappers: Embedding(mask_zero)'s mask through
// TimeDistributed (of Dense and of a Conv1D-free Dense stack) to an
// LSTM, to Attention (the query's and the value's masks) and to the
// masked GlobalAveragePooling1D.
func exportMaskedWrappers(t *testing.T) *Model {
	ids := layers.Input([]int{7}, layers.WithDtype("int32"), layers.WithName("tokens"))
	e := layers.Apply(layers.NewEmbedding(20, 4, layers.WithMaskZero(true)), ids)
	td := layers.Apply(layers.NewTimeDistributed(layers.NewDense(5, layers.WithActivation("tanh"))), e)
	a := layers.Apply(layers.NewLSTM(3, layers.WithReturnSequences(true)), td)
	a = layers.Apply(layers.NewGlobalAveragePooling1D(), a)
	att := layers.Apply(layers.NewAttention(layers.WithUseScale(true)), e, e)
	p := layers.Apply(layers.NewGlobalAveragePooling1D(), layers.Apply(layers.NewTimeDistributed(layers.NewDense(2)), att))
	out := layers.ConcatenateTensors(-1, a, p)
	m, err := NewModel([]*layers.KerasTensor{ids}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// exportDotAttention: Attention's score modes (dot with a scale, concat
// with a scale, causal), AdditiveAttention, a key of its own, and
// TimeDistributed of a layer that goes channels-first (Conv1D on each
// step's (features, 1) view after a Reshape) and back.
func exportDotAttention(t *testing.T) *Model {
	q := layers.Input([]int{5, 4}, layers.WithName("query"))
	v := layers.Input([]int{6, 4}, layers.WithName("value"))
	dot := layers.Apply(layers.NewAttention(layers.WithUseScale(true)), q, v)
	causal := layers.NewAttention()
	causal.UseCausalMask = true
	cz := layers.Apply(causal, q, v, layers.Apply(layers.NewDense(4), v))
	cat := layers.Apply(layers.NewAttention(layers.WithScoreMode("concat"), layers.WithUseScale(true)), q, v)
	add := layers.Apply(layers.NewAdditiveAttention(), q, v)
	s := layers.AddTensors(dot, cz, cat, add)
	s = layers.Apply(layers.NewReshape([]int{5, 4, 1}), s)
	s = layers.Apply(layers.NewTimeDistributed(layers.NewConv1D(2, 2, layers.WithActivation("relu"))), s) // (batch, 5, 3, 2)
	m, err := NewModel([]*layers.KerasTensor{q, v}, []*layers.KerasTensor{s})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
