package keras

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gokeras/gokeras/keras/layers"
)

// LayerFromConfigFunc makes a layer from its config, the map its GetConfig
// returns (numbers may arrive as float64, as decoded from JSON).
type LayerFromConfigFunc func(cfg map[string]any) (layers.Layer, error)

var layerRegistry = struct {
	sync.RWMutex
	m map[string]LayerFromConfigFunc
}{m: map[string]LayerFromConfigFunc{}}

// RegisterLayer makes [LoadModel] able to rebuild layers of class
// className (the layer's ClassName) from their configs, as Keras'
// register_keras_serializable. Registering a class again replaces the
// earlier function. The layers of package layers are registered already.
func RegisterLayer(className string, fromConfig func(cfg map[string]any) (layers.Layer, error)) {
	if className == "" || fromConfig == nil {
		panic("keras: RegisterLayer: empty class name or nil function")
	}
	layerRegistry.Lock()
	defer layerRegistry.Unlock()
	layerRegistry.m[className] = fromConfig
}

// RegisteredLayers lists the class names [LayerFromConfig] knows, sorted.
func RegisteredLayers() []string {
	layerRegistry.RLock()
	defer layerRegistry.RUnlock()
	return sortedKeys(layerRegistry.m)
}

// LayerFromConfig makes a layer of class className from its config through
// the functions given to [RegisterLayer].
func LayerFromConfig(className string, cfg map[string]any) (layers.Layer, error) {
	layerRegistry.RLock()
	f := layerRegistry.m[className]
	layerRegistry.RUnlock()
	if f == nil {
		if why, ok := stringLayers[className]; ok {
			return nil, fmt.Errorf("layer %v (%s): %s", cfg["name"], className, why)
		}
		return nil, fmt.Errorf("unknown layer class %q: register it with keras.RegisterLayer (known: %s)", className, strings.Join(RegisteredLayers(), ", "))
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	l, err := f(cfg)
	if err == nil && l == nil {
		err = fmt.Errorf("the registered function returned no layer")
	}
	if err == nil {
		err = l.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("layer %s %v from config: %w", className, cfg["name"], err)
	}
	return l, nil
}

// cfgReader reads a layer config, keeping the first error.
type cfgReader struct {
	m   map[string]any
	err error
}

func (c *cfgReader) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
	}
}

// present reports whether key is set to something other than null.
func (c *cfgReader) present(key string) bool { return c.m[key] != nil }

func (c *cfgReader) int(key string, def int) int {
	if !c.present(key) {
		return def
	}
	n, ok := toInt(c.m[key])
	if !ok {
		c.fail("%s: want an integer, got %v", key, c.m[key])
	}
	return n
}

func (c *cfgReader) float(key string, def float64) float64 {
	if !c.present(key) {
		return def
	}
	f, ok := toFloat(c.m[key])
	if !ok {
		c.fail("%s: want a number, got %v", key, c.m[key])
	}
	return f
}

func (c *cfgReader) str(key, def string) string {
	if !c.present(key) {
		return def
	}
	s, ok := c.m[key].(string)
	if !ok {
		c.fail("%s: want a string, got %v", key, c.m[key])
	}
	return s
}

func (c *cfgReader) bool(key string, def bool) bool {
	if !c.present(key) {
		return def
	}
	b, ok := c.m[key].(bool)
	if !ok {
		c.fail("%s: want a boolean, got %v", key, c.m[key])
	}
	return b
}

func (c *cfgReader) ints(key string) []int {
	if !c.present(key) {
		return nil
	}
	v, err := toInts(c.m[key])
	if err != nil {
		c.fail("%s: %v", key, err)
	}
	return v
}

// unsupported fails if any of keys is set (to something but null).
func (c *cfgReader) unsupported(keys ...string) {
	for _, k := range keys {
		if c.present(k) {
			c.fail("%s = %v is not supported", k, c.m[k])
		}
	}
}

