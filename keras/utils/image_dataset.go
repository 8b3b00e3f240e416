package utils

import (
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// imageFormats are the file name endings image_dataset_from_directory
// reads (Keras' ALLOWLIST_FORMATS).
var imageFormats = []string{".bmp", ".gif", ".jpeg", ".jpg", ".png"}

// ImageDatasetConfig is image_dataset_from_directory's keyword arguments.
// The zero value is Keras' defaults: labels inferred from the sub-folders
// as int32 class ids, RGB images resized bilinearly to 256x256, batches of
// 32, shuffled.
type ImageDatasetConfig struct {
	// FS, when set, is the file system the directory is read from (an
	// embed.FS, a zip.Reader, fstest.MapFS...); the directory is then a
	// slash-separated path in it ("." is its root). Nil reads the OS's.
	FS fs.FS
	// Labels are Keras' labels given as a list: one integer per image
	// file, in the order of the sorted file paths. Nil infers them from the
	// sub-folders (Keras' "inferred"): the images of the i-th class folder
	// have label i.
	Labels []int
	// NoLabels is Keras' labels=None (or label_mode=None): the dataset
	// yields images only.
	NoLabels bool
	// LabelMode is "int" (the default: int32 class ids, shape (batch,)),
	// "categorical" (float32 one-hot rows, (batch, classes)) or "binary"
	// (float32 0 or 1, (batch, 1); exactly two classes).
	LabelMode string
	// ClassNames chooses the class folders and their order (a subset of
	// the sub-folders); nil takes them all in sorted order.
	ClassNames []string
	// ColorMode is "rgb" (the default, 3 channels), "grayscale" (1) or
	// "rgba" (4).
	ColorMode string
	// BatchSize is the batch size (default 32); NoBatch is Keras'
	// batch_size=None: the dataset yields single images.
	BatchSize int
	NoBatch   bool
	// ImageSize is the (height, width) every image is resized to; the
	// zero value is Keras' (256, 256).
	ImageSize [2]int
	// NoShuffle is Keras' shuffle=False: the files in sorted order. With
	// shuffling (the default) the file list is shuffled once by numpy's
	// RandomState(Seed), as Keras does, so FilePaths is Keras' list, and
	// each pass is shuffled again (tf.data's shuffle of batch*8 elements
	// in Keras; Dataset.Shuffle with the same seed here, whose orders are
	// not TensorFlow's).
	NoShuffle bool
	// Seed seeds the shuffling; nil draws one (Keras' None). Go 1.26
	// writes new(int64(1337)).
	Seed *int64
	// ValidationSplit is the fraction of the files held out, the last
	// ones after shuffling; Subset says which part this call returns,
	// "training" or "validation" (or use ImageDatasetFromDirectoryBoth).
	ValidationSplit float64
	Subset          string
	// Interpolation is "bilinear" (the default: tf.image.resize's, with
	// half-pixel centers and no antialiasing; float32 images) or
	// "nearest" (uint8 images, as TensorFlow keeps the dtype). Keras'
	// other methods are refused with an error.
	Interpolation string
	// FollowLinks enters links to folders below the class folders.
	FollowLinks bool
	// CropToAspectRatio resizes without distortion by first cropping
	// the largest centered window of the target's aspect ratio;
	// PadToAspectRatio by padding with zeros instead. At most one.
	CropToAspectRatio bool
	PadToAspectRatio  bool
	// DataFormat is "channels_last" (the default: (batch, height, width,
	// channels)) or "channels_first".
	DataFormat string
	// Quiet is Keras' verbose=False: no "Found N files belonging to C
	// classes." line. Out receives those lines (default os.Stdout).
	Quiet bool
	Out   io.Writer
}

// imageLoader reads, decodes and resizes images into one tensor.
type imageLoader struct {
	what     string
	fsys     fs.FS
	idx      fileIndex
	channels int
	size     resizeSpec
	first    bool // channels_first
}

func (l *imageLoader) load(pos []int32) (*tensor.Dense, error) {
	h, w, c := l.size.h, l.size.w, l.channels
	per := h * w * c
	var f32 []float32
	var u8 []uint8
	if l.size.interpolation == "nearest" {
		u8 = make([]uint8, len(pos)*per)
	} else {
		f32 = make([]float32, len(pos)*per)
	}
	for i, p := range pos {
		name := l.idx.rel[p]
		data, err := fs.ReadFile(l.fsys, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", l.what, l.idx.paths[p], err)
		}
		img, err := decodeTF(data, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", l.what, l.idx.paths[p], err)
		}
		var dst any
		if u8 != nil {
			dst = u8[i*per : (i+1)*per]
		} else {
			dst = f32[i*per : (i+1)*per]
		}
		if err := l.size.resizeInto(dst, img); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", l.what, l.idx.paths[p], err)
		}
		if l.first {
			if u8 != nil {
				toChannelsFirst(u8[i*per:(i+1)*per], h*w, c)
			} else {
				toChannelsFirst(f32[i*per:(i+1)*per], h*w, c)
			}
		}
	}
	shape := []int{len(pos), h, w, c}
	if l.first {
		shape = []int{len(pos), c, h, w}
	}
	if u8 != nil {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(u8)), nil
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f32)), nil
}

// toChannelsFirst transposes one image of n pixels of c channels in place.
func toChannelsFirst[T any](v []T, n, c int) {
	if c == 1 {
		return
	}
	tmp := slices.Clone(v)
	for i := range n {
		for k := range c {
			v[k*n+i] = tmp[i*c+k]
		}
	}
}

