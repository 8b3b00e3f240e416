package applications

import (
	"fmt"

	"gorgonia.org/tensor"
)

// Preprocessing modes of Keras' imagenet_utils.preprocess_input, for
// channels-last RGB images of pixel values in [0, 255].
const (
	// ModeCaffe turns RGB into BGR and subtracts ImageNet's mean pixel
	// (103.939, 116.779, 123.68 in BGR order), without scaling.
	ModeCaffe = "caffe"
	// ModeTF scales the pixels to [-1, 1].
	ModeTF = "tf"
	// ModeTorch scales the pixels to [0, 1] and normalizes each channel
	// by ImageNet's mean (0.485, 0.456, 0.406) and standard deviation
	// (0.229, 0.224, 0.225).
	ModeTorch = "torch"
)

// PreprocessInput is keras.applications.imagenet_utils.preprocess_input
// for channels-last images (the last axis is the 3 channels, RGB): it
// returns a new float32 tensor, x preprocessed in the given mode
// (ModeCaffe, ModeTF, ModeTorch). x is left as it is.
func PreprocessInput(x *tensor.Dense, mode string) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("applications: PreprocessInput: nil input")
	}
	data, ok := x.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("applications: PreprocessInput: want float32 values, got %T", x.Data())
	}
	shape := x.Shape().Clone()
	out := append([]float32(nil), data...)
	if mode == ModeTF {
		for i, v := range out {
			out[i] = v/127.5 - 1
		}
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
	}
	if len(shape) == 0 || shape[len(shape)-1] != 3 {
		return nil, fmt.Errorf("applications: PreprocessInput: mode %q needs images of 3 channels (RGB) on the last axis, got shape %v", mode, shape)
	}
	switch mode {
	case ModeCaffe:
		mean := [3]float32{103.939, 116.779, 123.68}
		for i := 0; i+2 < len(out); i += 3 {
			r, g, b := out[i], out[i+1], out[i+2]
			out[i], out[i+1], out[i+2] = b-mean[0], g-mean[1], r-mean[2]
		}
	case ModeTorch:
		mean := [3]float32{0.485, 0.456, 0.406}
		std := [3]float32{0.229, 0.224, 0.225}
		for i := range out {
			c := i % 3
			out[i] = (out[i]/255 - mean[c]) / std[c]
		}
	default:
		return nil, fmt.Errorf("applications: PreprocessInput: unknown mode %q (want %q, %q or %q)", mode, ModeCaffe, ModeTF, ModeTorch)
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

// passThrough is the preprocess_input of the models that scale their
// input themselves: a copy of x.
func passThrough(x *tensor.Dense) (*tensor.Dense, error) {
	if x == nil {
		return nil, fmt.Errorf("applications: PreprocessInput: nil input")
	}
	data, ok := x.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("applications: PreprocessInput: want float32 values, got %T", x.Data())
	}
	return tensor.New(tensor.WithShape(x.Shape().Clone()...), tensor.WithBacking(append([]float32(nil), data...))), nil
}

// ResNetPreprocessInput is keras.applications.resnet.preprocess_input
// (and resnet50's): caffe mode.
func ResNetPreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeCaffe)
}

// ResNetV2PreprocessInput is keras.applications.resnet_v2.preprocess_input:
// tf mode.
func ResNetV2PreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeTF)
}

// VGG16PreprocessInput is keras.applications.vgg16.preprocess_input:
// caffe mode.
func VGG16PreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeCaffe)
}

// VGG19PreprocessInput is keras.applications.vgg19.preprocess_input:
// caffe mode.
func VGG19PreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeCaffe)
}

// MobileNetPreprocessInput is keras.applications.mobilenet.preprocess_input:
// tf mode.
func MobileNetPreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeTF)
}

// MobileNetV2PreprocessInput is
// keras.applications.mobilenet_v2.preprocess_input: tf mode.
func MobileNetV2PreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeTF)
}

// MobileNetV3PreprocessInput is
// keras.applications.mobilenet_v3.preprocess_input: the input as it is
// (a copy), since the models rescale their input themselves (unless
// built WithIncludePreprocessing(false), when they take values in
// [-1, 1]).
func MobileNetV3PreprocessInput(x *tensor.Dense) (*tensor.Dense, error) { return passThrough(x) }

// DenseNetPreprocessInput is keras.applications.densenet.preprocess_input:
// torch mode.
func DenseNetPreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeTorch)
}

// EfficientNetPreprocessInput is
// keras.applications.efficientnet.preprocess_input: the input as it is
// (a copy): the models normalize their pixels themselves.
func EfficientNetPreprocessInput(x *tensor.Dense) (*tensor.Dense, error) { return passThrough(x) }

// EfficientNetV2PreprocessInput is
// keras.applications.efficientnet_v2.preprocess_input: the input as it
// is (a copy).
func EfficientNetV2PreprocessInput(x *tensor.Dense) (*tensor.Dense, error) { return passThrough(x) }

// InceptionV3PreprocessInput is
// keras.applications.inception_v3.preprocess_input: tf mode.
func InceptionV3PreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeTF)
}

// InceptionResNetV2PreprocessInput is
// keras.applications.inception_resnet_v2.preprocess_input: tf mode.
func InceptionResNetV2PreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeTF)
}

// XceptionPreprocessInput is keras.applications.xception.preprocess_input:
// tf mode.
func XceptionPreprocessInput(x *tensor.Dense) (*tensor.Dense, error) {
	return PreprocessInput(x, ModeTF)
}

// ConvNeXtPreprocessInput is keras.applications.convnext.preprocess_input:
// the input as it is (a copy).
func ConvNeXtPreprocessInput(x *tensor.Dense) (*tensor.Dense, error) { return passThrough(x) }

// NASNetPreprocessInput is keras.applications.nasnet.preprocess_input: tf
// mode.
func NASNetPreprocessInput(x *tensor.Dense) (*tensor.Dense, error) { return PreprocessInput(x, ModeTF) }
