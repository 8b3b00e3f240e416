package layers

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// colorArray is an array of tools/keras_reference/augmentation_color_vectors.py.
type colorArray struct {
	Shape  []int
	Values []float32
}

func (a colorArray) tensor(tr *ops.Trace) ops.Tensor {
	return tr.Constant(ops.Shape(a.Shape), a.Values)
}

type colorCase struct {
	ClassName      string `json:"class_name"`
	Name           string
	Config         map[string]any
	X              colorArray
	Transformation map[string]json.RawMessage
	Training       colorArray
	Inference      colorArray
}

// colorConfigPair reads a (lower, upper) factor or value range of a Keras
// config.
func colorConfigPair(t *testing.T, c map[string]any, key string) *[2]float64 {
	v, ok := c[key].([]any)
	if !ok {
		if f, ok := c[key].(float64); ok { // a number (RandomColorJitter's factors)
			return &[2]float64{f, math.NaN()}
		}
		return nil
	}
	if len(v) != 2 {
		t.Fatalf("%s: %v is not a pair", key, c[key])
	}
	return &[2]float64{v[0].(float64), v[1].(float64)}
}

// colorLayer makes the Go layer of a case from Keras' config, through
// the Go constructors (the registry's reading of the same configs is
// keras/registry_augment_color_test.go's), and returns it with the
// function applying Keras' transformation to x with the layer's core.
func colorLayer(t *testing.T, c colorCase, tr *ops.Trace) (Layer, func(x ops.Tensor) ops.Tensor) {
	t.Helper()
	cfg := c.Config
	factor, vr := colorConfigPair(t, cfg, "factor"), colorConfigPair(t, cfg, "value_range")
	tf := func(key string) ops.Tensor {
		var a colorArray
		if err := json.Unmarshal(c.Transformation[key], &a); err != nil {
			t.Fatalf("transformation %s: %v", key, err)
		}
		return a.tensor(tr)
	}
	switch c.ClassName {
	case "RandomGrayscale":
		return NewRandomGrayscale(cfg["factor"].(float64)), func(x ops.Tensor) ops.Tensor {
			return grayscaleImages(x, tf("should_apply"))
		}
	case "RandomHue":
		l := NewRandomHue(RandomHueSettings{Range: factor, ValueRange: vr})
		return l, func(x ops.Tensor) ops.Tensor { return hueImages(x, tf("factor"), l.vr) }
	case "RandomSaturation":
		l := NewRandomSaturation(RandomSaturationSettings{Range: factor, ValueRange: vr})
		return l, func(x ops.Tensor) ops.Tensor { return saturationImages(x, tf("factor"), l.vr) }
	case "RandomColorDegeneration":
		l := NewRandomColorDegeneration(RandomColorDegenerationSettings{Range: factor, ValueRange: vr})
		return l, func(x ops.Tensor) ops.Tensor { return degenerateImages(x, tf("factor"), l.vr) }
	case "RandomColorJitter":
		var js RandomColorJitterSettings
		js.ValueRange = vr
		for i, f := range []*[]float64{&js.BrightnessFactor, &js.ContrastFactor, &js.SaturationFactor, &js.HueFactor} {
			switch v := cfg[jitterParts[i].key].(type) {
			case float64:
				*f = []float64{v}
			case []any:
				*f = []float64{v[0].(float64), v[1].(float64)}
			}
		}
		l := NewRandomColorJitter(js)
		return l, func(x ops.Tensor) ops.Tensor {
			sub := func(part, key string) ops.Tensor {
				raw, ok := c.Transformation[part]
				if !ok {
					return ops.Tensor{}
				}
				var m map[string]colorArray
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatalf("transformation %s: %v", part, err)
				}
				return m[key].tensor(tr)
			}
			d := jitterDraws{sub("brightness", "rgb_delta"), sub("contrast", "contrast_factor"),
				sub("saturation", "factor"), sub("hue", "factor")}
			return l.jitterImages(x, &d, nil)
		}
	case "RandomSharpness":
		l := NewRandomSharpness(RandomSharpnessSettings{Range: factor, ValueRange: vr})
		return l, func(x ops.Tensor) ops.Tensor { return sharpenImages(x, tf("factor"), l.vr) }
	case "RandomInvert":
		l := NewRandomInvert(RandomInvertSettings{Range: factor, ValueRange: vr})
		return l, func(x ops.Tensor) ops.Tensor { return invertImages(x, tf("apply_inversion"), l.vr) }
	case "RandomPosterization":
		l := NewRandomPosterization(RandomPosterizationSettings{Range: factor, ValueRange: vr})
		return l, func(x ops.Tensor) ops.Tensor { return posterizeImages(x, tf("shift_factor"), l.vr) }
	case "Solarization":
		l := NewSolarization(SolarizationSettings{AdditionRange: colorConfigPair(t, cfg, "addition_factor"),
			ThresholdRange: colorConfigPair(t, cfg, "threshold_factor"), ValueRange: vr})
		return l, func(x ops.Tensor) ops.Tensor { return solarizeImages(x, tf("additions"), tf("thresholds"), l.vr) }
	case "AutoContrast":
		l := NewAutoContrast(vr)
		return l, func(x ops.Tensor) ops.Tensor { return autoContrast(x, l.vr) }
	case "Equalization":
		l := NewEqualization(EqualizationSettings{ValueRange: vr, Bins: int(cfg["bins"].(float64))})
		return l, func(x ops.Tensor) ops.Tensor { return equalize(x, l.vr, l.bins) }
	}
	t.Fatalf("no Go layer for %s", c.ClassName)
	return nil, nil
}

