package ops_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestRGBToHSVValues: hand-computed conversions (TensorFlow's
// definitions: hue in [0, 1), saturation 0 for black, hue 0 for greys)
// and the round trip back to RGB.
func TestRGBToHSVValues(t *testing.T) {
	tr := ops.NewEagerTrace(false, 1)
	rgb := []float32{
		1, 0, 0, // red
		0.2, 0.4, 0.6, // blue-ish: h = 7/12
		0.5, 0.5, 0.5, // grey
		0, 0, 0, // black
		0.9, 0.1, 0.5, // magenta-ish: red max, h = 1 - 0.4/(6*0.8)
		30, 200, 100, // 0..255 scale: green max, h = (100-30)/(6*170) + 1/3
	}
	want := []float64{
		0, 1, 1,
		7.0 / 12, 2.0 / 3, 0.6,
		0, 0, 0.5,
		0, 0, 0,
		1 - 0.4/4.8, 0.8 / 0.9, 0.9,
		70.0/1020 + 1.0/3, 170.0 / 200, 200,
	}
	hsv := ops.RGBToHSV(tr.Constant(ops.Shape{2, 3, 3}, rgb))
	for i, v := range hsv.Float32s() {
		if math.Abs(float64(v)-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
			t.Errorf("hsv[%d] = %v, want %v", i, v, want[i])
		}
	}
	back := ops.HSVToRGB(hsv).Float32s()
	for i, v := range back {
		if math.Abs(float64(v-rgb[i])) > 2e-6*math.Max(1, math.Abs(float64(rgb[i]))) {
			t.Errorf("hsv_to_rgb(rgb_to_hsv(x))[%d] = %v, want %v", i, v, rgb[i])
		}
	}
}

// TestColorOpsRefuseOtherChannels: the last axis must be 3.
func TestColorOpsRefuseOtherChannels(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("RGBToHSV accepted 4 channels")
		}
	}()
	ops.RGBToHSV(ops.NewEagerTrace(false, 1).Constant(ops.Shape{2, 4}, make([]float32, 8)))
}

// TestGradientsColorHSV: finite differences of both conversions, on
// pixels whose channels are apart (a tie of the maximum is a kink) and
// hues away from the clips' corners.
func TestGradientsColorHSV(t *testing.T) {
	apart := func(_ int, r *rand.Rand) float32 { return 0.05 + 0.9*float32(r.IntN(300))/300 }
	build := func(f func(ops.Tensor) ops.Tensor) func(*ops.Trace, []ops.Tensor) ops.Tensor {
		return func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return f(x[0]) }
	}
	for _, c := range []gradCase{
		{name: "RGBToHSV", shapes: []ops.Shape{{4, 5, 3}}, build: build(ops.RGBToHSV), gen: apart},
		{name: "HSVToRGB", shapes: []ops.Shape{{4, 5, 3}}, build: build(ops.HSVToRGB), gen: apart},
		{name: "HueRoundTrip", shapes: []ops.Shape{{2, 6, 3}}, gen: apart, build: build(func(x ops.Tensor) ops.Tensor {
			return ops.HSVToRGB(ops.Mul(ops.RGBToHSV(x), x.Trace().Constant(ops.Shape{3}, []float32{1, 0.7, 1})))
		})},
	} {
		checkGrad(t, c)
	}
}
