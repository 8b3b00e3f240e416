package applications

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
)

// TestKerasWeightFilesLoad: Keras' weights of MobileNet(alpha=0.25,
// include_top=False) on 32x32 inputs, saved by Keras 3 (.weights.h5) and
// in Keras 2's legacy .h5 layout (the layout of the ImageNet files),
// load into the Go constructor's model, given as WithWeights, and it
// predicts Keras' outputs.
func TestKerasWeightFilesLoad(t *testing.T) {
	var c predCase
	for _, p := range kerasvectors.Read[predCase](t, "testdata/keras/predictions.json") {
		if p.File {
			c = p
		}
	}
	if !c.File {
		t.Fatal("predictions.json has no case for the weight files")
	}
	for _, file := range []string{"mobilenet_025.weights.h5", "mobilenet_025.h5"} {
		t.Run(file, func(t *testing.T) {
			layers.ClearSession()
			m, err := MobileNet(WithAlpha(0.25), WithIncludeTop(false), WithInputShape(32, 32, 3),
				WithWeights(filepath.Join("testdata/keras", file)))
			if err != nil {
				t.Fatal(err)
			}
			worst := comparePrediction(t, m, c)
			t.Logf("largest difference from Keras %.2g (of the outputs' mean magnitude %.3g)", worst, c.Output.MeanAbs)
		})
	}
}

