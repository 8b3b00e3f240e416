// Package utils holds the helpers of keras.utils that Keras programs call
// on their data before training: from arrays (ToCategorical,
// PadSequences, Slice) and from files (datasets from folders, images,
// downloads).
//
// # Overview
//
// [ToCategorical] is keras.utils.to_categorical: integer class ids become
// one-hot float32 rows, for the categorical losses and metrics:
//
//	yTrain, err := utils.ToCategorical(train.Y, 10) // (N,) -> (N, 10)
//
// # Data from files
//
// The data utilities of keras.utils read folders and files as Keras does,
// from the OS or any io/fs file system (the FS fields), and return the
// *datasets.Dataset that model.Fit takes:
//
//   - [ImageDatasetFromDirectory] (image_dataset_from_directory): JPEG,
//     PNG, GIF and BMP images in one sub-folder per class, decoded and
//     resized as TensorFlow does (PNG, GIF and BMP pixels exactly, JPEG
//     within a few levels), labels as int32 ids, one-hot rows or binary
//     values, ClassNames and FilePaths as Keras' class_names and
//     file_paths, validation splits ([ImageDatasetFromDirectoryBoth] for
//     subset="both") and numpy's shuffle of the files for a seed;
//   - [TextDatasetFromDirectory] (text_dataset_from_directory): string
//     tensors of the .txt files, for TextVectorization;
//   - [TimeseriesDatasetFromArray] (timeseries_dataset_from_array): sliding
//     windows over an array and their targets;
//   - [LoadImg], [ImgToArray], [ArrayToImg], [SaveImg] (load_img,
//     img_to_array, array_to_img, save_img), with PIL's conversions and
//     resampling filters, on Go's image.Image;
//   - [GetFile] (get_file): a download into Keras' cache
//     (~/.keras/datasets or $KERAS_HOME/datasets) with its hash checked,
//     written to a temporary file renamed when complete, and an archive
//     extracted (tar, gzip or bzip2, zip) without letting a member or link
//     land outside its folder ([ErrUnsafeArchive]).
//
// In Python and in Go:
//
//	train_ds, val_ds = keras.utils.image_dataset_from_directory(
//	    "flower_photos", validation_split=0.2, subset="both", seed=123,
//	    image_size=(180, 180), batch_size=32)
//	model.fit(train_ds, validation_data=val_ds, epochs=10)
//
//	trainDS, valDS, err := utils.ImageDatasetFromDirectoryBoth("flower_photos", utils.ImageDatasetConfig{
//	    ValidationSplit: 0.2, Seed: new(int64(123)), ImageSize: [2]int{180, 180}, BatchSize: 32})
//	hist, err := model.Fit(trainDS, nil, keras.FitConfig{ValidationData: valDS, Epochs: 10})
//
// Where Keras and TensorFlow shuffle with tf.data (each pass of a
// shuffled dataset), the datasets shuffle with datasets.Dataset.Shuffle:
// the order of the files (FilePaths) is Keras', the order of a pass is not.
// Readers of outside bytes are bounded ([MaxImagePixels], the
// pixels a file of its size can announce, GetFileConfig's MaxBytes and
// MaxExtractBytes) and fuzzed.
//
// # Errors
//
// Labels that are negative, not whole numbers, or not below the number of
// classes are errors naming the index of the first such label, as are
// dtypes that cannot hold class ids. The result is bounded by
// [MaxCategoricalElements] so that one large label cannot make a small
// input allocate gigabytes.
package utils
