package utils_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
)

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An fs.FS serves as well as the OS's folders: the same files (as paths
// in the FS), the same pixels.
func TestImageDatasetFromFS(t *testing.T) {
	fsys := fstest.MapFS{
		"data/cat/1.png": {Data: readFile(t, imagesDir+"/a/rgb.png")},
		"data/cat/2.bmp": {Data: readFile(t, imagesDir+"/b/rgb24.bmp")},
		"data/dog/3.png": {Data: readFile(t, imagesDir+"/a/gray.png")},
		"data/.git/x":    {Data: []byte("hidden")},
	}
	cfg := utils.ImageDatasetConfig{FS: fsys, NoShuffle: true, ImageSize: [2]int{5, 6}, Quiet: true}
	ds, err := utils.ImageDatasetFromDirectory("data", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.FilePaths(); !slices.Equal(got, []string{"data/cat/1.png", "data/cat/2.bmp", "data/dog/3.png"}) {
		t.Errorf("paths %q", got)
	}
	if got := ds.ClassNames(); !slices.Equal(got, []string{"cat", "dog"}) {
		t.Errorf("classes %q", got)
	}
	e := firstElement(t, ds)
	onDisk, err := utils.ImageDatasetFromDirectory(imagesDir, utils.ImageDatasetConfig{NoShuffle: true, ImageSize: [2]int{5, 6}, Quiet: true, ClassNames: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := floats(t, firstElement(t, onDisk)[0])
	per := 5 * 6 * 3
	i := slices.Index(onDisk.FilePaths(), imagesDir+"/a/rgb.png")
	if got := floats(t, e[0])[:per]; !slices.Equal(got, want[i*per:(i+1)*per]) {
		t.Error("the FS's image differs from the same file on disk")
	}
}

// With FollowLinks, links to folders below a class folder are entered;
// without, they are skipped as Python's os.walk skips them; links to
// files count either way, and a class folder may itself be a link.
func TestImageDatasetFollowLinks(t *testing.T) {
	dir := t.TempDir()
	elsewhere := t.TempDir()
	png := readFile(t, imagesDir+"/a/rgb.png")
	for _, p := range []string{"real/cls/a.png", "extra/b.png"} {
		os.MkdirAll(filepath.Dir(filepath.Join(elsewhere, p)), 0o755)
		os.WriteFile(filepath.Join(elsewhere, p), png, 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "one"), 0o755)
	os.WriteFile(filepath.Join(dir, "one", "c.png"), png, 0o644)
	must := func(err error) {
		if err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	must(os.Symlink(filepath.Join(elsewhere, "real", "cls"), filepath.Join(dir, "two")))
	must(os.Symlink(filepath.Join(elsewhere, "extra"), filepath.Join(dir, "one", "linked")))
	must(os.Symlink(filepath.Join(elsewhere, "extra", "b.png"), filepath.Join(dir, "one", "file.png")))
	for follow, want := range map[bool][]string{
		false: {"one/c.png", "one/file.png", "two/a.png"},
		true:  {"one/c.png", "one/file.png", "one/linked/b.png", "two/a.png"},
	} {
		ds, err := utils.ImageDatasetFromDirectory(dir, utils.ImageDatasetConfig{NoShuffle: true, FollowLinks: follow, Quiet: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := relPaths(t, ds, dir); !slices.Equal(got, want) {
			t.Errorf("follow %v: %q, want %q", follow, got, want)
		}
	}
	// A link to a parent loops; the walk stops with an error.
	must(os.Symlink(dir, filepath.Join(dir, "one", "loop")))
	if _, err := utils.ImageDatasetFromDirectory(dir, utils.ImageDatasetConfig{NoShuffle: true, FollowLinks: true, Quiet: true}); err == nil || !strings.Contains(err.Error(), "levels of folders") {
		t.Errorf("loop: %v", err)
	}
}

// channels_first is the transpose of channels_last.
func TestImageDatasetChannelsFirst(t *testing.T) {
	cfg := utils.ImageDatasetConfig{NoShuffle: true, ImageSize: [2]int{5, 6}, Quiet: true, ClassNames: []string{"a"}}
	last, _ := utils.ImageDatasetFromDirectory(imagesDir, cfg)
	cfg.DataFormat = "channels_first"
	first, err := utils.ImageDatasetFromDirectory(imagesDir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, f := firstElement(t, last)[0], firstElement(t, first)[0]
	if got := []int(f.Shape()); !slices.Equal(got, []int{l.Shape()[0], 3, 5, 6}) {
		t.Fatalf("shape %v", got)
	}
	lv, fv := floats(t, l), floats(t, f)
	for n := range l.Shape()[0] {
		for y := range 5 {
			for x := range 6 {
				for c := range 3 {
					if lv[((n*5+y)*6+x)*3+c] != fv[((n*3+c)*5+y)*6+x] {
						t.Fatalf("image %d (%d,%d,%d) differs", n, y, x, c)
					}
				}
			}
		}
	}
}

// Wrong settings and folders are errors that name the setting or the file.
func TestImageDatasetErrors(t *testing.T) {
	seed := new(int64(1))
	for _, c := range []struct {
		dir  string
		cfg  utils.ImageDatasetConfig
		want string
	}{
		{imagesDir + "/missing", utils.ImageDatasetConfig{}, "missing"},
		{imagesDir, utils.ImageDatasetConfig{ColorMode: "cmyk"}, `ColorMode "cmyk"`},
		{imagesDir, utils.ImageDatasetConfig{LabelMode: "sparse"}, `LabelMode "sparse"`},
		{imagesDir, utils.ImageDatasetConfig{Interpolation: "bicubic"}, `"bicubic" is Keras' but not implemented`},
		{imagesDir, utils.ImageDatasetConfig{CropToAspectRatio: true, PadToAspectRatio: true}, "only one of"},
		{imagesDir, utils.ImageDatasetConfig{LabelMode: "binary"}, "exactly 2 classes, have 3"},
		{imagesDir, utils.ImageDatasetConfig{ValidationSplit: 0.2, Subset: "training"}, "give a Seed"},
		{imagesDir, utils.ImageDatasetConfig{ValidationSplit: 0.2}, "go together"},
		{imagesDir, utils.ImageDatasetConfig{ValidationSplit: 1.5, Subset: "training", Seed: seed}, "between 0 and 1"},
		{imagesDir, utils.ImageDatasetConfig{ValidationSplit: 0.2, Subset: "both", Seed: seed}, "Both variant"},
		{imagesDir, utils.ImageDatasetConfig{ValidationSplit: 0.01, Subset: "validation", Seed: seed}, "is 0 files"},
		{imagesDir, utils.ImageDatasetConfig{ClassNames: []string{"a", "zebra"}}, `"zebra" is not one`},
		{imagesDir, utils.ImageDatasetConfig{Labels: []int{1, 2}}, "2 Labels but 17 files"},
		{imagesDir, utils.ImageDatasetConfig{Labels: []int{1}, ClassNames: []string{"a"}}, "ClassNames"},
		{imagesDir, utils.ImageDatasetConfig{ImageSize: [2]int{-1, 3}}, "ImageSize"},
		{imagesDir, utils.ImageDatasetConfig{BatchSize: -2}, "BatchSize -2"},
		{imagesDir, utils.ImageDatasetConfig{DataFormat: "nhwc"}, `DataFormat "nhwc"`},
		{textsDir, utils.ImageDatasetConfig{}, "no images in"},
	} {
		c.cfg.Quiet = true
		_, err := utils.ImageDatasetFromDirectory(c.dir, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "utils: ImageDatasetFromDirectory") {
			t.Errorf("%+v: %v, want an error with %q", c.cfg, err, c.want)
		}
	}
}

// A file that TensorFlow would not decode in the color mode ends the pass
// with an error naming it: a GIF in grayscale, as TensorFlow refuses.
func TestImageDatasetBadFileEndsThePass(t *testing.T) {
	ds, err := utils.ImageDatasetFromDirectory(imagesDir, utils.ImageDatasetConfig{ColorMode: "grayscale", NoShuffle: true, Quiet: true, ClassNames: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	it := ds.Iterate(context.Background())
	defer it.Close()
	for _, ok := it.Next(); ok; _, ok = it.Next() {
	}
	if err := it.Err(); err == nil || !strings.Contains(err.Error(), "frame.gif") || !errors.Is(err, utils.ErrImageFormat) {
		t.Errorf("%v, want an ErrImageFormat naming frame.gif", err)
	}
}

// The counts print as Keras prints them.
func TestImageDatasetPrintsCounts(t *testing.T) {
	var out strings.Builder
	_, _, err := utils.ImageDatasetFromDirectoryBoth(imagesDir, utils.ImageDatasetConfig{ValidationSplit: 0.25, Seed: new(int64(3)), Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	want := "Found 16 files belonging to 3 classes.\nUsing 12 files for training.\nUsing 4 files for validation.\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// Shuffling reorders each pass (Keras' per-epoch tf.data shuffle) but
// keeps every file once; the same seed gives the same passes.
func TestImageDatasetShufflesEachPass(t *testing.T) {
	cfg := utils.ImageDatasetConfig{Seed: new(int64(9)), Quiet: true, ImageSize: [2]int{2, 2}, NoBatch: true, Labels: make([]int, 17), LabelMode: "int"}
	for i := range cfg.Labels {
		cfg.Labels[i] = i
	}
	order := func() [][]float64 {
		ds, err := utils.ImageDatasetFromDirectory(imagesDir, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var passes [][]float64
		for range 2 {
			var labels []float64
			for e := range ds.All(context.Background()) {
				labels = append(labels, floats(t, e[1])...)
			}
			passes = append(passes, labels)
		}
		return passes
	}
	a, b := order(), order()
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave other orders")
	}
	if slices.Equal(a[0], a[1]) {
		t.Error("two passes in the same order")
	}
	s := slices.Clone(a[0])
	slices.Sort(s)
	for i, v := range s {
		if v != float64(i) {
			t.Fatalf("pass holds %v", a[0])
		}
	}
}

// model.Fit takes the dataset as it comes, as Keras' fit does.
func TestImageDatasetFeedsFit(t *testing.T) {
	ds, err := utils.ImageDatasetFromDirectory(imagesDir, utils.ImageDatasetConfig{Seed: new(int64(1)), ImageSize: [2]int{5, 6}, BatchSize: 8, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	layers.ClearSession()
	layers.SetRandomSeed(1)
	in := layers.Input([]int{5, 6, 3})
	h := layers.Apply(layers.NewRescaling(1.0/255), in)
	h = layers.Apply(layers.NewFlatten(), h)
	out := layers.Apply(layers.NewDense(len(ds.ClassNames()), layers.WithActivation("softmax")), h)
	model, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	if err := model.Compile(keras.CompileConfig{Optimizer: "adam", Loss: "sparse_categorical_crossentropy", Metrics: []any{"accuracy"}}); err != nil {
		t.Fatal(err)
	}
	hist, err := model.Fit(ds, nil, keras.FitConfig{Epochs: 2, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if l := hist.History["loss"]; len(l) != 2 || math.IsNaN(l[1]) || l[1] >= l[0] {
		t.Errorf("loss %v, want two decreasing values", l)
	}
}
