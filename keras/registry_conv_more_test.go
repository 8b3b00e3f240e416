package keras

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// TestConvMoreLayersRoundTrip: every class of registry_conv_more.go comes
// back from its config (through JSON, as from a .keras file) with the same
// config and weights.
func TestConvMoreLayersRoundTrip(t *testing.T) {
	layers.ClearSession()
	img := func() *layers.KerasTensor { return layers.Input([]int{8, 8, 2}) }
	seq := func() *layers.KerasTensor { return layers.Input([]int{9, 3}) }
	cases := []struct {
		l  layers.Layer
		in *layers.KerasTensor
	}{
		{layers.NewConv1D(4, 3, layers.WithPadding("causal"), layers.WithDilationRate(2), layers.WithKernelRegularizer(layers.L2(0.1))), seq()},
		{layers.NewConv1D(2, 2, layers.WithStrides(2), layers.WithPadding("same"), layers.WithUseBias(false)), seq()},
		{layers.NewConv2DTranspose(3, 3, layers.WithStrides(2), layers.WithPadding("same"), layers.WithActivation("relu")), img()},
		{layers.NewConv2DTranspose(2, 0, layers.WithKernelSize(2, 3), layers.WithStrides(3, 2), layers.WithOutputPadding(1, 0),
			layers.WithBiasInitializer(layers.Ones())), img()},
		{layers.NewSeparableConv2D(4, 3, layers.WithDepthMultiplier(2), layers.WithPadding("same"),
			layers.WithPointwiseInitializer(layers.RandomNormal(0, 1)), layers.WithPointwiseRegularizer(layers.L1(0.1))), img()},
		{layers.NewUpSampling2D(2, 3, layers.WithInterpolation("bilinear")), img()},
		{layers.NewCropping2D(1, 2, 0, 3), img()},
		{layers.NewMaxPooling1D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")), seq()},
		{layers.NewAveragePooling1D(), seq()},
		{layers.NewGlobalAveragePooling1D(layers.WithKeepDims(true)), seq()},
		{layers.NewGlobalMaxPooling1D(), seq()},
		{layers.NewPermute([]int{2, 1}), seq()},
		{layers.NewIdentity(), img()},
	}
	covered := map[string]bool{"Lambda": true} // TestLambdaNotSerializable
	for _, c := range cases {
		if err := c.l.Err(); err != nil {
			t.Fatal(err)
		}
		if out := layers.Apply(c.l, c.in); out.Err() != nil {
			t.Fatalf("%s: %v", c.l.ClassName(), out.Err())
		}
		covered[c.l.ClassName()] = true
		want := c.l.GetConfig()
		got, err := LayerFromConfig(c.l.ClassName(), svJSONRoundTrip(t, want))
		if err != nil {
			t.Errorf("%s: %v", c.l.ClassName(), err)
			continue
		}
		if out := layers.Apply(got, c.in); out.Err() != nil {
			t.Errorf("%s rebuilt: %v", c.l.ClassName(), out.Err())
		}
		if !svJSONEqual(t, got.GetConfig(), want) {
			t.Errorf("%s config:\n got %v\nwant %v", c.l.ClassName(), got.GetConfig(), want)
		}
		if len(got.Weights()) != len(c.l.Weights()) {
			t.Fatalf("%s: %d weights, want %d", c.l.ClassName(), len(got.Weights()), len(c.l.Weights()))
		}
		for i, w := range got.Weights() {
			if w.Name() != c.l.Weights()[i].Name() || !w.Shape().Equal(c.l.Weights()[i].Shape()) {
				t.Errorf("%s weight %s %v", c.l.ClassName(), w.Name(), w.Shape())
			}
		}
	}
	for _, class := range convMoreLayers {
		if !covered[class] {
			t.Errorf("registered class %s is not tested", class)
		}
	}
}

// TestLambdaNotSerializable: saving a model with a Lambda fails with
// layers.ErrLambdaNotSerializable and writes nothing; a Keras config with
// a Lambda fails to load with an error that says why.
func TestLambdaNotSerializable(t *testing.T) {
	layers.ClearSession()
	m, err := NewSequential(
		layers.NewDense(3, layers.WithInputShape(4)),
		layers.NewLambda(func(x ops.Tensor) ops.Tensor { return ops.Scale(x, 2) }),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewMeanSquaredError()}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.keras")
	err = m.Save(path)
	if !errors.Is(err, layers.ErrLambdaNotSerializable) {
		t.Fatalf("Save: %v, want ErrLambdaNotSerializable", err)
	}
	if _, serr := os.Stat(path); serr == nil {
		t.Error("Save wrote a file")
	}
	_, err = LayerFromConfig("Lambda", map[string]any{"name": "lambda", "function": map[string]any{"class_name": "__lambda__"}})
	if err == nil || !strings.Contains(err.Error(), "safe_mode") {
		t.Errorf("Lambda from config: %v", err)
	}
}

// TestSaveLoadNewLossesAndMetrics: a model compiled with the losses and
// metrics of issue 17 comes back from a .keras file with their settings
// (Huber's delta, F1Score's average, MeanIoU's classes).
func TestSaveLoadNewLossesAndMetrics(t *testing.T) {
	layers.ClearSession()
	m, err := NewSequential(layers.NewDense(3, layers.WithInputShape(4)))
	if err != nil {
		t.Fatal(err)
	}
	err = m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewHuber(losses.Delta(2.5)),
		Metrics: []any{metrics.NewF1Score(metrics.Average("macro")), metrics.NewMeanIoU(metrics.NumClasses(3)), "mape"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.loss.GetConfig()["delta"]; d != 2.5 {
		t.Errorf("loaded loss %s delta %v, want 2.5", got.loss.Name(), d)
	}
	// the compiled metrics are made by the first Evaluate (or Fit)
	x := tensor.New(tensor.WithShape(4, 4), tensor.WithBacking(make([]float32, 16)))
	y := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0}))
	if _, err := got.Evaluate(x, y, EvaluateConfig{Verbose: VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	found := map[string]map[string]any{}
	for _, mt := range got.Metrics() {
		found[mt.Name()] = mt.GetConfig()
	}
	if c := found["f1_score"]; c == nil || c["average"] != "macro" {
		t.Errorf("loaded f1_score config %v", c)
	}
	if c := found["mean_io_u"]; c == nil || c["num_classes"] != 3 {
		t.Errorf("loaded mean_io_u config %v", c)
	}
	if found["mape"] == nil { // a metric given by name keeps that name, as in Keras
		t.Errorf("loaded metrics %v lack mape", found)
	}
}

// FuzzConvMoreLayerFromConfig: any JSON config of the classes of
// registry_conv_more.go gives a layer or an error, and building the layer
// on a small input gives an output shape or an error: never a panic, a
// hang or a huge allocation.
func FuzzConvMoreLayerFromConfig(f *testing.F) {
	layers.ClearSession()
	seeds := []layers.Layer{
		layers.NewConv1D(4, 3, layers.WithPadding("causal"), layers.WithDilationRate(2)),
		layers.NewConv2DTranspose(3, 3, layers.WithStrides(2), layers.WithPadding("same"), layers.WithOutputPadding(1)),
		layers.NewSeparableConv2D(4, 3, layers.WithDepthMultiplier(2)),
		layers.NewUpSampling2D(2, 3, layers.WithInterpolation("bilinear")),
		layers.NewCropping2D(1, 2, 0, 3),
		layers.NewMaxPooling1D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")),
		layers.NewAveragePooling1D(),
		layers.NewGlobalMaxPooling1D(layers.WithKeepDims(true)),
		layers.NewPermute([]int{2, 1}),
		layers.NewIdentity(),
	}
	for i, l := range seeds {
		b, err := json.Marshal(l.GetConfig())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
	}
	f.Fuzz(func(t *testing.T, class uint8, cfgJSON []byte) {
		var cfg map[string]any
		if json.Unmarshal(cfgJSON, &cfg) != nil {
			return
		}
		name := convMoreLayers[int(class)%len(convMoreLayers)]
		l, err := LayerFromConfig(name, cfg)
		if err != nil {
			return
		}
		var budget int64 = 1 << 20 // weight values a small file could hold
		if b, ok := l.(interface{ LimitWeights(*int64) }); ok {
			b.LimitWeights(&budget)
		}
		in := ops.Shape{-1, 9, 3}
		if name != "Conv1D" && name != "MaxPooling1D" && name != "AveragePooling1D" &&
			name != "GlobalAveragePooling1D" && name != "GlobalMaxPooling1D" && name != "Permute" {
			in = ops.Shape{-1, 8, 7, 2}
		}
		layers.OutputShape(l, []ops.Shape{in})
	})
}
