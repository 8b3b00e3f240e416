package keras

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// TestColorAugmentationRoundTrip: every class of registry_augment_color.go
// comes back from its config, with arguments other than the defaults.
func TestColorAugmentationRoundTrip(t *testing.T) {
	layers.ClearSession()
	img := func() *layers.KerasTensor { return layers.Input([]int{4, 5, 3}) }
	vr := &[2]float64{-1, 1}
	cases := []layers.Layer{
		layers.NewRandomGrayscale(0.3, layers.WithSeed(2)),
		layers.NewRandomGrayscale(1),
		layers.NewRandomHue(layers.RandomHueSettings{Factor: 0.4, ValueRange: &[2]float64{1, 0}}, layers.WithSeed(3)),
		layers.NewRandomHue(layers.RandomHueSettings{Range: &[2]float64{0.2, 0.1}}),
		layers.NewRandomSaturation(layers.RandomSaturationSettings{Range: &[2]float64{0.3, 0.8}, ValueRange: vr}, layers.WithSeed(4)),
		layers.NewRandomSaturation(layers.RandomSaturationSettings{Factor: 0.5}),
		layers.NewRandomColorDegeneration(layers.RandomColorDegenerationSettings{Range: &[2]float64{-0.2, 0.7}, ValueRange: vr}),
		layers.NewRandomColorJitter(layers.RandomColorJitterSettings{ValueRange: vr, BrightnessFactor: []float64{0.2},
			ContrastFactor: []float64{0.1, 0.3}, SaturationFactor: []float64{0.5}, HueFactor: []float64{0.05, 0.2}}, layers.WithSeed(5)),
		layers.NewRandomColorJitter(layers.RandomColorJitterSettings{HueFactor: []float64{0.3}}),
		layers.NewRandomSharpness(layers.RandomSharpnessSettings{Range: &[2]float64{0.1, 0.6}, ValueRange: vr}, layers.WithSeed(6)),
		layers.NewRandomInvert(layers.RandomInvertSettings{}),
		layers.NewRandomInvert(layers.RandomInvertSettings{ZeroFactor: true, ValueRange: vr}, layers.WithSeed(7)),
		layers.NewRandomPosterization(layers.RandomPosterizationSettings{Range: &[2]float64{2, 6}, ValueRange: vr}, layers.WithSeed(8)),
		layers.NewSolarization(layers.SolarizationSettings{AdditionFactor: 0.2, ThresholdRange: &[2]float64{0.3, 0.6}, ValueRange: vr}),
		layers.NewAutoContrast(vr, layers.WithName("stretch")),
		layers.NewEqualization(layers.EqualizationSettings{ValueRange: vr, Bins: 64}),
	}
	covered := map[string]bool{}
	for _, l := range cases {
		roundTrip(t, l, img())
		covered[l.ClassName()] = true
	}
	for _, class := range colorLayers {
		if !covered[class] {
			t.Errorf("registered class %s is not tested", class)
		}
	}
}

