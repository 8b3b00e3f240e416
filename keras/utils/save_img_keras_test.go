package utils_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// saveImgCase is one file Keras' save_img wrote
// (tools/keras_reference/save_img_vectors.py).
type saveImgCase struct {
	File      string
	Shape     []int
	X         []float32
	Scale     bool
	Quality   int
	Mode      string // PIL's mode of the file Keras wrote
	ReadShape []int  `json:"read_shape"`
	Read      []int  // the pixels PIL reads from it
}

// loadAsArray reads a file with LoadImg in PIL's mode and returns its
// pixels as ImgToArray gives them.
func loadAsArray(t *testing.T, path, mode string) ([]float32, []int) {
	t.Helper()
	colorMode := map[string]string{"L": "grayscale", "RGB": "rgb", "RGBA": "rgba"}[mode]
	if colorMode == "" {
		t.Fatalf("%s: PIL mode %q", path, mode)
	}
	img, err := utils.LoadImg(path, utils.LoadImgConfig{ColorMode: colorMode})
	if err != nil {
		t.Fatal(err)
	}
	a, err := utils.ImgToArray(img)
	if err != nil {
		t.Fatal(err)
	}
	return a.Data().([]float32), []int(a.Shape())
}

// SaveImg writes the files Keras' save_img (PIL) writes: the same arrays
// saved by both read back as the same pixels, to the level for PNG and
// BMP (grayscale, RGB and RGBA; scaled to 0..255 and not), and for JPEG
// (PIL's default quality 75 and 95, an RGBA array losing its alpha as in
// Keras) within the two encoders' rounding of the DCT: at most 2 levels
// apart on average and 16 at any pixel (13 measured), where a wrong quality, chroma
// subsampling or color conversion is off by tens. LoadImg also reads
// Keras' files as PIL reads them.
func TestSaveImgMatchesKeras(t *testing.T) {
	b, err := os.ReadFile("testdata/save_img/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Cases []saveImgCase }
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 9 {
		t.Fatalf("%d cases, want 9", len(v.Cases))
	}
	dir := t.TempDir()
	for _, c := range v.Cases {
		t.Run(c.File, func(t *testing.T) {
			kerasFile := filepath.Join("testdata", "save_img", c.File)
			x := tensor.New(tensor.WithShape(c.Shape...), tensor.WithBacking(slices.Clone(c.X)))
			goFile := filepath.Join(dir, c.File)
			if err := utils.SaveImg(goFile, x, utils.SaveImgConfig{NoScale: !c.Scale, Quality: c.Quality}); err != nil {
				t.Fatal(err)
			}
			want, wantShape := loadAsArray(t, kerasFile, c.Mode)
			got, gotShape := loadAsArray(t, goFile, c.Mode)
			if !slices.Equal(gotShape, wantShape) {
				t.Fatalf("SaveImg's file reads as %v, Keras' as %v", gotShape, wantShape)
			}
			read := make([]float32, len(c.Read))
			for i, p := range c.Read {
				read[i] = float32(p)
			}
			lossy := filepath.Ext(c.File) == ".jpg"
			if !lossy {
				if !slices.Equal(got, want) {
					t.Errorf("SaveImg's pixels differ from Keras' file's: %v... against %v...", got[:6], want[:6])
				}
				// PIL's reading of its own file has the same levels (its
				// shape drops the channel axis of a gray image).
				if !slices.Equal(want, read) {
					t.Errorf("LoadImg reads Keras' file as %v..., PIL as %v...", want[:6], read[:6])
				}
				return
			}
			mean, worst := levelDiff(got, want)
			t.Logf("JPEG: SaveImg's file against Keras': mean %.2f, max %.0f levels", mean, worst)
			if mean > 2 || worst > 16 {
				t.Errorf("SaveImg's JPEG is %.2f levels from Keras' on average, %.0f at most", mean, worst)
			}
			// The same quality is the closest: at 20 below or above it the
			// file is further from Keras' (a quality off by a few is not
			// told apart by the bounds above alone).
			q := c.Quality
			if q == 0 {
				q = 75
			}
			for _, other := range []int{q - 20, min(q+20, 100)} {
				if other == q {
					continue
				}
				f := filepath.Join(dir, "q", c.File)
				_ = os.MkdirAll(filepath.Dir(f), 0o755)
				if err := utils.SaveImg(f, x, utils.SaveImgConfig{NoScale: !c.Scale, Quality: other}); err != nil {
					t.Fatal(err)
				}
				o, _ := loadAsArray(t, f, c.Mode)
				if m, _ := levelDiff(o, want); !(m > mean) {
					t.Errorf("quality %d is %.2f levels from Keras' quality %d, closer than the same quality (%.2f)", other, m, q, mean)
				}
			}
			// Go's and PIL's JPEG decoders round the inverse DCT each their
			// way (LoadImg's documentation).
			if mean, worst := levelDiff(want, read); mean > 1 || worst > 4 {
				t.Errorf("LoadImg reads Keras' JPEG %.2f levels from PIL on average, %.0f at most", mean, worst)
			}
		})
	}
}

// levelDiff is the mean and largest absolute difference of two pixel
// arrays.
func levelDiff(a, b []float32) (mean, worst float64) {
	for i := range a {
		d := math.Abs(float64(a[i] - b[i]))
		mean += d
		worst = math.Max(worst, d)
	}
	return mean / float64(len(a)), worst
}
