package applications

import (
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

const inceptionV3Base = "https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/"

// InceptionV3 is keras.applications.InceptionV3 (Rethinking the
// Inception Architecture for Computer Vision, Szegedy et al. 2015):
// 299x299 inputs by default (at least 75x75), preprocessed with
// [InceptionV3PreprocessInput] (tf mode). Its layers but the mixed
// concatenations and the top are unnamed in Keras: they take Keras'
// default names ("conv2d_12", "batch_normalization_12"), which depend
// on the layers made before in the session (see the package doc).
// Options: the common ones.
func InceptionV3(opts ...Option) (*keras.Model, error) {
	const ctor = "InceptionV3"
	c, err := newConfig(ctor, "inception_v3", nil, opts)
	if err != nil {
		return nil, err
	}
	in, err := c.input(ctor, 299, 75, c.includeTop)
	if err != nil {
		return nil, err
	}
	cb := func(x *layers.KerasTensor, filters, rows, cols int, opts ...layers.Option) *layers.KerasTensor {
		return inceptionConvBN(x, filters, rows, cols, opts...)
	}
	valid := layers.WithPadding("valid")
	s2 := layers.WithStrides(2)
	avg := func(x *layers.KerasTensor) *layers.KerasTensor {
		return avgPool(x, 3, 1, auto("average_pooling2d"), layers.WithPadding("same"))
	}
	x := cb(in, 32, 3, 3, s2, valid)
	x = cb(x, 32, 3, 3, valid)
	x = cb(x, 64, 3, 3)
	x = maxPool(x, 3, 2, auto("max_pooling2d"))
	x = cb(x, 80, 1, 1, valid)
	x = cb(x, 192, 3, 3, valid)
	x = maxPool(x, 3, 2, auto("max_pooling2d"))

	// mixed 0, 1, 2: 35 x 35 x 256, 288, 288
	for i, poolFilters := range []int{32, 64, 64} {
		b1 := cb(x, 64, 1, 1)
		b5 := cb(x, 48, 1, 1)
		b5 = cb(b5, 64, 5, 5)
		b3 := cb(x, 64, 1, 1)
		b3 = cb(b3, 96, 3, 3)
		b3 = cb(b3, 96, 3, 3)
		bp := cb(avg(x), poolFilters, 1, 1)
		x = concat("mixed"+itoa(i), b1, b5, b3, bp)
	}
	// mixed 3: 17 x 17 x 768
	b3 := cb(x, 384, 3, 3, s2, valid)
	bd := cb(x, 64, 1, 1)
	bd = cb(bd, 96, 3, 3)
	bd = cb(bd, 96, 3, 3, s2, valid)
	bp := maxPool(x, 3, 2, auto("max_pooling2d"))
	x = concat("mixed3", b3, bd, bp)
	// mixed 4, 5, 6, 7: 17 x 17 x 768
	for i, f := range []int{128, 160, 160, 192} {
		b1 := cb(x, 192, 1, 1)
		b7 := cb(x, f, 1, 1)
		b7 = cb(b7, f, 1, 7)
		b7 = cb(b7, 192, 7, 1)
		bd := cb(x, f, 1, 1)
		bd = cb(bd, f, 7, 1)
		bd = cb(bd, f, 1, 7)
		bd = cb(bd, f, 7, 1)
		bd = cb(bd, 192, 1, 7)
		bp := cb(avg(x), 192, 1, 1)
		x = concat("mixed"+itoa(4+i), b1, b7, bd, bp)
	}
	// mixed 8: 8 x 8 x 1280
	b3 = cb(x, 192, 1, 1)
	b3 = cb(b3, 320, 3, 3, s2, valid)
	b7 := cb(x, 192, 1, 1)
	b7 = cb(b7, 192, 1, 7)
	b7 = cb(b7, 192, 7, 1)
	b7 = cb(b7, 192, 3, 3, s2, valid)
	bp = maxPool(x, 3, 2, auto("max_pooling2d"))
	x = concat("mixed8", b3, b7, bp)
	// mixed 9, 10: 8 x 8 x 2048
	for i := range 2 {
		b1 := cb(x, 320, 1, 1)
		b3 := cb(x, 384, 1, 1)
		b31 := cb(b3, 384, 1, 3)
		b32 := cb(b3, 384, 3, 1)
		b3 = concat("mixed9_"+itoa(i), b31, b32)
		bd := cb(x, 448, 1, 1)
		bd = cb(bd, 384, 3, 3)
		bd1 := cb(bd, 384, 1, 3)
		bd2 := cb(bd, 384, 3, 1)
		bd = concat(auto("concatenate"), bd1, bd2)
		bp := cb(avg(x), 192, 1, 1)
		x = concat("mixed"+itoa(9+i), b1, b3, bd, bp)
	}
	if c.includeTop {
		x = globalAvg(x, "avg_pool")
		x = dense(x, c.classes, c.classifierActivation, "predictions")
	} else {
		x = c.pool(x, auto("global_average_pooling2d"), auto("global_max_pooling2d"))
	}
	return c.finish(ctor, in, x, c.topFiles(inceptionV3Base, "inception_v3_weights_tf_dim_ordering_tf_kernels.h5",
		"9a0d58056eeedaa3f26cb7ebd46da564", "inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
		"bcbd6486424b2319ff4ef7d526e38f63"))
}

// inceptionConvBN is Inception's conv2d_bn: a convolution without bias
// ("same" padding unless an option says otherwise), batch normalization
// without scale, ReLU, all with Keras' default names.
func inceptionConvBN(x *layers.KerasTensor, filters, rows, cols int, opts ...layers.Option) *layers.KerasTensor {
	o := append([]layers.Option{layers.WithKernelSize(rows, cols), layers.WithPadding("same"), layers.WithUseBias(false)}, opts...)
	x = conv(x, filters, rows, auto("conv2d"), o...)
	x = bn(x, auto("batch_normalization"), layers.WithScale(false))
	return activation(x, "relu", auto("activation"))
}
