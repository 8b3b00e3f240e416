package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// RandomGaussianBlurSettings are the arguments of
// keras.layers.RandomGaussianBlur. The zero value is Keras' defaults:
// factor (0, 1), kernel size 3, sigma (0, 1), value range (0, 255).
type RandomGaussianBlurSettings struct {
	// Factor is the (lower, upper) range of each image's probability of
	// being blurred (nil: Keras' factor=1.0, the range (0, 1): an image is
	// blurred with probability 1/2). Keras' single number f is (0, f).
	Factor *[2]float64
	// KernelSize is Keras' kernel_size pair, two odd numbers (zero: 3, 3).
	// Keras builds the kernel from the first (x) and second (y) as an
	// array of shape (second, first) and reads it as (first, second):
	// give two equal numbers unless that is what is wanted.
	KernelSize [2]int
	// Sigma is the range the standard deviations are drawn from (nil:
	// Keras' sigma=1.0, the range (0, 1)); a single number s is (0, s).
	Sigma *[2]float64
	// ValueRange is the range of the values (nil: (0, 255)): in training
	// every image is clipped to it, blurred or not, as Keras does.
	ValueRange *[2]float64
}

// RandomGaussianBlur is keras.layers.RandomGaussianBlur for NHWC images
// (rank 4, or rank 3 for one image): in training, two standard deviations
// (x and y, plus 1e-6) are drawn uniformly in the sigma range for the
// whole batch, and each image is, with probability p (p uniform in the
// factor range, compared with a uniform threshold), replaced by its
// convolution with the normalized Gaussian kernel of those deviations,
// each channel on its own, zero-padded at the borders ("same"); then
// every image is clipped to the value range. In inference it is the
// identity. The draws come from the layer's seed generator (gokeras'
// stream, not TensorFlow's bits).
//
// Python: keras.layers.RandomGaussianBlur(factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255), seed=None)
// Go:     layers.NewRandomGaussianBlur(layers.RandomGaussianBlurSettings{})
type RandomGaussianBlur struct {
	Base
	seedGen
	factor, sigma, vr [2]float64
	kernel            [2]int
}

// NewRandomGaussianBlur makes a RandomGaussianBlur layer. Options:
// WithSeed, WithName, WithInputShape.
func NewRandomGaussianBlur(s RandomGaussianBlurSettings, opts ...Option) *RandomGaussianBlur {
	const class = "RandomGaussianBlur"
	l := &RandomGaussianBlur{kernel: s.KernelSize}
	if l.kernel == [2]int{} {
		l.kernel = [2]int{3, 3}
	}
	l.init(class, []string{"seed"}, opts)
	l.initSeed(&l.Base)
	var e1, e2, e3, e4 error
	l.factor, e1 = geomFactor(class, l.name, "factor", s.Factor, [2]float64{0, 1})
	l.sigma, e2 = geomFactor(class, l.name, "sigma", s.Sigma, [2]float64{0, 1})
	l.vr, e3 = geomValueRange(class, l.name, s.ValueRange)
	if k := l.kernel; k[0] <= 0 || k[1] <= 0 || k[0]%2 == 0 || k[1]%2 == 0 || k[0] > 255 || k[1] > 255 {
		e4 = geomErr(class, l.name, "kernel_size must be odd numbers from 1 to 255, got %v", s.KernelSize)
	}
	if l.err == nil {
		l.err = firstErr(e1, e2, e3, e4)
	}
	return l
}

// Build implements Layer.
func (l *RandomGaussianBlur) Build(in []ops.Shape) error {
	if err := buildImage(in); err != nil {
		return err
	}
	if in[0][len(in[0])-1] <= 0 {
		return geomErr("RandomGaussianBlur", l.name, "the channels of %v must be known", in[0])
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *RandomGaussianBlur) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		tr, gen, n := x.Trace(), l.generator(l.name), ops.Shape{x.Shape()[0]}
		p := geomUniform(tr, n, l.factor[0], l.factor[1], gen)
		apply := ops.Less(ops.RandomUniform(tr, n, 0, 1, gen), p)
		sigma := ops.AddScalar(geomUniform(tr, ops.Shape{2}, l.sigma[0], l.sigma[1], gen), 1e-6)
		return blurImages(x, apply, sigma, l.kernel, l.vr)
	})
}

// gaussianKernel1D is Keras' _get_gaussian_kernel1d: exp(-(x/sigma)^2/2)
// over x = range(size) - (size-1)/2, normalized to sum 1 (sigma a
// scalar tensor).
func gaussianKernel1D(tr *ops.Trace, size int, sigma ops.Tensor) ops.Tensor {
	xs := make([]float32, size)
	for i := range xs {
		xs[i] = float32(i) - float32(size-1)/2
	}
	k := ops.Exp(ops.Scale(ops.Square(ops.Div(tr.Constant(ops.Shape{size}, xs), sigma)), -0.5))
	return ops.Div(k, ops.Sum(k, false))
}

// blurImages is Keras' transform_images: where(apply, gaussian_blur(x,
// kernel, sigma), x) clipped to the value range; sigma is (x, y).
func blurImages(x, apply, sigma ops.Tensor, kernel [2]int, vr [2]float64) ops.Tensor {
	tr := x.Trace()
	one := func(i int) ops.Tensor { return ops.Reshape(ops.Slice(sigma, []int{i}, []int{1}), ops.Shape{}) }
	kx := ops.Reshape(gaussianKernel1D(tr, kernel[0], one(0)), ops.Shape{1, kernel[0]})
	ky := ops.Reshape(gaussianKernel1D(tr, kernel[1], one(1)), ops.Shape{kernel[1], 1})
	// tensordot(ky, kx, axes=0) is (ky, kx); Keras reshapes it to (kx, ky).
	k := ops.Reshape(ops.Mul(ky, kx), ops.Shape{kernel[0], kernel[1], 1, 1})
	c := x.Shape()[3]
	k = ops.BroadcastTo(k, ops.Shape{kernel[0], kernel[1], c, 1})
	blurred := ops.DepthwiseConv2D(x, k, ops.Conv2DAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{1, 1}, Padding: "same"})
	return ops.Clip(ops.Select(perImage(apply, 4), blurred, x), float32(vr[0]), float32(vr[1]))
}

// GetConfig implements Layer.
func (l *RandomGaussianBlur) GetConfig() map[string]any {
	m := l.baseConfig()
	m["factor"] = pairConfigGeom(l.factor)
	m["kernel_size"] = []any{l.kernel[0], l.kernel[1]}
	m["sigma"] = pairConfigGeom(l.sigma)
	m["value_range"] = pairConfigGeom(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