// common returns the options every layer takes: name, trainable, the
// declared input shape and data_format.
func (c *cfgReader) common() []layers.Option {
	var opts []layers.Option
	if name := c.str("name", ""); name != "" {
		opts = append(opts, layers.WithName(name))
	}
	if !c.bool("trainable", true) {
		opts = append(opts, layers.WithTrainable(false))
	}
	for _, k := range []string{"batch_input_shape", "batch_shape"} {
		if c.present(k) {
			s, err := shapeWithoutBatch(c.m[k])
			if err != nil {
				c.fail("%s: %v", k, err)
			}
			opts = append(opts, layers.WithInputShape(s...))
			break
		}
	}
	if c.present("data_format") {
		opts = append(opts, layers.WithDataFormat(c.str("data_format", "")))
	}
	if c.present("dtype") { // mixed_config.go: Keras 3's DTypePolicy dict or a name
		o, err := dtypeOption(c.m["dtype"])
		if err != nil {
			c.fail("dtype: %v", err)
		} else {
			opts = append(opts, o)
		}
	}
	opts = append(opts, c.activityRegularizer()...) // registry_more_layers_constraints.go
	return opts
}

// activation reads the activation, a name or Keras' serialised form.
func (c *cfgReader) activation() []layers.Option {
	switch a := c.m["activation"].(type) {
	case nil:
		return nil
	case string:
		return []layers.Option{layers.WithActivation(a)}
	case map[string]any:
		if name, ok := a["config"].(string); ok {
			return []layers.Option{layers.WithActivation(name)}
		}
		if name, ok := a["class_name"].(string); ok {
			return []layers.Option{layers.WithActivation(strings.ToLower(name))}
		}
	}
	c.fail("activation: cannot read %v", c.m["activation"])
	return nil
}

// initializer reads an initializer; def is the layer's default class, left
// implicit (nil) when the config names it without arguments, so that the
// rebuilt layer reports the same config.
func (c *cfgReader) initializer(key, def string) layers.Initializer {
	var class string
	var args map[string]any
	switch v := c.m[key].(type) {
	case nil:
		return nil
	case string:
		i, err := layers.GetInitializer(v)
		if err != nil {
			c.fail("%s: %v", key, err)
		}
		return i
	case map[string]any:
		class, args = classAndConfig(v)
		if class == def && len(args) == 0 {
			return nil
		}
	default:
		c.fail("%s: cannot read %v", key, v)
		return nil
	}
	a := &cfgReader{m: args}
	var i layers.Initializer
	switch class {
	case "Zeros":
		i = layers.Zeros()
	case "Ones":
		i = layers.Ones()
	case "Constant":
		i = layers.Constant(float32(a.float("value", 0)))
	case "RandomNormal":
		i = layers.RandomNormal(a.float("mean", 0), a.float("stddev", 0.05))
	case "RandomUniform":
		i = layers.RandomUniform(a.float("minval", -0.05), a.float("maxval", 0.05))
	case "TruncatedNormal":
		i = layers.TruncatedNormal(a.float("mean", 0), a.float("stddev", 0.05))
	case "VarianceScaling":
		var err error
		if i, err = layers.VarianceScaling(a.float("scale", 1), a.str("mode", "fan_in"), a.str("distribution", "truncated_normal")); err != nil {
			c.fail("%s: %v", key, err)
		}
	default:
		var err error
		if i, err = layers.GetInitializer(class); err != nil {
			c.fail("%s: %v", key, err)
		}
	}
	if a.err != nil {
		c.fail("%s: %v", key, a.err)
	}
	return i
}

func (c *cfgReader) regularizer(key string) layers.Regularizer {
	var class string
	var args map[string]any
	switch v := c.m[key].(type) {
	case nil:
		return nil
	case string:
		class, args = v, map[string]any{}
	case map[string]any:
		class, args = classAndConfig(v)
	default:
		c.fail("%s: cannot read %v", key, v)
		return nil
	}
	a := &cfgReader{m: args}
	var r layers.Regularizer
	switch strings.ToLower(class) {
	case "l1":
		r = layers.L1(float32(a.float("l1", 0.01)))
	case "l2":
		r = layers.L2(float32(a.float("l2", 0.01)))
	case "l1l2", "l1_l2":
		r = layers.L1L2(float32(a.float("l1", 0)), float32(a.float("l2", 0)))
	default:
		c.fail("%s: unknown regularizer %q", key, class)
	}
	if a.err != nil {
		c.fail("%s: %v", key, a.err)
	}
	return r
}