// TestImagenetWeightsFromKerasCache: weights "imagenet" asks Keras'
// cache (utils.GetFile, cache subdir "models") for the file Keras
// downloads, by Keras' name, URL and digest, and loads what it returns;
// the architectures' names follow their arguments as in Keras.
func TestImagenetWeightsFromKerasCache(t *testing.T) {
	orig := getFile
	defer func() { getFile = orig }()
	file := filepath.Join("testdata/keras", "mobilenet_025.h5")
	var asked []string
	getFile = func(fname, origin string, cfg utils.GetFileConfig) (string, error) {
		if cfg.CacheSubdir != "models" {
			t.Errorf("cache subdir %q, want models", cfg.CacheSubdir)
		}
		asked = append(asked, fname+" "+origin+" "+cfg.FileHash)
		return file, nil
	}
	layers.ClearSession()
	if _, err := MobileNet(WithAlpha(0.25), WithIncludeTop(false), WithInputShape(32, 32, 3)); err != nil {
		t.Fatal(err)
	}
	want := "mobilenet_2_5_224_tf_no_top.h5 https://storage.googleapis.com/tensorflow/keras-applications/mobilenet/mobilenet_2_5_224_tf_no_top.h5 "
	if len(asked) != 1 || asked[0] != want {
		t.Errorf("asked for %q, want %q", asked, want)
	}
	// The other architectures only ask: their files are not here, so a
	// file of another architecture is refused by LoadWeights.
	for _, tc := range []struct {
		build func() error
		want  string
	}{
		{func() error { _, err := ResNet50(); return err },
			"resnet50_weights_tf_dim_ordering_tf_kernels.h5 https://storage.googleapis.com/tensorflow/keras-applications/resnet/resnet50_weights_tf_dim_ordering_tf_kernels.h5 2cb95161c43110f7111970584f804107"},
		{func() error { _, err := ResNet152V2(WithIncludeTop(false)); return err },
			"resnet152v2_weights_tf_dim_ordering_tf_kernels_notop.h5 https://storage.googleapis.com/tensorflow/keras-applications/resnet/resnet152v2_weights_tf_dim_ordering_tf_kernels_notop.h5 ed17cf2e0169df9d443503ef94b23b33"},
		{func() error { _, err := VGG19(WithIncludeTop(false)); return err },
			"vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5 https://storage.googleapis.com/tensorflow/keras-applications/vgg19/vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5 253f8cb515780f3b799900260a226db6"},
		{func() error { _, err := MobileNetV2(WithAlpha(1.3), WithInputShape(160, 160, 3)); return err },
			"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.3_160.h5 https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.3_160.h5 "},
		{func() error { _, err := DenseNet169(WithIncludeTop(false)); return err },
			"densenet169_weights_tf_dim_ordering_tf_kernels_notop.h5 https://storage.googleapis.com/tensorflow/keras-applications/densenet/densenet169_weights_tf_dim_ordering_tf_kernels_notop.h5 b8c4d4c20dd625c148057b9ff1c1176b"},
		{func() error { _, err := MobileNetV3Small(WithIncludeTop(false), WithAlpha(0.75)); return err },
			"weights_mobilenet_v3_small_224_0.75_float_no_top_v2.h5 https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/weights_mobilenet_v3_small_224_0.75_float_no_top_v2.h5 ebdb5cc8e0b497cd13a7c275d475c819"},
		{func() error { _, err := MobileNetV3Large(WithMinimalistic(true)); return err },
			"weights_mobilenet_v3_large_minimalistic_224_1.0_float.h5 https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v3/weights_mobilenet_v3_large_minimalistic_224_1.0_float.h5 675e7b876c45c57e9e63e6d90a36599c"},
		{func() error { _, err := EfficientNetB0(); return err },
			"efficientnetb0.h5 https://storage.googleapis.com/keras-applications/efficientnetb0.h5 902e53a9f72be733fc0bcb005b3ebbac"},
		{func() error { _, err := EfficientNetV2S(WithIncludeTop(false)); return err },
			"efficientnetv2-s_notop.h5 https://storage.googleapis.com/tensorflow/keras-applications/efficientnet_v2/efficientnetv2-s_notop.h5 af0682fb74e8c54910f2d4393339c070"},
		{func() error { _, err := InceptionV3(WithIncludeTop(false)); return err },
			"inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5 https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5 bcbd6486424b2319ff4ef7d526e38f63"},
		{func() error { _, err := InceptionResNetV2(WithIncludeTop(false)); return err },
			"inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5 https://storage.googleapis.com/tensorflow/keras-applications/inception_resnet_v2/inception_resnet_v2_weights_tf_dim_ordering_tf_kernels_notop.h5 d19885ff4a710c122648d3b5c3b684e4"},
		{func() error { _, err := Xception(WithIncludeTop(false)); return err },
			"xception_weights_tf_dim_ordering_tf_kernels_notop.h5 https://storage.googleapis.com/tensorflow/keras-applications/xception/xception_weights_tf_dim_ordering_tf_kernels_notop.h5 b0042744bf5b25fce3cb969f33bebb97"},
		{func() error { _, err := ConvNeXtTiny(WithIncludeTop(false)); return err },
			"convnext_tiny_notop.h5 https://storage.googleapis.com/tensorflow/keras-applications/convnext/convnext_tiny_notop.h5 d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"},
		{func() error { _, err := NASNetMobile(WithIncludeTop(false)); return err },
			"nasnet_mobile_no_top.h5 https://storage.googleapis.com/tensorflow/keras-applications/nasnet/NASNet-mobile-no-top.h5 1ed92395b5b598bdda52abe5c0dbfd63"},
	} {
		asked = nil
		layers.ClearSession()
		err := tc.build()
		if len(asked) != 1 || asked[0] != tc.want {
			t.Errorf("asked for %q, want %q", asked, tc.want)
		}
		if err == nil || !strings.Contains(err.Error(), "LoadWeights") {
			t.Errorf("loading another architecture's file: err = %v, want LoadWeights' refusal", err)
		}
	}
}

