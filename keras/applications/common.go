package applications

import (
	"fmt"
	"strconv"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
)

// getFile finds (or downloads) a file in Keras' cache: utils.GetFile,
// which the tests replace to check the names asked for without a network.
var getFile = utils.GetFile

// weightsFile is the file Keras downloads for weights="imagenet": its
// name in the cache, its URL and its MD5 digest.
type weightsFile struct{ name, url, hash string }

// inputShape is Keras' obtain_input_shape for channels_last: the input
// shape a constructor builds for, from the given one, the
// architecture's default image size and least size, and whether the
// model needs a fixed size (a top; a Flatten for VGG).
func (c *config) inputShape3(ctor string, defaultSize, minSize int, requireFixed bool) ([]int, error) {
	s := c.inputShape
	def := []int{defaultSize, defaultSize, 3}
	if s != nil {
		if len(s) != 3 {
			return nil, fmt.Errorf("applications: %s: input_shape must be (height, width, channels), got %v", ctor, s)
		}
		def[2] = s[2]
		if c.weights == "imagenet" && s[2] != 3 {
			return nil, fmt.Errorf("applications: %s: ImageNet weights take 3 input channels, got input_shape %v", ctor, s)
		}
	}
	if c.weights == "imagenet" && requireFixed {
		if s != nil && (s[0] != def[0] || s[1] != def[1] || s[2] != def[2]) {
			return nil, fmt.Errorf("applications: %s: with the top and ImageNet weights, input_shape must be %v, got %v", ctor, def, s)
		}
		return def, nil
	}
	if s == nil {
		if requireFixed {
			return def, nil
		}
		return []int{layers.None, layers.None, 3}, nil
	}
	for i, d := range s[:2] {
		if d != layers.None && d < minSize {
			return nil, fmt.Errorf("applications: %s: input size must be at least %dx%d, got input_shape %v", ctor, minSize, minSize, s)
		}
		if requireFixed && d == layers.None {
			return nil, fmt.Errorf("applications: %s: with the top, input_shape needs a fixed size, got %v (dimension %d is None)", ctor, s, i)
		}
	}
	if s[2] <= 0 {
		return nil, fmt.Errorf("applications: %s: input_shape %v has no channels", ctor, s)
	}
	return s, nil
}

// input returns the model's input: the given input tensor, or a new
// Input of the shape Keras would build (named as Keras names it,
// "input_layer", "input_layer_1", ...).
func (c *config) input(ctor string, defaultSize, minSize int, requireFixed bool) (*layers.KerasTensor, error) {
	shape, err := c.inputShape3(ctor, defaultSize, minSize, requireFixed)
	if err != nil {
		return nil, err
	}
	if c.inputTensor != nil {
		if err := c.inputTensor.Err(); err != nil {
			return nil, fmt.Errorf("applications: %s: input_tensor: %w", ctor, err)
		}
		if n := c.inputTensor.Node(); n == nil || !n.IsInput {
			return nil, fmt.Errorf("applications: %s: input_tensor must come from layers.Input", ctor)
		}
		return c.inputTensor, nil
	}
	return layers.Input(shape, layers.WithName(layers.UniqueName("input_layer"))), nil
}

// finish makes the model from its input and output and gives it the
// weights asked for; file says which file weights="imagenet" takes (nil:
// the architecture has none for these arguments).
func (c *config) finish(ctor string, in, out *layers.KerasTensor, file func() (weightsFile, error)) (*keras.Model, error) {
	m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out}, keras.ModelName(c.name))
	if err != nil {
		return nil, fmt.Errorf("applications: %s: %w", ctor, err)
	}
	path := c.weights
	switch path {
	case "":
		return m, nil
	case "imagenet":
		if file == nil {
			return nil, fmt.Errorf("applications: %s: Keras has no ImageNet weights for these arguments", ctor)
		}
		f, err := file()
		if err != nil {
			return nil, fmt.Errorf("applications: %s: %w", ctor, err)
		}
		path, err = getFile(f.name, f.url, utils.GetFileConfig{CacheSubdir: "models", FileHash: f.hash})
		if err != nil {
			return nil, fmt.Errorf("applications: %s: ImageNet weights %s (Keras caches them in $KERAS_HOME/models or ~/.keras/models): %w", ctor, f.name, err)
		}
	}
	if err := m.LoadWeights(path); err != nil {
		return nil, fmt.Errorf("applications: %s: %w", ctor, err)
	}
	return m, nil
}