// imageSettings checks the image arguments and returns the channels, the
// resizing and whether the layout is channels-first.
func (c *ImageDatasetConfig) imageSettings(what string) (int, resizeSpec, bool, error) {
	channels := 0
	switch c.ColorMode {
	case "", "rgb":
		channels = 3
	case "rgba":
		channels = 4
	case "grayscale":
		channels = 1
	default:
		return 0, resizeSpec{}, false, fmt.Errorf("%s: ColorMode %q, want \"rgb\", \"rgba\" or \"grayscale\"", what, c.ColorMode)
	}
	size := c.ImageSize
	if size == [2]int{} {
		size = [2]int{256, 256}
	}
	if size[0] <= 0 || size[1] <= 0 || size[0] > MaxImagePixels/size[1] {
		return 0, resizeSpec{}, false, fmt.Errorf("%s: ImageSize %v, want two positive sizes", what, size)
	}
	interp := c.Interpolation
	switch interp {
	case "":
		interp = "bilinear"
	case "bilinear", "nearest":
	case "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic":
		return 0, resizeSpec{}, false, fmt.Errorf("%s: Interpolation %q is Keras' but not implemented here; use \"bilinear\" or \"nearest\"", what, interp)
	default:
		return 0, resizeSpec{}, false, fmt.Errorf("%s: Interpolation %q, want \"bilinear\" or \"nearest\"", what, interp)
	}
	if c.CropToAspectRatio && c.PadToAspectRatio {
		return 0, resizeSpec{}, false, fmt.Errorf("%s: only one of CropToAspectRatio and PadToAspectRatio can be set", what)
	}
	first := false
	switch c.DataFormat {
	case "", "channels_last":
	case "channels_first":
		first = true
	default:
		return 0, resizeSpec{}, false, fmt.Errorf("%s: DataFormat %q, want \"channels_last\" or \"channels_first\"", what, c.DataFormat)
	}
	return channels, resizeSpec{h: size[0], w: size[1], interpolation: interp, crop: c.CropToAspectRatio, pad: c.PadToAspectRatio}, first, nil
}

// ImageDatasetFromDirectory is keras.utils.image_dataset_from_directory:
// a dataset of the JPEG, PNG, GIF and BMP images below directory, in
// batches of (images, labels) that model.Fit takes as they come. With the
// labels inferred (the default) directory holds one sub-folder per class:
//
//	main_directory/
//	    class_a/
//	        a_image_1.jpg
//	    class_b/
//	        b_image_1.png
//
// and the images of class_a have label 0, those of class_b label 1. The
// result's ClassNames gives the class names (Keras' ds.class_names) and
// FilePaths the files (Keras' ds.file_paths); the settings are in
// [ImageDatasetConfig]. In Python and in Go:
//
//	train_ds = keras.utils.image_dataset_from_directory(
//	    "flower_photos", validation_split=0.2, subset="training", seed=123,
//	    image_size=(180, 180), batch_size=32)
//
//	trainDS, err := utils.ImageDatasetFromDirectory("flower_photos", utils.ImageDatasetConfig{
//	    ValidationSplit: 0.2, Subset: "training", Seed: new(int64(123)),
//	    ImageSize: [2]int{180, 180}, BatchSize: 32})
//
// Images are decoded and resized as TensorFlow does for Keras (libpng's
// and libjpeg's color conversions, TensorFlow's BMP and GIF readers,
// tf.image.resize without antialiasing): PNG, GIF and BMP pixels are
// TensorFlow's exactly, JPEG ones within a few levels (Go's inverse DCT is
// not libjpeg's fast one). As in TensorFlow, a GIF or BMP cannot be read
// in grayscale, nor a GIF or JPEG in rgba; the pass then fails naming the
// file. The
// folder is listed at once (an error names what is wrong with it); images
// are read as batches are drawn, each batch on one of GOMAXPROCS
// goroutines, and a file that cannot be read or decoded ends the pass with
// an error naming it.
func ImageDatasetFromDirectory(directory string, cfg ImageDatasetConfig) (*datasets.Dataset, error) {
	ds, _, err := imageDatasetFromDirectory("utils: ImageDatasetFromDirectory", directory, cfg, false)
	return ds, err
}

// ImageDatasetFromDirectoryBoth is [ImageDatasetFromDirectory] with Keras'
// subset="both": the training and validation datasets of one split (the
// first 1-ValidationSplit and the last ValidationSplit of the shuffled
// files), from one listing of the folder. cfg.Subset must be "" or "both".
// Only the training dataset is shuffled at each pass, as in Keras.
func ImageDatasetFromDirectoryBoth(directory string, cfg ImageDatasetConfig) (train, validation *datasets.Dataset, err error) {
	return imageDatasetFromDirectory("utils: ImageDatasetFromDirectoryBoth", directory, cfg, true)
}

func imageDatasetFromDirectory(what, directory string, cfg ImageDatasetConfig, both bool) (*datasets.Dataset, *datasets.Dataset, error) {
	channels, size, first, err := cfg.imageSettings(what)
	if err != nil {
		return nil, nil, err
	}
	s, err := newFolderSpec(what, directory, folderArgs{cfg.FS, cfg.Labels, cfg.NoLabels, cfg.LabelMode, cfg.ClassNames, cfg.BatchSize,
		cfg.NoBatch, cfg.NoShuffle, cfg.Seed, cfg.ValidationSplit, cfg.Subset, cfg.FollowLinks, cfg.Quiet, cfg.Out}, "images", imageFormats, both)
	if err != nil {
		return nil, nil, err
	}
	return s.build(both, func(sub fileIndex) func([]int32) (*tensor.Dense, error) {
		l := &imageLoader{what: what, fsys: s.index.fsys, idx: sub, channels: channels, size: size, first: first}
		return l.load
	})
}
