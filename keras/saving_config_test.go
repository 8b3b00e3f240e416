package keras

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// svJSONRoundTrip is cfg as LoadModel sees it: through JSON.
func svJSONRoundTrip(t *testing.T, cfg map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEveryBuiltinLayerRoundTrips(t *testing.T) {
	layers.ClearSession()
	img := func() *layers.KerasTensor { return layers.Input([]int{8, 8, 2}) }
	vec := func() *layers.KerasTensor { return layers.Input([]int{6}) }
	type built struct {
		l  layers.Layer
		in []*layers.KerasTensor
	}
	cases := []built{
		{layers.NewDense(3, layers.WithActivation("tanh"), layers.WithUseBias(false), layers.WithKernelInitializer(layers.GlorotNormal()),
			layers.WithKernelRegularizer(layers.L1L2(0.01, 0.02)), layers.WithTrainable(false), layers.WithInputShape(6)), []*layers.KerasTensor{vec()}},
		{layers.NewConv2D(2, 3, layers.WithKernelSize(3, 2), layers.WithStrides(2), layers.WithPadding("same"),
			layers.WithBiasRegularizer(layers.L1(0.5)), layers.WithBiasInitializer(layers.Ones())), []*layers.KerasTensor{img()}},
		{layers.NewConv2D(2, 3, layers.WithDilationRate(2), layers.WithKernelInitializer(layers.RandomUniform(-1, 2))), []*layers.KerasTensor{img()}},
		{layers.NewMaxPooling2D(layers.WithPoolSize(3, 2), layers.WithStrides(1, 2), layers.WithPadding("same")), []*layers.KerasTensor{img()}},
		{layers.NewAveragePooling2D(), []*layers.KerasTensor{img()}},
		{layers.NewFlatten(), []*layers.KerasTensor{img()}},
		{layers.NewDropout(0.3, layers.WithSeed(9)), []*layers.KerasTensor{vec()}},
		{layers.NewActivation("softplus"), []*layers.KerasTensor{vec()}},
		{layers.NewReLU(layers.WithNegativeSlope(0.1), layers.WithThreshold(0.5)), []*layers.KerasTensor{vec()}},
		{layers.NewLeakyReLU(layers.WithNegativeSlope(0.1)), []*layers.KerasTensor{vec()}},
		{layers.NewELU(layers.WithAlpha(0.5)), []*layers.KerasTensor{vec()}},
		{layers.NewPReLU(layers.WithSharedAxes(1, 2), layers.WithAlphaInitializer(layers.Constant(0.25)), layers.WithAlphaRegularizer(layers.L2(0.01))), []*layers.KerasTensor{img()}},
		{layers.NewSoftmax(layers.WithAxis(-1)), []*layers.KerasTensor{vec()}},
		{layers.NewReshape([]int{2, -1}), []*layers.KerasTensor{vec()}},
		{layers.NewRescaling(1.0 / 255), []*layers.KerasTensor{img()}},
		{layers.NewAdd(), []*layers.KerasTensor{vec(), vec()}},
		{layers.NewMultiply(), []*layers.KerasTensor{vec(), vec()}},
		{layers.NewConcatenate(layers.WithAxis(1)), []*layers.KerasTensor{vec(), vec()}},
		{layers.NewBatchNormalization(layers.WithMomentum(0.9), layers.WithEpsilon(1e-5), layers.WithCenter(false)), []*layers.KerasTensor{img()}},
		{layers.NewLayerNormalization(layers.WithScale(false), layers.WithEpsilon(1e-6)), []*layers.KerasTensor{vec()}},
		{layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(2), layers.WithPadding("same"), layers.WithActivation("relu"),
			layers.WithDepthwiseRegularizer(layers.L2(0.1))), []*layers.KerasTensor{img()}},
		{layers.NewEmbedding(10, 4, layers.WithEmbeddingsInitializer(layers.RandomNormal(0, 1))), []*layers.KerasTensor{vec()}},
		{layers.NewEmbedding(7, 2), []*layers.KerasTensor{vec()}},
		{layers.NewGlobalAveragePooling2D(layers.WithKeepDims(true)), []*layers.KerasTensor{img()}},
		{layers.NewGlobalMaxPooling2D(), []*layers.KerasTensor{img()}},
		{layers.NewZeroPadding2D(1, 2, 3, 0), []*layers.KerasTensor{img()}},
		{layers.NewRandomCrop(4, 5, layers.WithSeed(1)), []*layers.KerasTensor{img()}},
		{layers.NewRandomFlip("horizontal"), []*layers.KerasTensor{img()}},
		{layers.NewRandomTranslation(0.2, 0.1, layers.WithFillMode("constant"), layers.WithFillValue(0.5)), []*layers.KerasTensor{img()}},
		{layers.NewLayerScale(1e-6, 2), []*layers.KerasTensor{img()}},
		{layers.NewConv2D(4, 3, layers.WithGroups(2)), []*layers.KerasTensor{img()}},
		// Recurrent classes (registry_recurrent.go) on (5, 3) sequences.
		{layers.NewLSTM(3, layers.WithReturnSequences(true), layers.WithUnitForgetBias(false), layers.WithRecurrentInitializer(layers.Orthogonal(2))), []*layers.KerasTensor{layers.Input([]int{5, 3})}},
		{layers.NewGRU(2, layers.WithResetAfter(false), layers.WithGoBackwards(true), layers.WithInputDropout(0.1)), []*layers.KerasTensor{layers.Input([]int{5, 3})}},
		{layers.NewSimpleRNN(2, layers.WithActivation("relu"), layers.WithStateful(true)), []*layers.KerasTensor{layers.Input([]int{5, 3})}},
		{layers.NewRNN(layers.NewGRUCell(2), layers.WithReturnState(true)), []*layers.KerasTensor{layers.Input([]int{5, 3})}},
		{layers.NewBidirectional(layers.NewLSTM(2, layers.WithReturnSequences(true)), layers.WithMergeMode("mul")), []*layers.KerasTensor{layers.Input([]int{5, 3})}},
		{layers.NewTimeDistributed(layers.NewDense(4)), []*layers.KerasTensor{layers.Input([]int{5, 3})}},
		{layers.NewRepeatVector(3), []*layers.KerasTensor{vec()}},
		{layers.NewMasking(layers.WithMaskValue(-1)), []*layers.KerasTensor{layers.Input([]int{5, 3})}},
		{layers.NewEmbedding(7, 2, layers.WithMaskZero(true)), []*layers.KerasTensor{vec()}},
		// Attention classes (registry_attention.go) on (query, value) sequences.
		{layers.NewMultiHeadAttention(2, 3, layers.WithValueDim(4)), []*layers.KerasTensor{layers.Input([]int{5, 3}), layers.Input([]int{4, 3})}},
		{layers.NewAttention(layers.WithUseScale(true), layers.WithScoreMode("concat")), []*layers.KerasTensor{layers.Input([]int{5, 3}), layers.Input([]int{4, 3})}},
		{layers.NewAdditiveAttention(layers.WithUseScale(false)), []*layers.KerasTensor{layers.Input([]int{5, 3}), layers.Input([]int{4, 3})}},
		{layers.NewGroupQueryAttention(2, 4, 2, layers.WithUseGate(true), layers.WithSlidingWindow(2), layers.WithAttentionDropout(0.1)),
			[]*layers.KerasTensor{layers.Input([]int{5, 3}), layers.Input([]int{4, 3})}},
		// ConvLSTM (registry_conv_lstm.go) on (timesteps, ..., channels) sequences.
		{layers.NewConvLSTM2D(2, 3, layers.WithPadding("same"), layers.WithReturnSequences(true), layers.WithUnitForgetBias(false)),
			[]*layers.KerasTensor{layers.Input([]int{3, 6, 5, 2})}},
		{layers.NewConvLSTM1D(2, 2, layers.WithStrides(2), layers.WithGoBackwards(true), layers.WithRecurrentActivation("hard_sigmoid")),
			[]*layers.KerasTensor{layers.Input([]int{3, 6, 2})}},
		// Preprocessing classes (registry_preprocessing.go).
		{layers.NewNormalization(layers.NormalizationSettings{Mean: []float64{1, 2}, Variance: []float64{4, 9}}), []*layers.KerasTensor{img()}},
		{layers.NewNormalization(layers.NormalizationSettings{}), []*layers.KerasTensor{img()}},
		{layers.NewDiscretization(layers.DiscretizationSettings{BinBoundaries: []float64{-1, 0, 2.5}}), []*layers.KerasTensor{vec()}},
		{layers.NewCategoryEncoding(layers.CategoryEncodingSettings{NumTokens: 7, OutputMode: "count"}), []*layers.KerasTensor{vec()}},
		{layers.NewHashing(5, layers.HashingSettings{}), []*layers.KerasTensor{vec()}},
		{layers.NewIntegerLookup(layers.IntegerLookupSettings{Vocabulary: []int64{3, 7, 11}, NumOOVIndices: 2}), []*layers.KerasTensor{vec()}},
		{layers.NewResizing(4, 6, layers.ResizingSettings{Interpolation: "nearest", CropToAspectRatio: true}), []*layers.KerasTensor{img()}},
		{layers.NewCenterCrop(5, 4), []*layers.KerasTensor{img()}},
		{layers.NewRandomContrast(layers.RandomContrastSettings{Factor: 0.3}, layers.WithSeed(2)), []*layers.KerasTensor{img()}},
		{layers.NewRandomZoom([2]float64{-0.2, 0.1}, layers.RandomZoomSettings{FillMode: "constant", FillValue: 0.5}, layers.WithSeed(3)), []*layers.KerasTensor{img()}},
		{layers.NewRandomRotation([2]float64{-0.1, 0.2}, layers.RandomRotationSettings{FillMode: "wrap", Interpolation: "nearest"}, layers.WithSeed(4)), []*layers.KerasTensor{img()}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		if err := c.l.Err(); err != nil {
			t.Fatal(err)
		}
		if out := layers.Apply(c.l, c.in...); out.Err() != nil {
			t.Fatalf("%s: %v", c.l.ClassName(), out.Err())
		}
		covered[c.l.ClassName()] = true
		want := c.l.GetConfig()
		got, err := LayerFromConfig(c.l.ClassName(), svJSONRoundTrip(t, want))
		if err != nil {
			t.Errorf("%s: %v", c.l.ClassName(), err)
			continue
		}
		if out := layers.Apply(got, c.in...); out.Err() != nil {
			t.Errorf("%s rebuilt: %v", c.l.ClassName(), out.Err())
		}
		if !svJSONEqual(t, got.GetConfig(), want) {
			t.Errorf("%s config:\n got %v\nwant %v", c.l.ClassName(), got.GetConfig(), want)
		}
		if len(got.Weights()) != len(c.l.Weights()) {
			t.Errorf("%s: %d weights, want %d", c.l.ClassName(), len(got.Weights()), len(c.l.Weights()))
		}
		for i, w := range got.Weights() {
			if !sameWeightName(w.Name(), c.l.Weights()[i].Name()) || !w.Shape().Equal(c.l.Weights()[i].Shape()) || w.Trainable() != c.l.Weights()[i].Trainable() {
				t.Errorf("%s weight %s %v", c.l.ClassName(), w.Name(), w.Shape())
			}
		}
	}
	for _, class := range builtinLayers {
		if !covered[class] {
			t.Errorf("registered class %s is not tested", class)
		}
	}
}

func TestSaveLoadModelNewerLayers(t *testing.T) {
	layers.ClearSession()
	layers.SetRandomSeed(3)
	in := layers.Input([]int{6, 6, 2})
	x := layers.Apply(layers.NewZeroPadding2D(1, 1, 1, 1), in)
	x = layers.Apply(layers.NewRandomFlip(""), x)
	x = layers.Apply(layers.NewRandomTranslation(0.1, 0.1), x)
	x = layers.Apply(layers.NewRandomCrop(6, 6), x)
	x = layers.Apply(layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(2)), x)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	a := layers.Apply(layers.NewGlobalAveragePooling2D(), x)
	b := layers.Apply(layers.NewGlobalMaxPooling2D(), x)
	h := layers.Apply(layers.NewConcatenate(), a, b)
	h = layers.Apply(layers.NewLayerNormalization(), h)
	g := layers.Apply(layers.NewDense(8, layers.WithActivation("sigmoid")), h)
	v := layers.Apply(layers.NewDense(8), h)
	h = layers.Apply(layers.NewMultiply(), g, v)
	out := layers.Apply(layers.NewDense(3), h)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	svCompile(t, m, optimizers.NewAdamW())
	xs, ys := svData(16, []int{6, 6, 2}, 3, 1)
	svFit(t, m, xs, ys, 1, 0)
	path := filepath.Join(t.TempDir(), "newer.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	svSameWeights(t, "loaded", m, l)
	if len(l.NonTrainableVariables()) != 2 {
		t.Errorf("%d non-trainable variables", len(l.NonTrainableVariables()))
	}
	if !reflect.DeepEqual(svPredict(t, m, xs), svPredict(t, l, xs)) {
		t.Error("loaded model predicts differently")
	}

	layers.ClearSession()
	e := MustSequential(layers.NewEmbedding(10, 4, layers.WithInputShape(5)), layers.NewFlatten(), layers.NewDense(2))
	ids := tensor.New(tensor.WithShape(3, 5), tensor.WithBacking([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 8, 7, 6, 5}))
	path = filepath.Join(t.TempDir(), "emb.keras")
	if err := e.Save(path); err != nil {
		t.Fatal(err)
	}
	le, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(svPredict(t, e, ids), svPredict(t, le, ids)) {
		t.Error("loaded embedding model predicts differently")
	}
}

// TestSaveLoadInitializerConfigs: initializers with arguments come back
// from a .keras config with the same classes and arguments.
func TestSaveLoadInitializerConfigs(t *testing.T) {
	layers.ClearSession()
	vs, err := layers.VarianceScaling(1.0/3, "fan_in", "uniform")
	if err != nil {
		t.Fatal(err)
	}
	in := layers.Input([]int{4})
	x := layers.Apply(layers.NewDense(3, layers.WithKernelInitializer(vs), layers.WithBiasInitializer(layers.TruncatedNormal(0.5, 0.1))), in)
	x = layers.Apply(layers.NewDense(2, layers.WithKernelInitializer(layers.LecunNormal())), x)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{x})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "inits.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 3; i++ {
		a, b := m.Layers()[i].GetConfig(), l.Layers()[i].GetConfig()
		for _, k := range []string{"kernel_initializer", "bias_initializer"} {
			if !reflect.DeepEqual(a[k], b[k]) {
				t.Errorf("layer %d %s: saved %v, loaded %v", i, k, a[k], b[k])
			}
		}
	}
}

// unnamedWeight matches the name Keras gives a weight added without one
// (LayerScale's): "variable", "variable_1", ... in the order they are
// made, so a rebuilt layer's is the next.
var unnamedWeight = regexp.MustCompile(`/variable(_[0-9]+)?$`)

// sameWeightName reports whether two weight names are the same, an
// unnamed weight's counter aside.
func sameWeightName(a, b string) bool {
	if a == b {
		return true
	}
	return unnamedWeight.MatchString(a) && unnamedWeight.MatchString(b) &&
		unnamedWeight.ReplaceAllString(a, "/variable") == unnamedWeight.ReplaceAllString(b, "/variable")
}