// kernelOptions reads the options Dense and Conv2D share.
func (c *cfgReader) kernelOptions() []layers.Option {
	opts := c.activation()
	if c.present("use_bias") {
		opts = append(opts, layers.WithUseBias(c.bool("use_bias", true)))
	}
	if i := c.initializer("kernel_initializer", "GlorotUniform"); i != nil {
		opts = append(opts, layers.WithKernelInitializer(i))
	}
	if i := c.initializer("bias_initializer", "Zeros"); i != nil {
		opts = append(opts, layers.WithBiasInitializer(i))
	}
	if r := c.regularizer("kernel_regularizer"); r != nil {
		opts = append(opts, layers.WithKernelRegularizer(r))
	}
	if r := c.regularizer("bias_regularizer"); r != nil {
		opts = append(opts, layers.WithBiasRegularizer(r))
	}
	opts = append(opts, c.weightOptions("kernel_constraint", "bias_constraint")...)
	if c.int("lora_rank", 0) != 0 {
		c.fail("lora_rank is not supported")
	}
	return opts
}

// builtinLayers lists the classes of package layers registered here.
var builtinLayers []string

// builtin registers a layer of package layers.
func builtin(class string, f func(c *cfgReader, common []layers.Option) layers.Layer) {
	builtinLayers = append(builtinLayers, class)
	RegisterLayer(class, func(cfg map[string]any) (layers.Layer, error) {
		c := &cfgReader{m: cfg}
		common := c.common()
		l := f(c, common)
		if c.err != nil {
			return nil, c.err
		}
		return l, nil
	})
}