// TestColorAugmentationKerasConfigs: each config Keras 3.15.1 wrote
// (tools/keras_reference/augmentation_color_vectors.py) loads, and the
// layer's GetConfig is Keras' (same keys, same values; the values of the
// transformations are TestColorAugmentationMatchesKeras').
func TestColorAugmentationKerasConfigs(t *testing.T) {
	raw, err := os.ReadFile("layers/testdata/keras/augmentation_color.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			ClassName string `json:"class_name"`
			Config    map[string]any
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range f.Cases {
		layers.ClearSession()
		l, err := LayerFromConfig(c.ClassName, c.Config)
		if err != nil {
			t.Errorf("%s: %v", c.ClassName, err)
			continue
		}
		seen[c.ClassName] = true
		got := svJSONRoundTrip(t, l.GetConfig())
		var gk, wk []string
		for k := range got {
			gk = append(gk, k)
		}
		for k := range c.Config {
			wk = append(wk, k)
		}
		slices.Sort(gk)
		slices.Sort(wk)
		if !slices.Equal(gk, wk) {
			t.Errorf("%s: config keys %v, Keras %v", c.ClassName, gk, wk)
		}
		for _, k := range wk {
			if k == "dtype" {
				continue // the policy's form is the registry's (mixed_config.go)
			}
			a, _ := json.Marshal(got[k])
			b, _ := json.Marshal(c.Config[k])
			if string(a) != string(b) {
				t.Errorf("%s: %s = %s, Keras %s", c.ClassName, k, a, b)
			}
		}
	}
	for _, class := range colorLayers {
		if !seen[class] {
			t.Errorf("no Keras config of %s", class)
		}
	}
}

// TestColorAugmentationBadConfigs: configs Keras would refuse, or that
// gokeras cannot honour, give an error naming the class, never a panic.
func TestColorAugmentationBadConfigs(t *testing.T) {
	for _, c := range []struct {
		class string
		cfg   map[string]any
	}{
		{"RandomGrayscale", map[string]any{"factor": []any{0.1, 0.2}}},
		{"RandomGrayscale", map[string]any{"factor": 2.0}},
		{"RandomHue", map[string]any{"factor": []any{0.1, 0.2, 0.3}}},
		{"RandomHue", map[string]any{"factor": 0.2, "value_range": []any{0.0}}},
		{"RandomSaturation", map[string]any{"factor": "a lot"}},
		{"RandomColorJitter", map[string]any{"hue_factor": 3.0}},
		{"RandomPosterization", map[string]any{"factor": 2.5}},
		{"Solarization", map[string]any{"addition_factor": []any{0.2, 1.5}}},
		{"AutoContrast", map[string]any{"value_range": []any{1.0, 1.0}}},
		{"Equalization", map[string]any{"bins": 0.0}},
		{"Equalization", map[string]any{"data_format": "channels_first"}},
		{"RandomInvert", map[string]any{"bounding_box_format": "xyxy"}},
	} {
		if _, err := LayerFromConfig(c.class, c.cfg); err == nil {
			t.Errorf("%s %v: accepted", c.class, c.cfg)
		} else if !strings.Contains(err.Error(), c.class) {
			t.Errorf("%s %v: error %q does not name the class", c.class, c.cfg, err)
		}
	}
}

// FuzzColorLayerFromConfig: any JSON config of the classes of
// registry_augment_color.go gives a layer or an error, and a layer that
// builds on a small image batch runs a training and an inference pass:
// never a panic, a hang or a huge allocation.
//
//	go test ./keras/ -run '^$' -fuzz '^FuzzColorLayerFromConfig$' -fuzztime 1m
func FuzzColorLayerFromConfig(f *testing.F) {
	layers.ClearSession()
	seeds := []layers.Layer{
		layers.NewRandomGrayscale(0.3, layers.WithSeed(1)),
		layers.NewRandomHue(layers.RandomHueSettings{Factor: 0.4}),
		layers.NewRandomSaturation(layers.RandomSaturationSettings{Range: &[2]float64{0.3, 0.8}}),
		layers.NewRandomColorDegeneration(layers.RandomColorDegenerationSettings{Factor: 0.5}),
		layers.NewRandomColorJitter(layers.RandomColorJitterSettings{BrightnessFactor: []float64{0.2}, HueFactor: []float64{0.1, 0.3}}),
		layers.NewRandomSharpness(layers.RandomSharpnessSettings{Factor: 0.5}),
		layers.NewRandomInvert(layers.RandomInvertSettings{}),
		layers.NewRandomPosterization(layers.RandomPosterizationSettings{Factor: 4}),
		layers.NewSolarization(layers.SolarizationSettings{AdditionFactor: 0.2, ThresholdFactor: 0.5}),
		layers.NewAutoContrast(nil),
		layers.NewEqualization(layers.EqualizationSettings{Bins: 16}),
	}
	for _, l := range seeds {
		b, err := json.Marshal(l.GetConfig())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(slices.Index(colorLayers, l.ClassName())), uint8(3), b)
	}
	shapes := []ops.Shape{{2, 3, 4, 3}, {3, 4, 3}, {2, 3, 4, 1}, {2, 2, 2, 4}, {2, 4}}
	f.Fuzz(func(t *testing.T, class, shape uint8, cfgJSON []byte) {
		var cfg map[string]any
		if json.Unmarshal(cfgJSON, &cfg) != nil {
			return
		}
		l, err := LayerFromConfig(colorLayers[int(class)%len(colorLayers)], cfg)
		if err != nil {
			return
		}
		s := shapes[int(shape)%len(shapes)]
		sym := s.Clone()
		if len(sym) == 4 {
			sym[0] = -1
		}
		if _, err := layers.OutputShape(l, []ops.Shape{sym}); err != nil {
			return
		}
		x := make([]float32, s.Size())
		for i := range x {
			x[i] = float32(i%7) * 40
		}
		for _, training := range []bool{true, false} {
			tr := ops.NewEagerTrace(training, 1)
			l.Call([]ops.Tensor{tr.Constant(s, x)}, training).Float32s()
		}
	})
}
