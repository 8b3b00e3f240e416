package layers

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// geomArray is an array of tools/keras_reference/augmentation_geom_vectors.py.
type geomArray struct {
	Shape  []int
	Values []float32
}

func (a geomArray) tensor(tr *ops.Trace) ops.Tensor {
	return tr.Constant(ops.Shape(a.Shape), a.Values)
}

type geomCase struct {
	ClassName      string `json:"class_name"`
	Name           string
	Config         map[string]any
	X              geomArray
	Transformation map[string]geomArray
	Training       geomArray
	Inference      geomArray
	Labels         *geomArray
	LabelsTraining *geomArray `json:"labels_training"`
	Homography     *geomArray
}

type geomFile struct {
	Cases []geomCase
	Masks []struct {
		X0, X1, Y0, Y1 geomArray
		Shape          []int
		Mask           geomArray
	}
}

func readGeomVectors(t *testing.T) geomFile {
	t.Helper()
	raw, err := os.ReadFile("testdata/keras/augmentation_geom.json")
	if err != nil {
		t.Fatal(err)
	}
	var f geomFile
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 || len(f.Masks) == 0 {
		t.Fatal("no cases")
	}
	return f
}

// geomPairOf reads a (lower, upper) pair of a Keras config.
func geomPairOf(t *testing.T, c map[string]any, key string) *[2]float64 {
	v, ok := c[key].([]any)
	if !ok || len(v) != 2 {
		t.Fatalf("%s: %v is not a pair", key, c[key])
	}
	return &[2]float64{v[0].(float64), v[1].(float64)}
}

// geomLayer makes the Go layer of a case from Keras' config, through the
// Go constructors (the registry's reading of the same configs is
// keras/registry_augment_geom_test.go's), and returns it with the
// function applying Keras' transformation with the layer's core, and,
// for MixUp and CutMix, to the labels.
func geomLayer(t *testing.T, c geomCase, tr *ops.Trace) (l Layer, images func(x ops.Tensor) ops.Tensor, labels func(y ops.Tensor) ops.Tensor) {
	t.Helper()
	cfg := c.Config
	tf := func(key string) ops.Tensor {
		a, ok := c.Transformation[key]
		if !ok {
			t.Fatalf("no transformation %q", key)
		}
		return a.tensor(tr)
	}
	num := func(key string) float64 { return cfg[key].(float64) }
	switch c.ClassName {
	case "RandomErasing":
		s := RandomErasingSettings{Factor: geomPairOf(t, cfg, "factor"), Scale: geomPairOf(t, cfg, "scale"), ValueRange: geomPairOf(t, cfg, "value_range")}
		switch f := cfg["fill_value"].(type) {
		case float64:
			s.FillValue = &f
		case []any:
			s.FillRGB = &[3]float64{f[0].(float64), f[1].(float64), f[2].(float64)}
		}
		return NewRandomErasing(s), func(x ops.Tensor) ops.Tensor {
			return eraseImages(x, tf("batch_masks"), tf("apply_erasing"), tf("fill_value"))
		}, nil
	case "RandomGaussianBlur":
		k := cfg["kernel_size"].([]any)
		s := RandomGaussianBlurSettings{Factor: geomPairOf(t, cfg, "factor"), Sigma: geomPairOf(t, cfg, "sigma"),
			ValueRange: geomPairOf(t, cfg, "value_range"), KernelSize: [2]int{int(k[0].(float64)), int(k[1].(float64))}}
		l := NewRandomGaussianBlur(s)
		return l, func(x ops.Tensor) ops.Tensor {
			return blurImages(x, tf("should_apply_blur"), tf("blur_factor"), l.kernel, l.vr)
		}, nil
	case "RandomShear":
		s := RandomShearSettings{XFactor: *geomPairOf(t, cfg, "x_factor"), YFactor: *geomPairOf(t, cfg, "y_factor"),
			FillMode: cfg["fill_mode"].(string), FillValue: num("fill_value"), Interpolation: cfg["interpolation"].(string)}
		return NewRandomShear(s), func(x ops.Tensor) ops.Tensor { return shearImages(x, tf("shear_factor"), s) }, nil
	case "RandomPerspective":
		scale := num("scale")
		s := RandomPerspectiveSettings{Factor: geomPairOf(t, cfg, "factor"), Scale: &scale,
			Interpolation: cfg["interpolation"].(string), FillValue: num("fill_value")}
		return NewRandomPerspective(s), func(x ops.Tensor) ops.Tensor {
			return perspectiveImages(x, tf("apply_perspective"), tf("start_points"), tf("end_points"), s)
		}, nil
	case "MixUp":
		alpha := num("alpha")
		return NewMixUp(MixUpSettings{Alpha: &alpha}), func(x ops.Tensor) ops.Tensor {
				return mixRows(x, tf("mix_weight"), tf("permutation_order"))
			}, func(y ops.Tensor) ops.Tensor {
				return mixRows(y, tf("mix_weight"), tf("permutation_order"))
			}
	case "CutMix":
		return NewCutMix(CutMixSettings{Factor: geomPairOf(t, cfg, "factor")}), func(x ops.Tensor) ops.Tensor {
				return cutMixImages(x, tf("batch_masks"), tf("permutation_order"))
			}, func(y ops.Tensor) ops.Tensor {
				return mixRows(y, tf("mix_weight"), tf("permutation_order"))
			}
	case "RandAugment":
		s := RandAugmentSettings{ValueRange: geomPairOf(t, cfg, "value_range"), NumOps: int(num("num_ops")), Factor: geomPairOf(t, cfg, "factor"),
			Interpolation: cfg["interpolation"].(string)}
		l := NewRandAugment(s)
		return l, func(x ops.Tensor) ops.Tensor {
			sub := map[string][]ops.Tensor{
				"random_shear":              {tf("random_shear/shear_factor")},
				"random_translation":        {tf("random_translation/translations")},
				"random_rotation":           {tf("random_rotation/rotation_matrix")},
				"random_brightness":         {tf("random_brightness/rgb_delta")},
				"random_color_degeneration": {tf("random_color_degeneration/factor")},
				"random_contrast":           {tf("random_contrast/contrast_factor")},
				"random_sharpness":          {tf("random_sharpness/factor")},
				"random_posterization":      {tf("random_posterization/shift_factor")},
				"solarization":              {tf("solarization/additions"), tf("solarization/thresholds")},
			}
			return l.augment(x, tf("layer_idxes"), sub)
		}, nil
	}
	t.Fatalf("no Go layer for %s", c.ClassName)
	return nil, nil, nil
}