func init() {
	builtin("Dense", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewDense(c.int("units", 0), append(o, c.kernelOptions()...)...)
	})
	builtin("Conv2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("groups") {
			o = append(o, layers.WithGroups(c.int("groups", 1)))
		}
		ks := c.ints("kernel_size")
		if len(ks) == 0 {
			c.fail("kernel_size is missing")
			ks = []int{1}
		}
		o = append(o, layers.WithKernelSize(ks...))
		if s := c.ints("strides"); s != nil {
			o = append(o, layers.WithStrides(s...))
		}
		if d := c.ints("dilation_rate"); d != nil {
			o = append(o, layers.WithDilationRate(d...))
		}
		if c.present("padding") {
			o = append(o, layers.WithPadding(c.str("padding", "valid")))
		}
		return layers.NewConv2D(c.int("filters", 0), ks[0], append(o, c.kernelOptions()...)...)
	})
	pooling := func(c *cfgReader, o []layers.Option) []layers.Option {
		if p := c.ints("pool_size"); p != nil {
			o = append(o, layers.WithPoolSize(p...))
		}
		if s := c.ints("strides"); s != nil {
			o = append(o, layers.WithStrides(s...))
		}
		if c.present("padding") {
			o = append(o, layers.WithPadding(c.str("padding", "valid")))
		}
		return o
	}
	builtin("MaxPooling2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewMaxPooling2D(pooling(c, o)...)
	})
	builtin("AveragePooling2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewAveragePooling2D(pooling(c, o)...)
	})
	builtin("Flatten", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewFlatten(o...)
	})
	builtin("Dropout", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("noise_shape") {
			o = append(o, layers.WithNoiseShape(c.noneInts("noise_shape")...))
		}
		if c.present("seed") {
			o = append(o, layers.WithSeed(int64(c.int("seed", 0))))
		}
		return layers.NewDropout(c.float("rate", 0), o...)
	})
	builtin("Activation", func(c *cfgReader, o []layers.Option) layers.Layer {
		name := "linear"
		if c.present("activation") {
			name = activationName(c.m["activation"])
		}
		return layers.NewActivation(name, o...)
	})
	builtin("ReLU", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("max_value") {
			o = append(o, layers.WithMaxValue(c.float("max_value", 0)))
		}
		if c.present("negative_slope") {
			o = append(o, layers.WithNegativeSlope(c.float("negative_slope", 0)))
		}
		if c.present("threshold") {
			o = append(o, layers.WithThreshold(c.float("threshold", 0)))
		}
		return layers.NewReLU(o...)
	})
	builtin("Softmax", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("axis") {
			axes := c.ints("axis")
			if len(axes) != 1 {
				c.fail("axis %v: one axis is supported", c.m["axis"])
			} else {
				o = append(o, layers.WithAxis(axes[0]))
			}
		}
		return layers.NewSoftmax(o...)
	})
	builtin("Reshape", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewReshape(c.ints("target_shape"), o...)
	})
	builtin("Rescaling", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("offset") {
			o = append(o, layers.WithOffset(c.float("offset", 0)))
		}
		return layers.NewRescaling(c.float("scale", 1), o...)
	})
	builtin("Add", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewAdd(o...)
	})
	builtin("Multiply", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewMultiply(o...)
	})
	builtin("Concatenate", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("axis") {
			o = append(o, layers.WithAxis(c.int("axis", -1)))
		}
		return layers.NewConcatenate(o...)
	})
	builtin("BatchNormalization", func(c *cfgReader, o []layers.Option) layers.Layer {
		o = append(o, c.normalization()...)
		if c.present("momentum") {
			o = append(o, layers.WithMomentum(c.float("momentum", 0.99)))
		}
		if c.present("synchronized") {
			o = append(o, layers.WithSynchronized(c.bool("synchronized", false)))
		}
		c.defaultInitializers(map[string]string{"moving_mean_initializer": "Zeros", "moving_variance_initializer": "Ones"})
		c.unsupported("moving_mean_constraint", "moving_variance_constraint")
		return layers.NewBatchNormalization(o...)
	})
	builtin("LayerNormalization", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.bool("rms_scaling", false) {
			c.fail("rms_scaling is not supported")
		}
		return layers.NewLayerNormalization(append(o, c.normalization()...)...)
	})
	builtin("DepthwiseConv2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		ks := c.ints("kernel_size")
		if len(ks) == 0 {
			c.fail("kernel_size is missing")
			ks = []int{1}
		}
		o = append(o, layers.WithKernelSize(ks...))
		if s := c.ints("strides"); s != nil {
			o = append(o, layers.WithStrides(s...))
		}
		if d := c.ints("dilation_rate"); d != nil {
			o = append(o, layers.WithDilationRate(d...))
		}
		if c.present("padding") {
			o = append(o, layers.WithPadding(c.str("padding", "valid")))
		}
		if c.present("depth_multiplier") {
			o = append(o, layers.WithDepthMultiplier(c.int("depth_multiplier", 1)))
		}
		o = append(o, c.activation()...)
		if c.present("use_bias") {
			o = append(o, layers.WithUseBias(c.bool("use_bias", true)))
		}
		if i := c.initializer("depthwise_initializer", "GlorotUniform"); i != nil {
			o = append(o, layers.WithDepthwiseInitializer(i))
		}
		if i := c.initializer("bias_initializer", "Zeros"); i != nil {
			o = append(o, layers.WithBiasInitializer(i))
		}
		if r := c.regularizer("depthwise_regularizer"); r != nil {
			o = append(o, layers.WithDepthwiseRegularizer(r))
		}
		if r := c.regularizer("bias_regularizer"); r != nil {
			o = append(o, layers.WithBiasRegularizer(r))
		}
		o = append(o, c.weightOptions("depthwise_constraint", "bias_constraint")...)
		return layers.NewDepthwiseConv2D(ks[0], o...)
	})
	builtin("Embedding", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.bool("mask_zero", false) {
			o = append(o, layers.WithMaskZero(true))
		}
		if i := c.initializer("embeddings_initializer", ""); i != nil {
			o = append(o, layers.WithEmbeddingsInitializer(i))
		}
		if r := c.regularizer("embeddings_regularizer"); r != nil {
			o = append(o, layers.WithEmbeddingsRegularizer(r))
		}
		o = append(o, c.weightOptions("embeddings_constraint")...)
		if c.int("lora_rank", 0) != 0 {
			c.fail("lora_rank is not supported")
		}
		return layers.NewEmbedding(c.int("input_dim", 0), c.int("output_dim", 0), o...)
	})
	globalPooling := func(c *cfgReader, o []layers.Option) []layers.Option {
		if c.present("keepdims") {
			o = append(o, layers.WithKeepDims(c.bool("keepdims", false)))
		}
		return o
	}
	builtin("GlobalAveragePooling2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGlobalAveragePooling2D(globalPooling(c, o)...)
	})
	builtin("GlobalMaxPooling2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewGlobalMaxPooling2D(globalPooling(c, o)...)
	})
	builtin("ZeroPadding2D", func(c *cfgReader, o []layers.Option) layers.Layer {
		p := [4]int{1, 1, 1, 1} // Keras' default padding=(1, 1)
		switch v := c.m["padding"].(type) {
		case nil:
		case []any:
			if len(v) != 2 {
				c.fail("padding %v: want ((top, bottom), (left, right))", v)
				break
			}
			for i, x := range v {
				if n, ok := toInt(x); ok { // (symmetric_height, symmetric_width)
					p[2*i], p[2*i+1] = n, n
					continue
				}
				pair, err := toInts(x)
				if err != nil || len(pair) != 2 {
					c.fail("padding %v: want ((top, bottom), (left, right))", v)
					break
				}
				p[2*i], p[2*i+1] = pair[0], pair[1]
			}
		default:
			n, ok := toInt(v)
			if !ok {
				c.fail("padding %v: want an integer or pairs", v)
			}
			p = [4]int{n, n, n, n}
		}
		return layers.NewZeroPadding2D(p[0], p[1], p[2], p[3], o...)
	})
	seed := func(c *cfgReader, o []layers.Option) []layers.Option {
		if c.present("seed") {
			o = append(o, layers.WithSeed(int64(c.int("seed", 0))))
		}
		return o
	}
	builtin("RandomCrop", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewRandomCrop(c.int("height", 0), c.int("width", 0), seed(c, o)...)
	})
	builtin("RandomFlip", func(c *cfgReader, o []layers.Option) layers.Layer {
		return layers.NewRandomFlip(c.str("mode", "horizontal_and_vertical"), seed(c, o)...)
	})
	builtin("RandomTranslation", func(c *cfgReader, o []layers.Option) layers.Layer {
		if c.present("interpolation") {
			o = append(o, layers.WithInterpolation(c.str("interpolation", "bilinear")))
		}
		if c.present("fill_mode") {
			o = append(o, layers.WithFillMode(c.str("fill_mode", "reflect")))
		}
		if c.present("fill_value") {
			o = append(o, layers.WithFillValue(c.float("fill_value", 0)))
		}
		return layers.NewRandomTranslationRange(c.factorRange("height_factor"), c.factorRange("width_factor"), seed(c, o)...)
	})
}

