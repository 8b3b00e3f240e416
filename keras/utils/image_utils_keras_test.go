package utils_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// load_img then img_to_array, as Keras (PIL) gives them, for every file in
// every color mode, and resized with each of PIL's filters, with and
// without keep_aspect_ratio: exact but for JPEGs (jpegTolerance).
func TestLoadImgMatchesKeras(t *testing.T) {
	for _, c := range readVectors(t).LoadImg {
		name := fmt.Sprintf("%s %v", c.File, c.Args)
		cfg := utils.LoadImgConfig{}
		for k, v := range c.Args {
			switch k {
			case "color_mode":
				cfg.ColorMode = v.(string)
			case "target_size":
				s := v.([]any)
				cfg.TargetSize = [2]int{int(s[0].(float64)), int(s[1].(float64))}
			case "interpolation":
				cfg.Interpolation = v.(string)
			case "keep_aspect_ratio":
				cfg.KeepAspectRatio = v.(bool)
			default:
				t.Fatalf("%s: argument %q not handled", name, k)
			}
		}
		img, err := utils.LoadImg(imagesDir+"/"+c.File, cfg)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		x, err := utils.ImgToArray(img)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual([]int(x.Shape()), c.Shape) {
			t.Errorf("%s: shape %v, Keras %v (PIL mode %s)", name, x.Shape(), c.Shape, c.Mode)
			continue
		}
		tol := 0.0
		if isJPEG(c.File) {
			tol = jpegTolerance(c.Shape[2])
		}
		got := x.Data().([]float32)
		worst, at := 0.0, 0
		for i, w := range c.X {
			if d := math.Abs(float64(got[i]) - w); d > worst {
				worst, at = d, i
			}
		}
		if worst > tol {
			t.Errorf("%s: differs from Keras by %v at %d (got %v, Keras %v)", name, worst, at, got[at], c.X[at])
		}
	}
}

// array_to_img, scaled and not, read back as img_to_array does.
func TestArrayToImgMatchesKeras(t *testing.T) {
	for i, c := range readVectors(t).ArrayToImg {
		v := make([]float32, len(c.X))
		for j, f := range c.X {
			v[j] = float32(f)
		}
		x := tensor.New(tensor.WithShape(c.Shape...), tensor.WithBacking(v))
		img, err := utils.ArrayToImg(x, utils.ArrayToImgConfig{NoScale: !c.Scale})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		wantType := map[string]string{"L": "*image.Gray", "RGB": "*image.RGBA", "RGBA": "*image.NRGBA"}[c.Mode]
		if got := fmt.Sprintf("%T", img); got != wantType {
			t.Errorf("case %d: %s, want %s for PIL's %s", i, got, wantType, c.Mode)
		}
		a, err := utils.ImgToArray(img)
		if err != nil {
			t.Fatal(err)
		}
		for j, f := range a.Data().([]float32) {
			if float64(f) != c.Out[j] {
				t.Errorf("case %d: value %d is %v, Keras %v", i, j, f, c.Out[j])
				break
			}
		}
	}
}
