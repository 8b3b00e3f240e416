package datasets

import (
	"fmt"
	"slices"
)

// attributes are what Keras sets on the tf.data.Dataset that
// image_dataset_from_directory and text_dataset_from_directory return.
type attributes struct {
	classNames []string
	filePaths  []string
}

// ClassNames returns the class names of a dataset made from a folder by
// utils.ImageDatasetFromDirectory or utils.TextDatasetFromDirectory, as
// Keras' ds.class_names: the label i names class ClassNames()[i]. It is
// nil for other datasets, and for a transformation of one (Map, Batch,
// Prefetch...), since tf.data's transformations drop the attribute too: read
// it from the dataset the function returned. The slice is a copy.
func (d *Dataset) ClassNames() []string {
	if d == nil || d.attrs == nil {
		return nil
	}
	return slices.Clone(d.attrs.classNames)
}

// FilePaths returns the files of a dataset made from a folder by
// utils.ImageDatasetFromDirectory, in the order the dataset reads them
// before its per-epoch shuffle, as Keras' ds.file_paths. Like
// [Dataset.ClassNames] it is nil for other datasets and for
// transformations of one. The slice is a copy.
func (d *Dataset) FilePaths() []string {
	if d == nil || d.attrs == nil {
		return nil
	}
	return slices.Clone(d.attrs.filePaths)
}

// WithAttributes returns a copy of d that carries Keras' class_names and
// file_paths attributes, for [Dataset.ClassNames] and [Dataset.FilePaths];
// nil slices leave an attribute unset. It is the hook the folder loaders of
// keras/utils use; d itself is unchanged.
func (d *Dataset) WithAttributes(classNames, filePaths []string) *Dataset {
	if d == nil {
		return errDataset(fmt.Errorf("datasets: WithAttributes on a nil *Dataset"))
	}
	c := *d
	c.attrs = &attributes{classNames: slices.Clone(classNames), filePaths: slices.Clone(filePaths)}
	return &c
}
