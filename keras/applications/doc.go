// Package applications holds Keras' keras.applications models in Go:
// ResNet50, MobileNetV2, EfficientNetB0 and the rest, built with the
// functional API of package layers with Keras' layer names, classes,
// order and weight shapes, so that Keras' own weight files (the ImageNet
// files keras.applications downloads, legacy Keras 2 .h5, and Keras 3
// .weights.h5 files saved from the same architecture) load into them
// with keras.Model.LoadWeights.
//
// # Overview
//
// A constructor takes Keras' keyword arguments as options:
//
//	model = keras.applications.ResNet50(weights=None, include_top=False, pooling="avg", input_shape=(160, 160, 3))
//
//	model, err := applications.ResNet50(applications.WithWeights(""), applications.WithIncludeTop(false),
//		applications.WithPooling("avg"), applications.WithInputShape(160, 160, 3))
//
// The defaults are Keras': the top (a classifier of 1000 ImageNet classes
// with a softmax), and weights "imagenet", the file Keras would download,
// taken from Keras' cache ($KERAS_HOME/models, else ~/.keras/models, where
// Python Keras leaves it) and downloaded there by utils.GetFile when it is
// missing. WithWeights("") is Python's weights=None (the initializers'
// random weights); any other value is the path of a weights file.
//
// Each family has its input preprocessing, Keras' preprocess_input
// ([ResNetPreprocessInput]: caffe mode; [MobileNetV2PreprocessInput]: tf
// mode; [DenseNetPreprocessInput]: torch mode; the models that scale
// their input themselves take the pixels as they are), and
// [DecodePredictions] turns the top's ImageNet probabilities into class
// ids and names from Keras' imagenet_class_index.json.
//
// Unlike a Keras session, the names of layers the architecture leaves
// unnamed ("max_pooling2d", "input_layer") come from package layers'
// counters: call layers.ClearSession before building a model in a
// long-lived process to get the names a fresh Keras process gives. The
// weight files do not depend on them (Keras 3 keys a .weights.h5 by each
// layer's place, a legacy .h5 by the order of the layers with weights).
package applications
