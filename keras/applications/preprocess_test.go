package applications

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/internal/kerasvectors"
)

// preprocessFuncs are the families' preprocess_input by Keras' module.
var preprocessFuncs = map[string]func(*tensor.Dense) (*tensor.Dense, error){
	"resnet": ResNetPreprocessInput, "resnet_v2": ResNetV2PreprocessInput, "vgg16": VGG16PreprocessInput,
	"vgg19": VGG19PreprocessInput, "mobilenet": MobileNetPreprocessInput, "mobilenet_v2": MobileNetV2PreprocessInput,
	"mobilenet_v3": MobileNetV3PreprocessInput, "densenet": DenseNetPreprocessInput,
	"efficientnet": EfficientNetPreprocessInput, "efficientnet_v2": EfficientNetV2PreprocessInput,
	"inception_v3": InceptionV3PreprocessInput, "inception_resnet_v2": InceptionResNetV2PreprocessInput,
	"xception": XceptionPreprocessInput, "convnext": ConvNeXtPreprocessInput, "nasnet": NASNetPreprocessInput,
}

// TestPreprocessInputMatchesKeras: every family's preprocess_input on a
// batch of pixels, against Keras' (testdata/keras/preprocess.json).
func TestPreprocessInputMatchesKeras(t *testing.T) {
	type preCase struct {
		Family string
		Input  struct {
			Shape []int
			Data  []float32
		}
		Output []float32
	}
	seen := map[string]bool{}
	for _, c := range kerasvectors.Read[preCase](t, "testdata/keras/preprocess.json") {
		f := preprocessFuncs[c.Family]
		if f == nil {
			t.Errorf("%s: no Go preprocess_input", c.Family)
			continue
		}
		seen[c.Family] = true
		in := tensor.New(tensor.WithShape(c.Input.Shape...), tensor.WithBacking(append([]float32(nil), c.Input.Data...)))
		y, err := f(in)
		if err != nil {
			t.Fatalf("%s: %v", c.Family, err)
		}
		got := y.Data().([]float32)
		for i, want := range c.Output {
			if d := math.Abs(float64(got[i] - want)); d > 1e-5*math.Max(1, math.Abs(float64(want))) {
				t.Errorf("%s: [%d] = %v, Keras %v", c.Family, i, got[i], want)
				break
			}
		}
		for i, v := range in.Data().([]float32) {
			if v != c.Input.Data[i] {
				t.Fatalf("%s: the input was changed", c.Family)
			}
		}
	}
	for fam := range preprocessFuncs {
		if !seen[fam] {
			t.Errorf("%s: no Keras case", fam)
		}
	}
	if _, err := PreprocessInput(tensor.New(tensor.WithShape(1, 2, 2), tensor.WithBacking(make([]float32, 4))), ModeCaffe); err == nil || !strings.Contains(err.Error(), "3 channels") {
		t.Errorf("caffe on 2 channels: err = %v", err)
	}
	if _, err := PreprocessInput(tensor.New(tensor.WithShape(1, 3), tensor.WithBacking(make([]float32, 3))), "keras"); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("unknown mode: err = %v", err)
	}
}

// TestDecodePredictions: the top classes of each row, highest first,
// with ids and names from the class index; Keras' checks of the shape.
func TestDecodePredictions(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("{")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "\"%d\": [\"n%08d\", \"class_%d\"]", i, i, i)
	}
	b.WriteString("}")
	path := filepath.Join(dir, "imagenet_class_index.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p := make([]float32, 2000)
	p[7], p[3], p[999] = 0.5, 0.3, 0.2
	p[1000+42], p[1000+1] = 0.9, 0.1
	got, err := DecodePredictions(tensor.New(tensor.WithShape(2, 1000), tensor.WithBacking(p)), 3, path)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Prediction{
		{{"n00000007", "class_7", 0.5}, {"n00000003", "class_3", 0.3}, {"n00000999", "class_999", 0.2}},
		{{"n00000042", "class_42", 0.9}, {"n00000001", "class_1", 0.1}},
	}
	if len(got) != 2 || len(got[0]) != 3 || len(got[1]) != 3 {
		t.Fatalf("got %v", got)
	}
	for r := range want {
		for i, w := range want[r] {
			if got[r][i] != w {
				t.Errorf("row %d, top %d: %v, want %v", r, i, got[r][i], w)
			}
		}
	}
	// NaN scores rank first (Keras reads NumPy's argsort, which puts NaN
	// last, backwards), and no class is lost to them.
	nan := make([]float32, 1000)
	nan[5], nan[700], nan[9] = float32(math.NaN()), float32(math.NaN()), 0.25
	nan[12] = 0.5
	got, err = DecodePredictions(tensor.New(tensor.WithShape(1, 1000), tensor.WithBacking(nan)), 4, path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range got[0] {
		ids = append(ids, p.ClassID)
	}
	if want := []string{"n00000005", "n00000700", "n00000012", "n00000009"}; !slices.Equal(ids, want) {
		t.Errorf("with NaN scores: top 4 = %v, want %v", ids, want)
	}
	if _, err := DecodePredictions(tensor.New(tensor.WithShape(1, 10), tensor.WithBacking(make([]float32, 10))), 5, path); err == nil || !strings.Contains(err.Error(), "(samples, 1000)") {
		t.Errorf("10 classes: err = %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"0": ["n0", "a"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodePredictions(tensor.New(tensor.WithShape(1, 1000), tensor.WithBacking(make([]float32, 1000))), 5, path); err == nil || !strings.Contains(err.Error(), "no class 1") {
		t.Errorf("short index: err = %v", err)
	}
}
