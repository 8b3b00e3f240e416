package readme

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/applications"
	"gorgonia.org/tensor"
)

// readmeApplication is the Go side of the README's side by side of
// keras.applications and model.export ("## Keras applications and ONNX
// export"): TestREADMEApplication checks that its body is the README's Go
// block, line for line.
func readmeApplication(images *tensor.Dense) ([][]applications.Prediction, error) {
	model, err := applications.MobileNetV2(applications.WithWeights("imagenet"))
	x, err := applications.MobileNetV2PreprocessInput(images)
	preds, err := model.Predict(x, keras.PredictConfig{})
	top, err := applications.DecodePredictions(preds, 3, "")
	fmt.Println(top[0])
	err = model.Export("mobilenet_v2.onnx", "onnx")
	return top, err
}

// TestREADMEApplication keeps the README's Go block of keras.applications
// true: it is readmeApplication's body (so it compiles). Where Keras'
// cache holds MobileNetV2's ImageNet weights and the class index (a
// machine that ran the Python side once), it runs it: the decoded top 3
// of a batch and an ONNX file. Everywhere else it checks what a user
// without them and without a network gets: an error naming the file and
// Keras' cache folder (the weights themselves, 14 MB, are not in the
// repository, and the tests download nothing).
func TestREADMEApplication(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_applications_test.go")
	if err != nil {
		t.Fatal(err)
	}
	want := goBlockAfter(t, string(readme), `keras.applications.MobileNetV2(weights="imagenet")`)
	body := funcBody(t, string(src), "func readmeApplication(")
	if !strings.HasPrefix(body, want) || strings.TrimSpace(strings.TrimPrefix(body, want)) != "return top, err" {
		t.Fatalf("README's Go block:\n%s\nis not readmeApplication's body:\n%s", want, body)
	}

	r := rand.New(rand.NewPCG(1, 2))
	pixels := make([]float32, 2*224*224*3)
	for i := range pixels {
		pixels[i] = 255 * r.Float32()
	}
	images := tensor.New(tensor.WithShape(2, 224, 224, 3), tensor.WithBacking(pixels))
	home, _ := os.UserHomeDir()
	cached := filepath.Join(home, ".keras", "models")
	if kh := os.Getenv("KERAS_HOME"); kh != "" {
		cached = filepath.Join(kh, "models")
	}
	_, errW := os.Stat(filepath.Join(cached, "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5"))
	_, errI := os.Stat(filepath.Join(cached, "imagenet_class_index.json"))
	if errW == nil && errI == nil {
		t.Chdir(t.TempDir())
		top, err := readmeApplication(images)
		if err != nil {
			t.Fatal(err)
		}
		if len(top) != 2 || len(top[0]) != 3 || !(top[0][0].Score >= top[0][1].Score) || !strings.HasPrefix(top[0][0].ClassID, "n") {
			t.Errorf("decoded %v", top)
		}
		if fi, err := os.Stat("mobilenet_v2.onnx"); err != nil || fi.Size() < 10<<20 {
			t.Errorf("mobilenet_v2.onnx: %v", err)
		}
		return
	}
	// The block's export, of the same architecture with random weights.
	small, err := applications.MobileNetV2(applications.WithWeights(""), applications.WithInputShape(96, 96, 3), applications.WithAlpha(0.35))
	if err != nil {
		t.Fatal(err)
	}
	if err := small.Export(filepath.Join(t.TempDir(), "mobilenet_v2.onnx"), "onnx"); err != nil {
		t.Errorf("MobileNetV2's export: %v", err)
	}
	t.Logf("Keras' cache %s has no MobileNetV2 ImageNet weights or class index: checking the error a user without them gets", cached)
	t.Setenv("KERAS_HOME", t.TempDir())
	// No download: a proxy that refuses at once (the tests reach no
	// network).
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("NO_PROXY", "")
	_, err = applications.MobileNetV2(applications.WithWeights("imagenet"))
	if err == nil || !strings.Contains(err.Error(), "mobilenet_v2_weights_tf_dim_ordering_tf_kernels_1.0_224.h5") ||
		!strings.Contains(err.Error(), "~/.keras/models") {
		t.Errorf("MobileNetV2 without the weights: %v; want an error naming the file and Keras' cache", err)
	}
}