// TestWeightsArgumentErrors: Keras' checks of the arguments, as errors
// naming the constructor.
func TestWeightsArgumentErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() error
		want  string
	}{
		{"imagenet classes", func() error { _, err := ResNet50(WithClasses(10)); return err }, "classes must be 1000"},
		{"imagenet activation", func() error { _, err := VGG16(WithClassifierActivation("sigmoid")); return err }, "softmax"},
		{"imagenet top input shape", func() error { _, err := ResNet50(WithInputShape(64, 64, 3)); return err }, "input_shape must be [224 224 3]"},
		{"imagenet channels", func() error {
			_, err := ResNet50(WithIncludeTop(false), WithInputShape(64, 64, 1))
			return err
		}, "3 input channels"},
		{"small input", func() error {
			_, err := ResNet50(WithWeights(""), WithIncludeTop(false), WithInputShape(16, 64, 3))
			return err
		}, "at least 32x32"},
		{"top without size", func() error {
			_, err := VGG16(WithWeights(""), WithInputShape(layers.None, layers.None, 3))
			return err
		}, "fixed size"},
		{"option not taken", func() error { _, err := ResNet50(WithAlpha(0.5)); return err }, "ResNet50 does not take option(s) alpha"},
		{"pooling", func() error { _, err := ResNet50(WithWeights(""), WithPooling("mean")); return err }, "pooling must be"},
		{"mobilenet alpha", func() error { _, err := MobileNet(WithAlpha(0.3)); return err }, "alpha 0.25, 0.5, 0.75 and 1"},
		{"mobilenet depth multiplier", func() error { _, err := MobileNet(WithDepthMultiplier(2)); return err }, "depth_multiplier 1"},
		{"mobilenetv2 alpha", func() error { _, err := MobileNetV2(WithAlpha(0.3)); return err }, "alpha 0.35"},
		{"mobilenetv3 alpha", func() error { _, err := MobileNetV3Small(WithAlpha(0.5)); return err }, "alpha 0.75 and 1"},
		{"mobilenetv3 small input", func() error {
			_, err := MobileNetV3Large(WithWeights(""), WithInputShape(16, 16, 3))
			return err
		}, "at least 32x32"},
		{"convnext name", func() error { _, err := ConvNeXtTiny(WithName("mine")); return err }, "must contain \"convnext_tiny\""},
		{"nasnet None", func() error {
			_, err := NASNetMobile(WithIncludeTop(false), WithInputShape(layers.None, layers.None, 3))
			return err
		}, "static input_shape"},
		{"efficientnet option", func() error { _, err := EfficientNetB0(WithIncludePreprocessing(false)); return err }, "does not take option(s) include_preprocessing"},
		{"inception small input", func() error {
			_, err := InceptionV3(WithWeights(""), WithIncludeTop(false), WithInputShape(64, 64, 3))
			return err
		}, "at least 75x75"},
		{"missing file", func() error {
			_, err := MobileNet(WithWeights(filepath.Join(t.TempDir(), "none.h5")), WithIncludeTop(false))
			return err
		}, "none.h5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			layers.ClearSession()
			err := tc.build()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "applications: ") {
				t.Errorf("err = %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestVariableInputSize: without the top and an input shape, a model
// takes images of any size of at least the least (Keras' (None, None, 3);
// MobileNetV3's with its top too), and MobileNetV2's name says None.
func TestVariableInputSize(t *testing.T) {
	layers.ClearSession()
	m, err := MobileNetV2(WithWeights(""), WithIncludeTop(false), WithAlpha(0.35), WithPooling("avg"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "mobilenetv2_0.35_None" {
		t.Errorf("name %q, want Keras' mobilenetv2_0.35_None", m.Name())
	}
	for _, size := range []int{32, 48} {
		y, err := m.Predict(inputValues("centered", []int{1, size, size, 3}), keras.PredictConfig{Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		if s := y.Shape(); len(s) != 2 || s[1] != 1280 {
			t.Errorf("%dx%d: output shape %v, want (1, 1280)", size, size, s)
		}
	}
	for _, tc := range []struct {
		name  string
		build func(...Option) (*keras.Model, error)
		top   bool
		out   int
	}{
		{"ResNet50", ResNet50, false, 2048}, {"Xception", Xception, false, 2048}, {"ConvNeXtTiny", ConvNeXtTiny, false, 768},
		{"EfficientNetV2B0", EfficientNetV2B0, false, 1280}, {"MobileNetV3Small", MobileNetV3Small, true, 1000},
	} {
		layers.ClearSession()
		m, err := tc.build(WithWeights(""), WithIncludeTop(tc.top), WithPooling("avg"))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s := m.Inputs()[0].Shape(); s[1] != layers.None || s[2] != layers.None {
			t.Errorf("%s: input shape %v, want (None, None, None, 3)", tc.name, s)
		}
		y, err := m.Predict(inputValues("pixels", []int{1, 80, 96, 3}), keras.PredictConfig{Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s := y.Shape(); len(s) != 2 || s[1] != tc.out {
			t.Errorf("%s: output shape %v, want (1, %d)", tc.name, s, tc.out)
		}
	}
}

// TestCustomScaleLayerKerasFile: a model with Inception-ResNet's
// CustomScaleLayer saved by Keras loads through keras.LoadModel (the
// package registers the class) and predicts Keras' outputs; gokeras'
// save of it writes Keras' module and loads back equal.
func TestCustomScaleLayerKerasFile(t *testing.T) {
	var c predCase
	for _, p := range kerasvectors.Read[predCase](t, "testdata/keras/predictions.json") {
		if p.KerasFile != "" {
			c = p
		}
	}
	if c.KerasFile == "" {
		t.Fatal("predictions.json has no case for a Keras file")
	}
	layers.ClearSession()
	m, err := keras.LoadModel(filepath.Join("testdata/keras", c.KerasFile))
	if err != nil {
		t.Fatal(err)
	}
	var found *CustomScaleLayer
	for _, l := range m.Layers() {
		if s, ok := l.(*CustomScaleLayer); ok {
			found = s
		}
	}
	if found == nil || found.Scale() != 0.17 || found.Name() != "custom_scale_layer" {
		t.Fatalf("no CustomScaleLayer(0.17) in %v", m.Layers())
	}
	t.Logf("Keras' file: largest difference %.2g", comparePrediction(t, m, c))
	path := filepath.Join(t.TempDir(), "back.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	cfg, err := m.GetConfig()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(cfg); !strings.Contains(string(b), `"module":"keras.src.applications.inception_resnet_v2"`) {
		t.Errorf("the config does not name Keras' module: %s", b)
	}
	layers.ClearSession()
	back, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gokeras' save: largest difference %.2g", comparePrediction(t, back, c))
	if _, err := keras.LayerFromConfig("CustomScaleLayer", map[string]any{"scale": "x"}); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Errorf("a bad scale: err = %v", err)
	}
}

// TestNormalizationCountLoads: EfficientNet's stem (Rescaling, an
// adapted Normalization, a convolution) loads from Keras' weights, whose
// Normalization count is an int64 dataset (as in the EfficientNet
// ImageNet files), in both formats, and predicts Keras' outputs.
func TestNormalizationCountLoads(t *testing.T) {
	var c predCase
	for _, p := range kerasvectors.Read[predCase](t, "testdata/keras/predictions.json") {
		if p.NormFile {
			c = p
		}
	}
	if !c.NormFile {
		t.Fatal("predictions.json has no case for the Normalization files")
	}
	for _, file := range []string{"norm_count.weights.h5", "norm_count.h5"} {
		t.Run(file, func(t *testing.T) {
			layers.ClearSession()
			in := layers.Input([]int{4, 4, 3}, layers.WithName("image"))
			x := layers.Apply(layers.NewRescaling(1.0/255, layers.WithName("rescaling")), in)
			norm := layers.NewNormalization(layers.NormalizationSettings{Axis: []int{3}}, layers.WithName("normalization"))
			x = layers.Apply(norm, x)
			x = layers.Apply(layers.NewConv2D(2, 1, layers.WithName("stem_conv")), x)
			m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{x})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.LoadWeights(filepath.Join("testdata/keras", file)); err != nil {
				t.Fatal(err)
			}
			if got := norm.Count.Numpy()[0]; got != 6*4*4 {
				t.Errorf("count %v, want Keras' 96", got)
			}
			t.Logf("largest difference %.2g", comparePrediction(t, m, c))
		})
	}
}
