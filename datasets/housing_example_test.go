package datasets_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// keras.datasets.boston_housing.load_data(), here from a small file in
// Keras' format (the real one has 506 houses).
func ExampleLoadBostonHousing() {
	train, test, err := datasets.LoadBostonHousing(datasets.Dir("testdata/housing"), datasets.NoDownload())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(train.X.Shape(), train.Y.Shape(), test.X.Shape(), train.X.Dtype())
	// Output: (29, 13) (29) (8, 13) float64
}

// version="small" keeps the first 600 districts.
func ExampleLoadCaliforniaHousing() {
	train, test, err := datasets.LoadCaliforniaHousing(datasets.Dir("testdata/housing"), datasets.NoDownload(),
		datasets.Version("small"), datasets.TestSplit(0.25))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(train.X.Shape(), test.X.Shape())
	// Output: (450, 2) (150, 2)
}

func ExampleVersion() {
	_, _, err := datasets.LoadCaliforniaHousing(datasets.Version("tiny"))
	fmt.Println(err)
	// Output: datasets: california_housing: version "tiny", want "small" or "large"
}

// np.random.RandomState(1337).shuffle(x) on 5 items.
func ExampleRandomStatePermutation() {
	perm, _ := datasets.RandomStatePermutation(1337, 5)
	fmt.Println(perm)
	// Output: [3 2 1 0 4]
}

func ExampleDownloadFile() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "abc") }))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "download")
	defer os.RemoveAll(dir)
	dst := filepath.Join(dir, "f.txt")
	err := datasets.DownloadFile(context.Background(), srv.URL+"/f.txt", dst, datasets.DownloadConfig{
		Hash: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"})
	b, _ := os.ReadFile(dst)
	fmt.Println(string(b), err)
	// Output: abc <nil>
}

func ExampleHashFile() {
	dir, _ := os.MkdirTemp("", "hash")
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("abc"), 0o644)
	h, _ := datasets.HashFile(p, "md5")
	fmt.Println(h)
	// Output: 900150983cd24fb0d6963f7d28e17f72
}

// Keras' "auto": SHA-256 for a 64-digit digest, MD5 otherwise.
func ExampleHashAlgorithm() {
	a, _ := datasets.HashAlgorithm("auto", "900150983cd24fb0d6963f7d28e17f72")
	fmt.Println(a)
	// Output: md5
}

// The folder loaders of keras/utils set class names and file paths; a
// transformation drops them, as tf.data's do.
func ExampleDataset_WithAttributes() {
	ds, _ := datasets.FromTensorSlices(tensor.New(tensor.WithShape(2), tensor.WithBacking([]int32{0, 1})))
	ds = ds.WithAttributes([]string{"cat", "dog"}, []string{"cat/1.png", "dog/2.png"})
	fmt.Println(ds.ClassNames(), ds.FilePaths(), ds.Batch(2).ClassNames())
	// Output: [cat dog] [cat/1.png dog/2.png] []
}

// Keras' ds.class_names: nil for a dataset not made from a folder.
func ExampleDataset_ClassNames() {
	ds := datasets.Range(3)
	fmt.Println(ds.ClassNames() == nil, ds.WithAttributes([]string{"a", "b"}, nil).ClassNames())
	// Output: true [a b]
}

// Keras' ds.file_paths.
func ExampleDataset_FilePaths() {
	ds := datasets.Range(1).WithAttributes(nil, []string{"photos/cat/1.jpg"})
	fmt.Println(ds.FilePaths())
	// Output: [photos/cat/1.jpg]
}