// TestColorAugmentationMatchesKeras: for each case Keras wrote (a layer
// of the colour augmentation family in one configuration, an input
// batch, the transformation Keras' get_random_transformation drew), the
// Go layer's core applied to Keras' transformation gives Keras'
// transform_images output, and the layer in inference gives Keras'
// inference output. Tolerance 2e-6 relative to the value range's width
// (5e-4 on 0..255): float32 arithmetic in the same order as Keras', but
// grayscale and mean sums, the HSV kernels' fused multiply-adds and the
// 3x3 convolution's order round differently by a few ulps; the
// quantizing layers (posterization, equalization, solarization's
// threshold, the hue's wrap) would differ by whole levels on a different
// rounding, and the test sees that.
func TestColorAugmentationMatchesKeras(t *testing.T) {
	raw, err := os.ReadFile("testdata/keras/augmentation_color.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []colorCase }
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range f.Cases {
		t.Run(c.ClassName+"/"+c.Name, func(t *testing.T) {
			tr := ops.NewEagerTrace(false, 1)
			l, core := colorLayer(t, c, tr)
			if err := l.Err(); err != nil {
				t.Fatal(err)
			}
			width := 255.0
			if vr := colorConfigPair(t, c.Config, "value_range"); vr != nil {
				width = math.Abs(vr[1] - vr[0])
			}
			tol := 2e-6 * width
			x := c.X.tensor(tr)
			compare := func(what string, got ops.Tensor, want colorArray) {
				if !got.Shape().Equal(ops.Shape(want.Shape)) {
					t.Fatalf("%s: shape %v, Keras %v", what, got.Shape(), want.Shape)
				}
				worst, bad := 0.0, 0
				for i, v := range got.Float32s() {
					d := math.Abs(float64(v) - float64(want.Values[i]))
					if !(d <= tol) {
						if bad++; bad <= 3 {
							t.Errorf("%s[%d] = %v, Keras %v (x %v)", what, i, v, want.Values[i], c.X.Values[i])
						}
					}
					worst = max(worst, d)
				}
				if bad > 0 {
					t.Errorf("%s: %d of %d values differ by more than %.3g", what, bad, len(want.Values), tol)
				}
				t.Logf("%s: worst difference %.3g (tolerance %.3g)", what, worst, tol)
			}
			compare("training", core(x), c.Training)
			if err := l.Build([]ops.Shape{ops.Shape(c.X.Shape)}); err != nil {
				t.Fatal(err)
			}
			compare("inference", l.Call([]ops.Tensor{x}, false), c.Inference)
		})
	}
}