// topFiles returns the weights file of an architecture with one file
// with its top and one without.
func (c *config) topFiles(base, top, topHash, notop, notopHash string) func() (weightsFile, error) {
	return func() (weightsFile, error) {
		if c.includeTop {
			return weightsFile{top, base + top, topHash}, nil
		}
		return weightsFile{notop, base + notop, notopHash}, nil
	}
}

// The layer calls the builders use, each named as Keras names it.

func conv(x *layers.KerasTensor, filters, k int, name string, opts ...layers.Option) *layers.KerasTensor {
	return layers.Apply(layers.NewConv2D(filters, k, append(opts, layers.WithName(name))...), x)
}

func bn(x *layers.KerasTensor, name string, opts ...layers.Option) *layers.KerasTensor {
	return layers.Apply(layers.NewBatchNormalization(append(opts, layers.WithAxis(3), layers.WithName(name))...), x)
}

func activation(x *layers.KerasTensor, act, name string) *layers.KerasTensor {
	return layers.Apply(layers.NewActivation(act, layers.WithName(name)), x)
}

func pad(x *layers.KerasTensor, top, bottom, left, right int, name string) *layers.KerasTensor {
	return layers.Apply(layers.NewZeroPadding2D(top, bottom, left, right, layers.WithName(name)), x)
}

func add(name string, xs ...*layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.NewAdd(layers.WithName(name)), xs...)
}

func concat(name string, xs ...*layers.KerasTensor) *layers.KerasTensor {
	return layers.Apply(layers.NewConcatenate(layers.WithAxis(3), layers.WithName(name)), xs...)
}

func maxPool(x *layers.KerasTensor, size, stride int, name string, opts ...layers.Option) *layers.KerasTensor {
	return layers.Apply(layers.NewMaxPooling2D(append(opts, layers.WithPoolSize(size), layers.WithStrides(stride), layers.WithName(name))...), x)
}

func avgPool(x *layers.KerasTensor, size, stride int, name string, opts ...layers.Option) *layers.KerasTensor {
	return layers.Apply(layers.NewAveragePooling2D(append(opts, layers.WithPoolSize(size), layers.WithStrides(stride), layers.WithName(name))...), x)
}

func globalAvg(x *layers.KerasTensor, name string, opts ...layers.Option) *layers.KerasTensor {
	return layers.Apply(layers.NewGlobalAveragePooling2D(append(opts, layers.WithName(name))...), x)
}

func globalMax(x *layers.KerasTensor, name string) *layers.KerasTensor {
	return layers.Apply(layers.NewGlobalMaxPooling2D(layers.WithName(name)), x)
}

func dense(x *layers.KerasTensor, units int, act, name string) *layers.KerasTensor {
	return layers.Apply(layers.NewDense(units, layers.WithActivation(act), layers.WithName(name)), x)
}

// auto is a layer's default name, as Keras gives it to the layers the
// builders leave unnamed ("max_pooling2d", "max_pooling2d_1", ...).
func auto(base string) string { return layers.UniqueName(base) }

// pool applies the include_top=False pooling, with the names of the
// architecture's pooling layers ("avg_pool", "max_pool" for most).
func (c *config) pool(x *layers.KerasTensor, avgName, maxName string) *layers.KerasTensor {
	switch c.pooling {
	case "avg":
		return globalAvg(x, avgName)
	case "max":
		return globalMax(x, maxName)
	}
	return x
}

func itoa(i int) string { return strconv.Itoa(i) }
