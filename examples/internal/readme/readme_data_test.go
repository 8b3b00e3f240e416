package readme

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// readmeImageDataset is the Go side of the README's side by side of
// image_dataset_from_directory ("## Data"): TestREADMEImageDataset checks
// that its body is the README's Go block, line for line, and runs it.
func readmeImageDataset(model *keras.Model) (*keras.History, error) {
	trainDS, valDS, err := utils.ImageDatasetFromDirectoryBoth("PetImages", utils.ImageDatasetConfig{
		ValidationSplit: 0.2, Seed: new(int64(1337)), ImageSize: [2]int{180, 180}, BatchSize: 128})
	fmt.Println(trainDS.ClassNames())
	resize := func(x, y *tensor.Dense) (*tensor.Dense, *tensor.Dense, error) {
		x, err := datasets.Resize(x, 150, 150)
		return x, y, err
	}
	trainDS, valDS = trainDS.MapPairs(resize), valDS.MapPairs(resize)
	history, err := model.Fit(trainDS, nil, keras.FitConfig{Epochs: 25, ValidationData: valDS})
	return history, err
}

// TestREADMEImageDataset keeps the README's Go block of
// image_dataset_from_directory true: it is readmeImageDataset's body (so
// it compiles), and it runs on a small PetImages folder (two classes of
// ten 24x20 PNGs) to a model trained 25 epochs on 150x150 images whose
// loss falls.
func TestREADMEImageDataset(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_data_test.go")
	if err != nil {
		t.Fatal(err)
	}
	want := goBlockAfter(t, string(readme), "keras.utils.image_dataset_from_directory(")
	body := funcBody(t, string(src), "func readmeImageDataset(")
	if !strings.HasPrefix(body, want) || strings.TrimSpace(strings.TrimPrefix(body, want)) != "return history, err" {
		t.Fatalf("README's Go block:\n%s\nis not readmeImageDataset's body:\n%s", want, body)
	}

	dir := t.TempDir()
	for c, class := range []string{"Cat", "Dog"} {
		if err := os.MkdirAll(filepath.Join(dir, "PetImages", class), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			img := image.NewRGBA(image.Rect(0, 0, 20, 24))
			for p := range img.Pix {
				img.Pix[p] = uint8(40 + 150*c + (p*7+i*13)%50)
			}
			img.Set(0, 0, color.RGBA{A: 255})
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "PetImages", class, fmt.Sprintf("%d.png", i)), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Chdir(dir)
	in := layers.Input([]int{150, 150, 3})
	x := layers.Apply(layers.NewRescaling(1.0/255), in)
	x = layers.Apply(layers.NewGlobalAveragePooling2D(), x)
	out := layers.Apply(layers.NewDense(1, layers.WithActivation("sigmoid")), x)
	model, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	if err := model.Compile(keras.CompileConfig{Optimizer: "adam", Loss: "binary_crossentropy", Metrics: []any{"accuracy"}}); err != nil {
		t.Fatal(err)
	}
	history, err := readmeImageDataset(model)
	if err != nil {
		t.Fatal(err)
	}
	loss := history.History["loss"]
	if len(loss) != 25 || len(history.History["val_loss"]) != 25 {
		t.Fatalf("history %v", history.History)
	}
	if !(loss[24] < loss[0]) {
		t.Errorf("the training loss did not fall: %v", loss)
	}
}

// goBlockAfter is the first ```go block of the README after marker.
func goBlockAfter(t *testing.T, readme, marker string) string {
	t.Helper()
	i := strings.Index(readme, marker)
	if i < 0 {
		t.Fatalf("the README has no %q", marker)
	}
	rest := readme[i:]
	j := strings.Index(rest, "```go\n")
	if j < 0 {
		t.Fatalf("no Go block after %q", marker)
	}
	rest = rest[j+len("```go\n"):]
	k := strings.Index(rest, "```")
	if k < 0 {
		t.Fatal("an unclosed Go block")
	}
	return rest[:k]
}

// funcBody is the body of the function that starts with decl in src,
// each line with its first tab removed.
func funcBody(t *testing.T, src, decl string) string {
	t.Helper()
	i := strings.Index(src, decl)
	if i < 0 {
		t.Fatalf("no %q", decl)
	}
	rest := src[i:]
	rest = rest[strings.Index(rest, "{\n")+2:]
	rest = rest[:strings.Index(rest, "\n}\n")+1]
	var b strings.Builder
	for _, line := range strings.SplitAfter(rest, "\n") {
		b.WriteString(strings.TrimPrefix(line, "\t"))
	}
	return b.String()
}
