package utils

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// TextDatasetConfig is text_dataset_from_directory's keyword arguments.
// The zero value is Keras' defaults: labels inferred from the sub-folders
// as int32 class ids, whole texts, batches of 32, shuffled. The fields mean
// what those of [ImageDatasetConfig] of the same names mean.
type TextDatasetConfig struct {
	FS         fs.FS
	Labels     []int
	NoLabels   bool
	LabelMode  string // "int" (default), "categorical" or "binary"
	ClassNames []string
	BatchSize  int // default 32
	NoBatch    bool
	// MaxLength keeps the first MaxLength bytes of each text, as Keras'
	// max_length (tf.strings.substr counts bytes); 0 keeps them whole.
	MaxLength       int
	NoShuffle       bool
	Seed            *int64
	ValidationSplit float64
	Subset          string
	FollowLinks     bool
	Quiet           bool
	Out             io.Writer
}

// TextDatasetFromDirectory is keras.utils.text_dataset_from_directory: a
// dataset of the .txt files below directory, in batches of (texts, labels).
// The texts are a string tensor of shape (batch,) (a scalar with NoBatch)
// holding each file's bytes, for a TextVectorization layer's Call, usually
// in a Map:
//
//	raw_train_ds = keras.utils.text_dataset_from_directory(
//	    "aclImdb/train", batch_size=32, validation_split=0.2, subset="training", seed=1337)
//
//	rawTrain, err := utils.TextDatasetFromDirectory("aclImdb/train", utils.TextDatasetConfig{
//	    BatchSize: 32, ValidationSplit: 0.2, Subset: "training", Seed: new(int64(1337))})
//	train := rawTrain.Map(func(e datasets.Element) (datasets.Element, error) {
//	    x, err := vectorizer.Call(e[0].Data().([]string))
//	    return datasets.Element{x, e[1]}, err
//	})
//
// Labels, class folders, file order, shuffling and splits are those of
// [ImageDatasetFromDirectory]; ClassNames on the result is Keras'
// class_names, and FilePaths lists the files as for an image dataset
// (Keras keeps no file_paths on a text dataset).
func TextDatasetFromDirectory(directory string, cfg TextDatasetConfig) (*datasets.Dataset, error) {
	ds, _, err := textDatasetFromDirectory("utils: TextDatasetFromDirectory", directory, cfg, false)
	return ds, err
}

// TextDatasetFromDirectoryBoth is [TextDatasetFromDirectory] with Keras'
// subset="both", as [ImageDatasetFromDirectoryBoth].
func TextDatasetFromDirectoryBoth(directory string, cfg TextDatasetConfig) (train, validation *datasets.Dataset, err error) {
	return textDatasetFromDirectory("utils: TextDatasetFromDirectoryBoth", directory, cfg, true)
}

func textDatasetFromDirectory(what, directory string, cfg TextDatasetConfig, both bool) (*datasets.Dataset, *datasets.Dataset, error) {
	if cfg.MaxLength < 0 {
		return nil, nil, fmt.Errorf("%s: MaxLength %d, want >= 0", what, cfg.MaxLength)
	}
	s, err := newFolderSpec(what, directory, folderArgs{cfg.FS, cfg.Labels, cfg.NoLabels, cfg.LabelMode, cfg.ClassNames, cfg.BatchSize,
		cfg.NoBatch, cfg.NoShuffle, cfg.Seed, cfg.ValidationSplit, cfg.Subset, cfg.FollowLinks, cfg.Quiet, cfg.Out}, "text files", []string{".txt"}, both)
	if err != nil {
		return nil, nil, err
	}
	// Keras sets only class_names on text datasets; FilePaths is set here
	// too, for the same use as an image dataset's.
	return s.build(both, func(sub fileIndex) func([]int32) (*tensor.Dense, error) {
		return func(pos []int32) (*tensor.Dense, error) {
			texts := make([]string, len(pos))
			for i, p := range pos {
				b, err := fs.ReadFile(s.index.fsys, sub.rel[p])
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", what, sub.paths[p], err)
				}
				if cfg.MaxLength > 0 && len(b) > cfg.MaxLength {
					b = b[:cfg.MaxLength]
				}
				texts[i] = string(b)
			}
			return tensor.New(tensor.WithShape(len(texts)), tensor.WithBacking(texts)), nil
		}
	})
}