// normalization reads the options BatchNormalization and
// LayerNormalization share; their initializers must be the defaults.
func (c *cfgReader) normalization() []layers.Option {
	var o []layers.Option
	if c.present("axis") {
		axes := c.ints("axis")
		if len(axes) != 1 {
			c.fail("axis %v: one axis is supported", c.m["axis"])
		} else {
			o = append(o, layers.WithAxis(axes[0]))
		}
	}
	if c.present("epsilon") {
		o = append(o, layers.WithEpsilon(c.float("epsilon", 1e-3)))
	}
	if c.present("center") {
		o = append(o, layers.WithCenter(c.bool("center", true)))
	}
	if c.present("scale") {
		o = append(o, layers.WithScale(c.bool("scale", true)))
	}
	c.defaultInitializers(map[string]string{"beta_initializer": "Zeros", "gamma_initializer": "Ones"})
	o = append(o, c.weightOptions("beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint")...)
	return o
}

// defaultInitializers fails unless each key is absent or names its
// default initializer class: the layers take no other.
func (c *cfgReader) defaultInitializers(defaults map[string]string) {
	for _, k := range sortedKeys(defaults) {
		var class string
		switch v := c.m[k].(type) {
		case nil:
			continue
		case string:
			class = v
		case map[string]any:
			class, _ = classAndConfig(v)
		}
		if !strings.EqualFold(strings.ReplaceAll(class, "_", ""), defaults[k]) {
			c.fail("%s %v is not supported: only %s", k, c.m[k], defaults[k])
		}
	}
}

// activationName reads an activation's name from Keras' serialised form.
func activationName(v any) string {
	if m, ok := v.(map[string]any); ok {
		if s, ok := m["config"].(string); ok {
			return s
		}
		if s, ok := m["class_name"].(string); ok {
			return strings.ToLower(s)
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// stringLayers are Keras layers that take strings, which gokeras' float32
// graph cannot carry: gokeras has them as preprocessing objects outside
// the model, and a file with one inside its graph says so.
var stringLayers = map[string]string{
	"StringLookup":      "a StringLookup inside a model's graph takes strings, which gokeras' float32 graph cannot carry: build it with layers.NewStringLookup (its vocabulary is in this config) and use it to make the model's input, as a tf.data map does, then load the model that starts after it",
	"TextVectorization": "a TextVectorization inside a model's graph takes strings, which gokeras' float32 graph cannot carry: build it with layers.NewTextVectorization (its vocabulary is in this config) and use it to make the model's input, as a tf.data map does, then load the model that starts after it",
}