// geomCompare compares got with Keras' values within tol (absolute),
// logging the worst difference.
func geomCompare(t *testing.T, what string, got ops.Tensor, want geomArray, tol float64) {
	t.Helper()
	if !got.Shape().Equal(ops.Shape(want.Shape)) {
		t.Fatalf("%s: shape %v, Keras %v", what, got.Shape(), want.Shape)
	}
	worst, bad := 0.0, 0
	for i, v := range got.Float32s() {
		d := math.Abs(float64(v) - float64(want.Values[i]))
		if !(d <= tol) {
			if bad++; bad <= 3 {
				t.Errorf("%s[%d] = %v, Keras %v", what, i, v, want.Values[i])
			}
		}
		worst = max(worst, d)
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ by more than %.3g", what, bad, len(want.Values), tol)
	}
	t.Logf("%s: worst difference %.3g (tolerance %.3g)", what, worst, tol)
}

// TestGeomAugmentationMatchesKeras: for each case Keras wrote (a layer in
// one configuration, an input batch, the transformation Keras'
// get_random_transformation drew), the Go layer's core applied to Keras'
// transformation gives Keras' transform_images output (and
// transform_labels' for MixUp and CutMix), and the layer in inference
// gives Keras' inference output (its input). Tolerances, relative to the
// largest input (1 or 255): 1e-6 for the selections and mixes
// (RandomErasing, CutMix, MixUp: the same float32 operations in the same
// order; measured equal), 2e-6 for the blur (the depthwise convolution
// sums its taps in another order: measured 1.8e-7) and the shear and a
// perspective warp of Keras' own homography (TensorFlow's bilinear
// formula in its order: measured equal), RandAugment's eleven
// augmentations on its sublayers' draws (measured 1 ulp, the rotation
// matrix from Keras' angles within 4.8e-7: sin and cos of float32); the
// whole perspective core,
// which solves the homography in float64 where TensorFlow's LU solves it
// in float32, within 1e-5 (measured 1.3e-6: the corners' coordinates
// differ by ~1e-6 pixels and bilinear values move by that times the
// neighbours' difference; a nearest read could differ only where a
// coordinate falls on a half, and the test would show it). Its homography
// is within 1e-5 of Keras' (relative, or absolute below 1).
func TestGeomAugmentationMatchesKeras(t *testing.T) {
	f := readGeomVectors(t)
	classes := map[string]int{}
	applied := map[string]bool{}
	for _, c := range f.Cases {
		classes[c.ClassName]++
		t.Run(c.ClassName+"/"+c.Name, func(t *testing.T) {
			tr := ops.NewEagerTrace(false, 1)
			l, images, labels := geomLayer(t, c, tr)
			if err := l.Err(); err != nil {
				t.Fatal(err)
			}
			width := 0.0 // the largest input, 1 or 255 up to the draw
			for _, v := range c.X.Values {
				width = max(width, math.Abs(float64(v)))
			}
			tol := 1e-6 * width
			switch c.ClassName {
			case "RandomGaussianBlur", "RandomShear", "RandAugment":
				tol = 2e-6 * width
			case "RandomPerspective":
				tol = 1e-5 * width
			}
			x := c.X.tensor(tr)
			geomCompare(t, "training", images(x), c.Training, tol)
			changed := 0
			for i, v := range c.Training.Values {
				if v != c.X.Values[i] {
					changed++
				}
			}
			if changed == 0 {
				t.Error("Keras' transformation left every image as it was: the case tests nothing")
			}
			if c.Homography != nil {
				h := ops.ComputeHomography(c.Transformation["start_points"].tensor(tr), c.Transformation["end_points"].tensor(tr))
				for i, v := range h.Float32s() {
					k := float64(c.Homography.Values[i])
					if math.Abs(float64(v)-k) > 1e-5*max(1, math.Abs(k)) {
						t.Errorf("homography[%d] = %v, Keras %v", i, v, k)
					}
				}
				s := l.(*RandomPerspective).s
				geomCompare(t, "training with Keras' homography", warpImages(x, c.Transformation["apply_perspective"].tensor(tr), c.Homography.tensor(tr), s),
					c.Training, 2e-6*width)
			}
			if c.ClassName == "RandAugment" {
				// The rotation matrix from Keras' angles, and the indices
				// the cases apply.
				h, w := c.X.Shape[1], c.X.Shape[2]
				m := rotationMatrix(c.Transformation["random_rotation/angle"].tensor(tr), h, w)
				geomCompare(t, "rotation matrix", m, c.Transformation["random_rotation/rotation_matrix"], 1e-5)
				for _, k := range c.Transformation["layer_idxes"].Values {
					applied[randAugmentOps[int(k)]] = true
				}
			}
			if labels != nil {
				if c.Labels == nil || c.LabelsTraining == nil {
					t.Fatal("no labels")
				}
				geomCompare(t, "labels", labels(c.Labels.tensor(tr)), *c.LabelsTraining, 1e-6)
			}
			if err := l.Build([]ops.Shape{ops.Shape(c.X.Shape)}); err != nil {
				t.Fatal(err)
			}
			geomCompare(t, "inference", l.Call([]ops.Tensor{x}, false), c.Inference, 0)
		})
	}
	for _, class := range []string{"RandomErasing", "RandomGaussianBlur", "RandomShear", "RandomPerspective", "MixUp", "CutMix", "RandAugment"} {
		if classes[class] < 2 {
			t.Errorf("%s: %d cases, want 2 or more", class, classes[class])
		}
	}
	for _, op := range randAugmentOps {
		if !applied[op] {
			t.Errorf("RandAugment: no case applies %s", op)
		}
	}
}

// TestBoxMaskMatchesKeras: boxMask gives Keras' _generate_batch_mask for
// whole and fractional corners (Keras' mask repeated over the channels).
func TestBoxMaskMatchesKeras(t *testing.T) {
	for _, m := range readGeomVectors(t).Masks {
		tr := ops.NewEagerTrace(false, 1)
		got := boxMask(m.Shape[1], m.Shape[2], m.X0.tensor(tr), m.X1.tensor(tr), m.Y0.tensor(tr), m.Y1.tensor(tr))
		geomCompare(t, "mask", ops.BroadcastTo(got, ops.Shape(m.Shape)), m.Mask, 0)
	}
}
