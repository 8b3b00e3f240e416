package layers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// geomGradCheck compares the gradient of sum(f(x) * R), R random, with
// respect to x with central differences (step 1e-3, computed in float64
// from float32 outputs): f is a layer's deterministic core with its
// transformation fixed.
func geomGradCheck(t *testing.T, name string, s ops.Shape, f func(x ops.Tensor) ops.Tensor) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, uint64(len(name))))
	data := make([]float32, s.Size())
	for i := range data {
		data[i] = r.Float32()*2 - 1
	}
	v := ops.NewVariable(name, s, data, true)
	tr := ops.NewTrace(true, 0, 1)
	y := f(tr.Read(v))
	wts := make([]float32, y.Shape().Size())
	for i := range wts {
		wts[i] = r.Float32()*2 - 1
	}
	loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), wts)), false)
	g, err := ops.Gradients(loss, []*ops.Variable{v})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{loss, g[0]})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	at := func() ([]float32, float64) {
		out, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return append([]float32(nil), out[1].Data...), float64(out[0].Data[0])
	}
	grad, _ := at()
	d := v.Data(0)
	for _, i := range r.Perm(len(d))[:min(len(d), 40)] {
		orig := d[i]
		const eps = 1e-3
		d[i] = orig + eps
		_, lp := at()
		d[i] = orig - eps
		_, lm := at()
		d[i] = orig
		num := (lp - lm) / (2 * eps)
		if math.Abs(num-float64(grad[i])) > 2e-3*max(1, math.Abs(num)) {
			t.Errorf("%s: d/dx[%d] = %v, finite differences %v", name, i, grad[i], num)
		}
	}
}

// TestGeomCoresGradients: finite differences of the deterministic cores
// with respect to the images, each with a fixed transformation: the
// erasing's and CutMix's selections, the blur's convolution (value range
// wide enough that the clip is the identity), the shear's and the
// perspective's resampling, MixUp's mix, whose partner's gradient
// flows back through the permutation, and RandAugment's differentiable
// augmentations (shear, translation, rotation, brightness, contrast,
// colour degeneration, sharpness) chosen two at a time.
func TestGeomCoresGradients(t *testing.T) {
	s := ops.Shape{3, 6, 5, 2}
	cst := func(x ops.Tensor, shape ops.Shape, v ...float32) ops.Tensor { return x.Trace().Constant(shape, v) }
	mask := func(x ops.Tensor) ops.Tensor {
		v := make([]float32, 3*6*5)
		for i := range v {
			v[i] = float32((i / 3) % 2)
		}
		return cst(x, ops.Shape{3, 6, 5, 1}, v...)
	}
	geomGradCheck(t, "erase", s, func(x ops.Tensor) ops.Tensor {
		return eraseImages(x, mask(x), cst(x, ops.Shape{3}, 1, 0, 1), x.Trace().Scalar(0.3))
	})
	geomGradCheck(t, "cutmix", s, func(x ops.Tensor) ops.Tensor {
		return cutMixImages(x, mask(x), cst(x, ops.Shape{3}, 2, 0, 1))
	})
	geomGradCheck(t, "mixup", s, func(x ops.Tensor) ops.Tensor {
		return mixRows(x, cst(x, ops.Shape{3}, 0.3, 0.9, 0.5), cst(x, ops.Shape{3}, 1, 2, 0))
	})
	geomGradCheck(t, "blur", s, func(x ops.Tensor) ops.Tensor {
		return blurImages(x, cst(x, ops.Shape{3}, 1, 0, 1), cst(x, ops.Shape{2}, 0.8, 1.3), [2]int{3, 5}, [2]float64{-10, 10})
	})
	ra := NewRandAugment(RandAugmentSettings{ValueRange: &[2]float64{-10, 10}})
	for _, idx := range [][]float32{{0, 2}, {1, 3}, {5, 4}, {6, 1}} {
		geomGradCheck(t, "randaugment", ops.Shape{3, 6, 5, 3}, func(x ops.Tensor) ops.Tensor {
			rot := rotationMatrix(cst(x, ops.Shape{3}, 20, -35, 90), 6, 5)
			per := ops.Shape{3, 1, 1, 1}
			tf := map[string][]ops.Tensor{
				"random_shear":              {cst(x, ops.Shape{3, 2}, 0.2, -0.1, -0.3, 0.25, 0.05, 0)},
				"random_translation":        {cst(x, ops.Shape{3, 2}, 0.5, -1.2, 2.3, 0.7, -0.4, 0)},
				"random_rotation":           {rot},
				"random_brightness":         {cst(x, per, 0.2, -0.3, 0.1)},
				"random_color_degeneration": {cst(x, per, 0.2, 0.6, 0.1)},
				"random_contrast":           {cst(x, per, 0.8, 1.3, 1.1)},
				"random_sharpness":          {cst(x, ops.Shape{3}, 0.2, 0.6, 0.9)},
				"random_posterization":      {cst(x, ops.Shape{3}, 6, 7, 6)},
				"solarization":              {cst(x, per, 1, 2, 3), cst(x, per, 100, 120, 90)},
			}
			return ra.augment(x, cst(x, ops.Shape{2}, idx...), tf)
		})
	}
	for _, interp := range []string{"bilinear", "nearest"} {
		geomGradCheck(t, "shear"+interp, s, func(x ops.Tensor) ops.Tensor {
			return shearImages(x, cst(x, ops.Shape{3, 2}, 0.2, -0.1, -0.3, 0.25, 0.05, 0), RandomShearSettings{FillMode: "reflect", Interpolation: interp})
		})
		geomGradCheck(t, "perspective"+interp, s, func(x ops.Tensor) ops.Tensor {
			start := []float32{0, 0, 4, 0, 0, 5, 4, 5}
			end := []float32{0, 0, 4.6, 0, 0, 4.2, 3.5, 5.8}
			var st, en []float32
			for range 3 {
				st, en = append(st, start...), append(en, end...)
			}
			return perspectiveImages(x, cst(x, ops.Shape{3}, 1, 1, 0), cst(x, ops.Shape{3, 4, 2}, st...), cst(x, ops.Shape{3, 4, 2}, en...),
				RandomPerspectiveSettings{Interpolation: interp, FillValue: 0.5})
		})
	}
}
