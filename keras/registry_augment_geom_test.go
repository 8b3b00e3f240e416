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

// TestGeomAugmentationRoundTrip: every class of registry_augment_geom.go
// comes back from its config, with arguments other than the defaults.
func TestGeomAugmentationRoundTrip(t *testing.T) {
	layers.ClearSession()
	img := func() *layers.KerasTensor { return layers.Input([]int{6, 5, 3}) }
	fill := 0.25
	scale := 0.3
	alpha := 0.7
	cases := []layers.Layer{
		layers.NewRandomErasing(layers.RandomErasingSettings{}),
		layers.NewRandomErasing(layers.RandomErasingSettings{Factor: &[2]float64{0.2, 0.7}, Scale: &[2]float64{0.1, 0.4}, FillValue: &fill,
			ValueRange: &[2]float64{0, 1}}, layers.WithSeed(2)),
		layers.NewRandomErasing(layers.RandomErasingSettings{FillRGB: &[3]float64{1, 2, 3}}),
		layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{}),
		layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{Factor: &[2]float64{0.5, 0.5}, KernelSize: [2]int{5, 3},
			Sigma: &[2]float64{0.3, 2}, ValueRange: &[2]float64{-1, 1}}, layers.WithSeed(3)),
		layers.NewRandomShear(layers.RandomShearSettings{}),
		layers.NewRandomShear(layers.RandomShearSettings{XFactor: [2]float64{-0.3, 0.3}, YFactor: [2]float64{0.1, 0.2}, FillMode: "constant",
			FillValue: 2, Interpolation: "nearest"}, layers.WithSeed(4)),
		layers.NewRandomPerspective(layers.RandomPerspectiveSettings{}),
		layers.NewRandomPerspective(layers.RandomPerspectiveSettings{Factor: &[2]float64{0.1, 0.9}, Scale: &scale, Interpolation: "nearest",
			FillValue: -1}, layers.WithName("warp")),
		layers.NewMixUp(layers.MixUpSettings{}),
		layers.NewMixUp(layers.MixUpSettings{Alpha: &alpha}, layers.WithSeed(5)),
		layers.NewCutMix(layers.CutMixSettings{}),
		layers.NewCutMix(layers.CutMixSettings{Factor: &[2]float64{0.3, 0.6}}, layers.WithSeed(6)),
		layers.NewRandAugment(layers.RandAugmentSettings{}),
		layers.NewRandAugment(layers.RandAugmentSettings{ValueRange: &[2]float64{0, 1}, NumOps: 3, Factor: &[2]float64{0.2, 0.7},
			Interpolation: "nearest"}, layers.WithSeed(7)),
	}
	covered := map[string]bool{}
	for _, l := range cases {
		roundTrip(t, l, img())
		covered[l.ClassName()] = true
	}
	for _, class := range geomLayers {
		if !covered[class] {
			t.Errorf("registered class %s is not tested", class)
		}
	}
}

// TestGeomAugmentationKerasConfigs: each config Keras 3.15.1 wrote
// (tools/keras_reference/augmentation_geom_vectors.py) loads, and the
// layer's GetConfig is Keras' (same keys, same values; RandomShear's
// factors of single numbers, which Keras writes as (-f, f) and then
// refuses to read, come back as written).
func TestGeomAugmentationKerasConfigs(t *testing.T) {
	raw, err := os.ReadFile("layers/testdata/keras/augmentation_geom.json")
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
	for _, class := range geomLayers {
		if !seen[class] {
			t.Errorf("no Keras config of %s", class)
		}
	}
}

// TestGeomAugmentationBadConfigs: configs Keras would refuse, or that
// gokeras cannot honour, give an error naming the class, never a panic.
func TestGeomAugmentationBadConfigs(t *testing.T) {
	for _, c := range []struct {
		class string
		cfg   map[string]any
	}{
		{"RandomErasing", map[string]any{"factor": 1.5}},
		{"RandomErasing", map[string]any{"scale": []any{0.1, 0.2, 0.3}}},
		{"RandomErasing", map[string]any{"fill_value": []any{1.0, 2.0}}},
		{"RandomErasing", map[string]any{"fill_value": "noise"}},
		{"RandomGaussianBlur", map[string]any{"kernel_size": 4.0}},
		{"RandomGaussianBlur", map[string]any{"kernel_size": []any{3.0, 5.0, 7.0}}},
		{"RandomGaussianBlur", map[string]any{"sigma": -1.0}},
		{"RandomShear", map[string]any{"x_factor": 1.5}},
		{"RandomShear", map[string]any{"y_factor": []any{-0.5, 0.2}}},
		{"RandomShear", map[string]any{"fill_mode": "mirror"}},
		{"RandomPerspective", map[string]any{"scale": 2.0}},
		{"RandomPerspective", map[string]any{"interpolation": "bicubic"}},
		{"MixUp", map[string]any{"alpha": 0.0}},
		{"CutMix", map[string]any{"factor": []any{2.0, 3.0}}},
		{"CutMix", map[string]any{"bounding_box_format": "xyxy"}},
		{"RandAugment", map[string]any{"num_ops": 0.0}},
		{"RandAugment", map[string]any{"value_range": []any{1.0, 1.0}}},
		{"RandAugment", map[string]any{"factor": 2.0}},
	} {
		if _, err := LayerFromConfig(c.class, c.cfg); err == nil {
			t.Errorf("%s %v: accepted", c.class, c.cfg)
		} else if !strings.Contains(err.Error(), c.class) {
			t.Errorf("%s %v: error %q does not name the class", c.class, c.cfg, err)
		}
	}
}

// FuzzGeomLayerFromConfig: any JSON config of the classes of
// registry_augment_geom.go gives a layer or an error, and a layer that
// builds on a small image batch runs a training and an inference pass:
// never a panic, a hang or a huge allocation.
//
//	go test ./keras/ -run '^$' -fuzz '^FuzzGeomLayerFromConfig$' -fuzztime 1m
func FuzzGeomLayerFromConfig(f *testing.F) {
	layers.ClearSession()
	scale := 0.5
	seeds := []layers.Layer{
		layers.NewRandomErasing(layers.RandomErasingSettings{FillRGB: &[3]float64{1, 2, 3}}, layers.WithSeed(1)),
		layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{KernelSize: [2]int{5, 3}}),
		layers.NewRandomShear(layers.RandomShearSettings{XFactor: [2]float64{-0.3, 0.3}, FillMode: "wrap"}),
		layers.NewRandomPerspective(layers.RandomPerspectiveSettings{Scale: &scale, Interpolation: "nearest"}),
		layers.NewMixUp(layers.MixUpSettings{}),
		layers.NewCutMix(layers.CutMixSettings{Factor: &[2]float64{0.2, 0.4}}),
		layers.NewRandAugment(layers.RandAugmentSettings{NumOps: 3}),
	}
	for _, l := range seeds {
		b, err := json.Marshal(l.GetConfig())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(slices.Index(geomLayers, l.ClassName())), uint8(0), b)
	}
	shapes := []ops.Shape{{2, 4, 5, 3}, {4, 5, 3}, {3, 4, 3, 1}, {2, 3, 3, 2}, {2, 4}}
	f.Fuzz(func(t *testing.T, class, shape uint8, cfgJSON []byte) {
		var cfg map[string]any
		if json.Unmarshal(cfgJSON, &cfg) != nil {
			return
		}
		l, err := LayerFromConfig(geomLayers[int(class)%len(geomLayers)], cfg)
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
