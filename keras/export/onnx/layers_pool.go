package onnx

import "fmt"

func init() {
	converters["MaxPooling2D"] = convertPooling2D("MaxPool")
	converters["AveragePooling2D"] = convertPooling2D("AveragePool")
	converters["GlobalAveragePooling2D"] = convertGlobalPooling2D("GlobalAveragePool")
	converters["GlobalMaxPooling2D"] = convertGlobalPooling2D("GlobalMaxPool")
	converters["ZeroPadding2D"] = convertZeroPadding2D
	converters["Cropping2D"] = convertCropping2D
	converters["UpSampling2D"] = convertUpSampling2D
}

// convertPooling2D: MaxPool or AveragePool on the channels-first input.
// AveragePool's default count_include_pad=0 averages over the pixels
// inside the image, as TensorFlow's "same" average pooling does.
func convertPooling2D(op string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x := k.in[0]
		w, err := readWindow(k.cfg, "pool_size")
		if err != nil {
			return nil, err
		}
		xn, err := c.chw(x)
		if err != nil {
			return nil, err
		}
		return c.finish(c.op(op, []string{xn}, "", w.attrs(x.shape, false)...), true, k), nil
	}
}

// convertGlobalPooling2D: GlobalAveragePool or GlobalMaxPool, (n, c, 1, 1):
// with keepdims that is Keras' (n, 1, 1, c) held channels-first, else
// flattened to (n, c).
func convertGlobalPooling2D(op string) convertFn {
	return func(c *converter, k *call) (*val, error) {
		x := k.in[0]
		keep, err := cfgBool(k.cfg, "keepdims", false)
		if err != nil {
			return nil, err
		}
		df, err := cfgString(k.cfg, "data_format", "channels_last")
		if err != nil {
			return nil, err
		}
		if df != "channels_last" {
			return nil, unsupported("data_format %q", df)
		}
		xn, err := c.chw(x)
		if err != nil {
			return nil, err
		}
		y := c.op(op, []string{xn}, "")
		if keep {
			return c.finish(y, true, k), nil
		}
		return c.finish(c.op("Flatten", []string{y}, "", attrInt("axis", 1)), false, k), nil
	}
}

// pairs reads ((top, bottom), (left, right)) from an int, a pair of
// ints (symmetric per axis) or a pair of pairs, as Keras takes them.
func pairs(cfg map[string]any, key string) ([2][2]int, error) {
	var p [2][2]int
	v := cfg[key]
	if list, ok := v.([]any); ok && len(list) == 2 {
		for d, e := range list {
			vs, err := cfgInts(map[string]any{key: e}, key, 2, nil)
			if err != nil {
				return p, err
			}
			p[d] = [2]int{vs[0], vs[1]}
		}
		return p, nil
	}
	vs, err := cfgInts(cfg, key, 2, []int{0, 0})
	if err != nil {
		return p, err
	}
	return [2][2]int{{vs[0], vs[0]}, {vs[1], vs[1]}}, nil
}

func convertZeroPadding2D(c *converter, k *call) (*val, error) {
	x := k.in[0]
	p, err := pairs(k.cfg, "padding")
	if err != nil {
		return nil, err
	}
	xn, err := c.chw(x)
	if err != nil {
		return nil, err
	}
	pads := c.constInt64s("pads", []int{8}, []int64{0, 0, int64(p[0][0]), int64(p[1][0]), 0, 0, int64(p[0][1]), int64(p[1][1])})
	return c.finish(c.op("Pad", []string{xn, pads}, "", attrString("mode", "constant")), true, k), nil
}

func convertCropping2D(c *converter, k *call) (*val, error) {
	x := k.in[0]
	p, err := pairs(k.cfg, "cropping")
	if err != nil {
		return nil, err
	}
	xn, err := c.chw(x)
	if err != nil {
		return nil, err
	}
	if x.shape[1] < 0 || x.shape[2] < 0 {
		return nil, unsupported("an input of unknown height or width %v", x.shape)
	}
	starts := c.constInt64s("starts", []int{2}, []int64{int64(p[0][0]), int64(p[1][0])})
	ends := c.constInt64s("ends", []int{2}, []int64{int64(x.shape[1] - p[0][1]), int64(x.shape[2] - p[1][1])})
	axes := c.constInt64s("axes", []int{2}, []int64{2, 3})
	return c.finish(c.op("Slice", []string{xn, starts, ends, axes}, ""), true, k), nil
}

// convertUpSampling2D: Resize by the integer factors. Keras' nearest
// repeats pixels (asymmetric coordinates, floor); bilinear is
// tf.image.resize's, with half-pixel centres.
func convertUpSampling2D(c *converter, k *call) (*val, error) {
	x := k.in[0]
	size, err := cfgInts(k.cfg, "size", 2, []int{2, 2})
	if err != nil {
		return nil, err
	}
	interp, err := cfgString(k.cfg, "interpolation", "nearest")
	if err != nil {
		return nil, err
	}
	var as []attr
	switch interp {
	case "nearest":
		as = []attr{attrString("mode", "nearest"), attrString("coordinate_transformation_mode", "asymmetric"), attrString("nearest_mode", "floor")}
	case "bilinear":
		as = []attr{attrString("mode", "linear"), attrString("coordinate_transformation_mode", "half_pixel")}
	default:
		return nil, unsupported("interpolation %q", interp)
	}
	if size[0] < 1 || size[1] < 1 {
		return nil, fmt.Errorf("size %v must be positive", size)
	}
	xn, err := c.chw(x)
	if err != nil {
		return nil, err
	}
	scales := c.constFloats("scales", []int{4}, []float32{1, 1, float32(size[0]), float32(size[1])})
	return c.finish(c.op("Resize", []string{xn, "", scales}, "", as...), true, k), nil
}
