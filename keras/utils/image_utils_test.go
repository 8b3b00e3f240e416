package utils_test

import (
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// SaveImg writes what LoadImg reads back: exactly for PNG and BMP, in
// every channel count, and, unscaled, the same levels.
func TestSaveImgRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []int{1, 3, 4} {
		v := make([]float32, 4*5*c)
		for i := range v {
			v[i] = float32((i * 37) % 256)
		}
		x := tensor.New(tensor.WithShape(4, 5, c), tensor.WithBacking(v))
		mode := map[int]string{1: "grayscale", 3: "rgb", 4: "rgba"}[c]
		for _, ext := range []string{"png", "bmp"} {
			if c == 4 && ext == "bmp" {
				continue // PIL, and so LoadImg, reads a 32-bit BMP as RGB
			}
			p := filepath.Join(dir, mode+"."+ext)
			if err := utils.SaveImg(p, x, utils.SaveImgConfig{NoScale: true}); err != nil {
				t.Fatal(err)
			}
			img, err := utils.LoadImg(p, utils.LoadImgConfig{ColorMode: mode})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := utils.ImgToArray(img)
			if got := a.Data().([]float32); !slices.Equal(got, v) || !slices.Equal([]int(a.Shape()), []int{4, 5, c}) {
				t.Errorf("%s: read back %v %v", p, a.Shape(), got[:8])
			}
		}
	}
	// JPEG and GIF are lossy; they still write and read.
	x := tensor.New(tensor.WithShape(8, 8, 3), tensor.WithBacking(make([]float32, 192)))
	for _, name := range []string{"a.jpg", "b.gif"} {
		p := filepath.Join(dir, name)
		if err := utils.SaveImg(p, x, utils.SaveImgConfig{}); err != nil {
			t.Fatal(err)
		}
		if _, err := utils.LoadImg(p, utils.LoadImgConfig{}); err != nil {
			t.Error(err)
		}
	}
	if err := utils.SaveImg(filepath.Join(dir, "x.tiff"), x, utils.SaveImgConfig{}); err == nil || !strings.Contains(err.Error(), `"tiff"`) {
		t.Errorf("tiff: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 7 {
		t.Errorf("%d files in the folder, want 7 (no temporary ones)", len(entries))
	}
}

func TestLoadImgErrors(t *testing.T) {
	fsys := fstest.MapFS{"x.png": {Data: []byte("\x89PNG\r\n\x1a\nbroken")}, "y.txt": {Data: []byte("text")}}
	for _, c := range []struct {
		path string
		cfg  utils.LoadImgConfig
		want string
	}{
		{"x.png", utils.LoadImgConfig{FS: fsys}, "x.png"},
		{"y.txt", utils.LoadImgConfig{FS: fsys}, "not a JPEG, PNG, GIF or BMP"},
		{imagesDir + "/a/rgb.png", utils.LoadImgConfig{ColorMode: "hsv"}, `ColorMode "hsv"`},
		{imagesDir + "/a/rgb.png", utils.LoadImgConfig{TargetSize: [2]int{3, 3}, Interpolation: "cubic"}, `"cubic"`},
		{imagesDir + "/a/rgb.png", utils.LoadImgConfig{TargetSize: [2]int{0, 3}}, "TargetSize"},
		{imagesDir + "/none.png", utils.LoadImgConfig{}, "none.png"},
	} {
		if _, err := utils.LoadImg(c.path, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: %v, want %q", c.path, c.cfg, err, c.want)
		}
	}
	img, err := utils.LoadImg(imagesDir+"/a/rgb.png", utils.LoadImgConfig{Grayscale: true})
	if _, ok := img.(*image.Gray); err != nil || !ok {
		t.Errorf("Grayscale: %T %v", img, err)
	}
}

func TestArrayToImgErrors(t *testing.T) {
	for _, c := range []struct {
		x    *tensor.Dense
		cfg  utils.ArrayToImgConfig
		want string
	}{
		{tensor.New(tensor.WithShape(2, 2), tensor.WithBacking(make([]float32, 4))), utils.ArrayToImgConfig{}, "rank 3"},
		{tensor.New(tensor.WithShape(2, 2, 2), tensor.WithBacking(make([]float32, 8))), utils.ArrayToImgConfig{}, "2 channels"},
		{tensor.New(tensor.WithShape(1, 1, 3), tensor.WithBacking([]float32{300, 0, 0})), utils.ArrayToImgConfig{NoScale: true}, "outside 0..255"},
		{tensor.New(tensor.WithShape(1, 1, 1), tensor.WithBacking([]float32{1})), utils.ArrayToImgConfig{DataFormat: "nchw"}, "nchw"},
		{nil, utils.ArrayToImgConfig{}, "nil"},
	} {
		if _, err := utils.ArrayToImg(c.x, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.x, err, c.want)
		}
	}
	// Unscaled gray above 255 becomes 16-bit, as PIL makes an "I" image.
	img, err := utils.ArrayToImg(tensor.New(tensor.WithShape(1, 2, 1), tensor.WithBacking([]float32{1000, 7})), utils.ArrayToImgConfig{NoScale: true})
	if g, ok := img.(*image.Gray16); err != nil || !ok || g.Gray16At(0, 0).Y != 1000 {
		t.Errorf("%T %v", img, err)
	}
	// channels_first in ImgToArray and ArrayToImg.
	x := tensor.New(tensor.WithShape(3, 1, 2), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6}))
	img, err = utils.ArrayToImg(x, utils.ArrayToImgConfig{NoScale: true, DataFormat: "channels_first"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := utils.ImgToArray(img, "channels_first")
	if err != nil || !slices.Equal(a.Data().([]float32), []float32{1, 2, 3, 4, 5, 6}) {
		t.Errorf("channels_first round trip: %v %v", a, err)
	}
}

// TimeseriesDatasetFromArray refuses what Keras refuses, and a window that
// cannot fit.
func TestTimeseriesErrors(t *testing.T) {
	x := tensor.New(tensor.WithShape(10, 1), tensor.WithBacking(make([]float32, 10)))
	for _, c := range []struct {
		n    int
		cfg  utils.TimeseriesConfig
		want string
	}{
		{3, utils.TimeseriesConfig{StartIndex: -1}, "StartIndex -1"},
		{3, utils.TimeseriesConfig{StartIndex: 10}, "StartIndex 10"},
		{3, utils.TimeseriesConfig{StartIndex: 5, EndIndex: 4}, "EndIndex 4"},
		{3, utils.TimeseriesConfig{EndIndex: 10}, "EndIndex 10"},
		{3, utils.TimeseriesConfig{SamplingRate: 10}, "SamplingRate 10"},
		{3, utils.TimeseriesConfig{SequenceStride: -1}, "SequenceStride -1"},
		{0, utils.TimeseriesConfig{}, "sequence_length 0"},
		{11, utils.TimeseriesConfig{}, "no window"},
	} {
		if _, err := utils.TimeseriesDatasetFromArray(x, nil, c.n, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestTextDatasetErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  utils.TextDatasetConfig
		want string
	}{
		{utils.TextDatasetConfig{MaxLength: -1}, "MaxLength -1"},
		{utils.TextDatasetConfig{LabelMode: "binary", ClassNames: []string{"neg"}}, "exactly 2 classes, have 1"},
		{utils.TextDatasetConfig{NoLabels: true, ClassNames: []string{"neg"}}, "ClassNames"},
	} {
		c.cfg.Quiet = true
		if _, err := utils.TextDatasetFromDirectory(textsDir, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if _, err := utils.TextDatasetFromDirectory(imagesDir+"/b", utils.TextDatasetConfig{Quiet: true}); err == nil || !strings.Contains(err.Error(), "no text files") {
		t.Errorf("no texts: %v", err)
	}
}
