package utils_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// imageConfig turns the keyword arguments of a Keras call into the Go
// settings.
func imageConfig(t *testing.T, args map[string]any) utils.ImageDatasetConfig {
	t.Helper()
	cfg := utils.ImageDatasetConfig{Quiet: true}
	for k, v := range args {
		switch k {
		case "image_size":
			s := v.([]any)
			cfg.ImageSize = [2]int{int(s[0].(float64)), int(s[1].(float64))}
		case "shuffle":
			cfg.NoShuffle = !v.(bool)
		case "interpolation":
			cfg.Interpolation = v.(string)
		case "crop_to_aspect_ratio":
			cfg.CropToAspectRatio = v.(bool)
		case "pad_to_aspect_ratio":
			cfg.PadToAspectRatio = v.(bool)
		case "label_mode":
			if v == nil {
				cfg.NoLabels = true
			} else {
				cfg.LabelMode = v.(string)
			}
		case "class_names":
			for _, c := range v.([]any) {
				cfg.ClassNames = append(cfg.ClassNames, c.(string))
			}
		case "color_mode":
			cfg.ColorMode = v.(string)
		case "batch_size":
			if v == nil {
				cfg.NoBatch = true
			} else {
				cfg.BatchSize = int(v.(float64))
			}
		case "seed":
			cfg.Seed = new(int64(v.(float64)))
		case "validation_split":
			cfg.ValidationSplit = v.(float64)
		case "subset":
			cfg.Subset = v.(string)
		case "labels":
			for _, l := range v.([]any) {
				cfg.Labels = append(cfg.Labels, int(l.(float64)))
			}
		case "verbose":
		default:
			t.Fatalf("argument %q not handled", k)
		}
	}
	return cfg
}

func relPaths(t *testing.T, ds *datasets.Dataset, dir string) []string {
	t.Helper()
	var out []string
	for _, p := range ds.FilePaths() {
		r, ok := strings.CutPrefix(p, dir+"/")
		if !ok {
			t.Fatalf("file path %q is not in %s", p, dir)
		}
		out = append(out, r)
	}
	return out
}

func firstElement(t *testing.T, ds *datasets.Dataset) datasets.Element {
	t.Helper()
	it := ds.Iterate(context.Background())
	defer it.Close()
	e, ok := it.Next()
	if !ok {
		t.Fatalf("no element: %v", it.Err())
	}
	return e
}

func floats(t *testing.T, x *tensor.Dense) []float64 {
	t.Helper()
	var out []float64
	switch d := x.Data().(type) {
	case []float32:
		for _, v := range d {
			out = append(out, float64(v))
		}
	case []uint8:
		for _, v := range d {
			out = append(out, float64(v))
		}
	case []int32:
		for _, v := range d {
			out = append(out, float64(v))
		}
	case int32:
		out = append(out, float64(d))
	case float32:
		out = append(out, float64(d))
	default:
		t.Fatalf("dtype %v", x.Dtype())
	}
	return out
}

func dtypeName(x *tensor.Dense) string {
	return map[tensor.Dtype]string{tensor.Float32: "float32", tensor.Uint8: "uint8", tensor.Int32: "int32"}[x.Dtype()]
}

// Every case of image_dataset_from_directory: class names, file paths in
// Keras' order (shuffled by numpy's RandomState where a seed is given),
// cardinality, and the first batch of the unshuffled ones, images and
// labels with Keras' shapes and dtypes: exact for PNG, BMP and GIF, within
// jpegTolerance for JPEG.
func TestImageDatasetMatchesKeras(t *testing.T) {
	for _, c := range readVectors(t).Images {
		t.Run(c.Name, func(t *testing.T) {
			cfg := imageConfig(t, c.Args)
			var ds, val *datasets.Dataset
			var err error
			if cfg.Subset == "both" {
				ds, val, err = utils.ImageDatasetFromDirectoryBoth(imagesDir, cfg)
			} else {
				ds, err = utils.ImageDatasetFromDirectory(imagesDir, cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.ClassNames != nil && !reflect.DeepEqual(ds.ClassNames(), c.ClassNames) {
				t.Errorf("class names %q, Keras %q", ds.ClassNames(), c.ClassNames)
			}
			if got := relPaths(t, ds, imagesDir); !reflect.DeepEqual(got, c.FilePaths) {
				t.Errorf("file paths\n%q\nKeras\n%q", got, c.FilePaths)
			}
			if val != nil {
				if got := relPaths(t, val, imagesDir); !reflect.DeepEqual(got, c.ValidationFilePaths) {
					t.Errorf("validation file paths\n%q\nKeras\n%q", got, c.ValidationFilePaths)
				}
			}
			if c.Cardinality != nil && ds.Cardinality() != *c.Cardinality {
				t.Errorf("cardinality %d, Keras %d", ds.Cardinality(), *c.Cardinality)
			}
			if c.X == nil && c.Y == nil {
				return
			}
			e := firstElement(t, ds)
			if c.X != nil {
				x := e[0]
				if !reflect.DeepEqual([]int(x.Shape()), c.XShape) || dtypeName(x) != c.XDtype {
					t.Fatalf("images %v %v, Keras %v %s", x.Shape(), x.Dtype(), c.XShape, c.XDtype)
				}
				compareImages(t, floats(t, x), c.X, c.XShape, c.FilePaths)
			}
			if c.Y != nil {
				y := e[len(e)-1]
				if !reflect.DeepEqual([]int(y.Shape()), c.YShape) || (c.YDtype != "" && dtypeName(y) != c.YDtype) {
					t.Fatalf("labels %v %v, Keras %v %s", y.Shape(), y.Dtype(), c.YShape, c.YDtype)
				}
				if got := floats(t, y); !reflect.DeepEqual(got, c.Y) {
					t.Errorf("labels %v, Keras %v", got, c.Y)
				}
			}
		})
	}
}

// compareImages compares a batch (or one image) image by image.
func compareImages(t *testing.T, got, want []float64, shape []int, paths []string) {
	t.Helper()
	if len(shape) == 3 {
		shape = append([]int{1}, shape...)
	}
	n, per := shape[0], shape[1]*shape[2]*shape[3]
	ch := shape[3]
	for i := range n {
		tol := 0.0
		if isJPEG(paths[i]) {
			tol = jpegTolerance(ch)
		}
		worst, at := 0.0, -1
		for j := range per {
			g, w := got[i*per+j], want[i*per+j]
			if d := math.Abs(g - float64(float32(w))); d > worst {
				worst, at = d, j
			}
		}
		if worst > tol {
			t.Errorf("image %d (%s): differs from Keras by up to %v at sample %d (got %v, Keras %v); tolerance %v",
				i, paths[i], worst, at, got[i*per+at], want[i*per+at], tol)
		} else if tol > 0 && testing.Verbose() {
			fmt.Printf("%s: %s within %v of Keras\n", t.Name(), paths[i], worst)
		}
	}
}
