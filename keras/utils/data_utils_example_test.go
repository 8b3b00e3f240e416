package utils_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// keras.utils.image_dataset_from_directory over a folder with one
// sub-folder per class.
func ExampleImageDatasetFromDirectory() {
	ds, err := utils.ImageDatasetFromDirectory("testdata/data_utils/images", utils.ImageDatasetConfig{
		ImageSize: [2]int{64, 64}, BatchSize: 8, Seed: new(int64(123)), Quiet: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.ClassNames(), len(ds.FilePaths()), "files,", ds.Cardinality(), "batches")
	it := ds.Iterate(context.Background())
	defer it.Close()
	batch, _ := it.Next()
	fmt.Println(batch[0].Shape(), batch[0].Dtype(), batch[1].Shape(), batch[1].Dtype())
	// Output:
	// [a b c] 16 files, 2 batches
	// (8, 64, 64, 3) float32 (8) int32
}

// subset="both": the training and validation datasets of one split.
func ExampleImageDatasetFromDirectoryBoth() {
	train, val, err := utils.ImageDatasetFromDirectoryBoth("testdata/data_utils/images", utils.ImageDatasetConfig{
		ValidationSplit: 0.25, Seed: new(int64(1337)), ImageSize: [2]int{32, 32}, Quiet: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(train.FilePaths()), "training files,", len(val.FilePaths()), "validation files")
	// Output: 12 training files, 4 validation files
}

// keras.utils.text_dataset_from_directory: batches of strings and labels.
func ExampleTextDatasetFromDirectory() {
	ds, err := utils.TextDatasetFromDirectory("testdata/data_utils/texts", utils.TextDatasetConfig{NoShuffle: true, BatchSize: 2, Quiet: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	it := ds.Iterate(context.Background())
	defer it.Close()
	batch, _ := it.Next()
	fmt.Printf("%v %q %v\n", ds.ClassNames(), batch[0].Data(), batch[1].Data())
	// Output: [neg pos] ["bad film, dull.\n" "Worst ever"] [0 0]
}

func ExampleTextDatasetFromDirectoryBoth() {
	train, val, err := utils.TextDatasetFromDirectoryBoth("testdata/data_utils/texts", utils.TextDatasetConfig{
		ValidationSplit: 0.5, Seed: new(int64(42)), Quiet: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(train.FilePaths()), len(val.FilePaths()))
	// Output: 3 3
}

// Windows of 3 steps predicting the value at their first step, as
// keras.utils.timeseries_dataset_from_array(data, targets, 3, batch_size=2).
func ExampleTimeseriesDatasetFromArray() {
	data := tensor.New(tensor.WithShape(6, 1), tensor.WithBacking([]float32{0, 1, 2, 3, 4, 5}))
	targets := tensor.New(tensor.WithShape(6), tensor.WithBacking([]float32{10, 11, 12, 13, 14, 15}))
	ds, err := utils.TimeseriesDatasetFromArray(data, targets, 3, utils.TimeseriesConfig{BatchSize: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for batch := range ds.All(context.Background()) {
		fmt.Println(batch[0].Shape(), batch[0].Data(), batch[1].Data())
	}
	// Output:
	// (2, 3, 1) [0 1 2 1 2 3] [10 11]
	// (2, 3, 1) [2 3 4 3 4 5] [12 13]
}

// keras.utils.load_img then img_to_array, resized as PIL resizes.
func ExampleLoadImg() {
	img, err := utils.LoadImg("testdata/data_utils/images/a/rgb.png", utils.LoadImgConfig{TargetSize: [2]int{4, 6}, Interpolation: "bilinear"})
	if err != nil {
		fmt.Println(err)
		return
	}
	x, _ := utils.ImgToArray(img)
	fmt.Printf("%T %v %v\n", img, img.Bounds().Size(), x.Shape())
	// Output: *image.RGBA (6,4) (4, 6, 3)
}

func ExampleImgToArray() {
	img, _ := utils.LoadImg("testdata/data_utils/images/a/gray.png", utils.LoadImgConfig{ColorMode: "grayscale"})
	x, err := utils.ImgToArray(img, "channels_first")
	fmt.Println(x.Shape(), err)
	// Output: (1, 7, 5) <nil>
}

// keras.utils.array_to_img scales the values to 0..255 by default.
func ExampleArrayToImg() {
	x := tensor.New(tensor.WithShape(1, 3, 1), tensor.WithBacking([]float32{-1, 0, 1}))
	img, _ := utils.ArrayToImg(x, utils.ArrayToImgConfig{})
	a, _ := utils.ImgToArray(img)
	fmt.Printf("%T %v\n", img, a.Data())
	// Output: *image.Gray [0 127 255]
}

func ExampleSaveImg() {
	dir, _ := os.MkdirTemp("", "saveimg")
	defer os.RemoveAll(dir)
	x := tensor.New(tensor.WithShape(2, 2, 3), tensor.WithBacking([]float32{0, 64, 128, 255, 255, 255, 10, 20, 30, 40, 50, 60}))
	p := filepath.Join(dir, "img.png")
	if err := utils.SaveImg(p, x, utils.SaveImgConfig{NoScale: true}); err != nil {
		fmt.Println(err)
		return
	}
	img, _ := utils.LoadImg(p, utils.LoadImgConfig{})
	a, _ := utils.ImgToArray(img)
	fmt.Println(a.Data())
	// Output: [0 64 128 255 255 255 10 20 30 40 50 60]
}

// keras.utils.get_file from a server (here a local one); the second call
// finds the file in the cache.
func ExampleGetFile() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "a,b\n1,2\n") }))
	defer srv.Close()
	cache, _ := os.MkdirTemp("", "keras")
	defer os.RemoveAll(cache)
	cfg := utils.GetFileConfig{CacheDir: cache, Quiet: true}
	for range 2 {
		p, err := utils.GetFile("data.csv", srv.URL+"/data.csv", cfg)
		if err != nil {
			fmt.Println(err)
			return
		}
		rel, _ := filepath.Rel(cache, p)
		fmt.Println(rel)
	}
	// Output:
	// datasets/data.csv
	// datasets/data.csv
}

// GetFileContext stops the download when the context ends.
func ExampleGetFileContext() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cache, _ := os.MkdirTemp("", "keras")
	defer os.RemoveAll(cache)
	_, err := utils.GetFileContext(ctx, "f", "http://127.0.0.1:1/f", utils.GetFileConfig{CacheDir: cache, Quiet: true})
	fmt.Println(err != nil)
	// Output: true
}
