package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// checkDraws checks numbers a layer drew, one per image: each in [lo, hi]
// (within 1e-5), their mean within meanTol of want, and consecutive
// images independent (lag-one correlation below 0.1 for a few thousand
// images: the draws are per image, not one per batch).
func checkDraws(t *testing.T, what string, d []float64, lo, hi, want, meanTol float64) {
	t.Helper()
	for i, v := range d {
		if !(v >= lo-1e-5 && v <= hi+1e-5) {
			t.Fatalf("%s: image %d drew %v, outside [%v, %v]", what, i, v, lo, hi)
		}
	}
	m, sd := meanStd(d)
	if math.Abs(m-want) > meanTol {
		t.Errorf("%s: mean %.4f, want %.4f", what, m, want)
	}
	if sd == 0 {
		t.Fatalf("%s: every image drew %v", what, d[0])
	}
	var c float64
	for i := 1; i < len(d); i++ {
		c += (d[i] - m) * (d[i-1] - m)
	}
	if r := c / float64(len(d)-1) / (sd * sd); math.Abs(r) > 0.1 {
		t.Errorf("%s: consecutive images' draws correlate (r = %.3f)", what, r)
	}
}

// pixels returns n images of one pixel each, all (r, g, b).
func pixels(n int, rgb ...float32) ops.Value {
	c := len(rgb)
	x := make([]float32, n*c)
	for i := range x {
		x[i] = rgb[i%c]
	}
	return ops.Value{Shape: ops.Shape{n, 1, 1, c}, Data: x}
}

// hsvOf returns the HSV of RGB values (ops.RGBToHSV).
func hsvOf(rgb []float32) []float32 {
	tr := ops.NewEagerTrace(false, 1)
	return ops.RGBToHSV(tr.Constant(ops.Shape{len(rgb) / 3, 3}, rgb)).Float32s()
}

// buildFails checks that building l on shape fails naming the class.
func buildFails(t *testing.T, l layers.Layer, shape ops.Shape) {
	t.Helper()
	_, err := layers.OutputShape(l, []ops.Shape{shape})
	wantErr(t, err, l.ClassName())
}

// identityInInference checks that l passes x through in inference.
func identityInInference(t *testing.T, l layers.Layer, x ops.Value) {
	t.Helper()
	if y := layertest.Forward(t, l, false, x); !equal32(y.Data, x.Data) {
		t.Errorf("%s: inference changed the input", l.ClassName())
	}
}
