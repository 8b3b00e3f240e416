package onnx

import "fmt"

// The padding, cropping and upsampling layers of sequences and volumes,
// on the channels-first value as the 2-D ones.

func init() {
	converters["ZeroPadding1D"] = convertZeroPaddingND(1)
	converters["ZeroPadding3D"] = convertZeroPaddingND(3)
	converters["Cropping1D"] = convertCroppingND(1)
	converters["Cropping3D"] = convertCroppingND(3)
	converters["UpSampling1D"] = convertUpSamplingND(1)
	converters["UpSampling3D"] = convertUpSamplingND(3)
}

// edgesN reads the (before, after) amounts of an n-D padding or
// cropping as Keras takes them: an int (every side), n ints (each axis
// symmetric), n pairs, or for n 1 one pair.
func edgesN(cfg map[string]any, key string, n int) ([][2]int, error) {
	out := make([][2]int, n)
	list, isList := cfg[key].([]any)
	if isList && len(list) == n {
		if _, nested := list[0].([]any); nested {
			for d, e := range list {
				vs, err := cfgInts(map[string]any{key: e}, key, 2, nil)
				if err != nil {
					return nil, err
				}
				out[d] = [2]int{vs[0], vs[1]}
			}
			return checkEdges(key, out)
		}
	}
	if isList && n == 1 && len(list) == 2 {
		vs, err := cfgInts(cfg, key, 2, nil)
		if err != nil {
			return nil, err
		}
		return checkEdges(key, [][2]int{{vs[0], vs[1]}})
	}
	vs, err := cfgInts(cfg, key, n, nil)
	if err != nil {
		return nil, err
	}
	if vs == nil {
		return nil, fmt.Errorf("config has no %s", key)
	}
	for d, v := range vs {
		out[d] = [2]int{v, v}
	}
	return checkEdges(key, out)
}

func checkEdges(key string, e [][2]int) ([][2]int, error) {
	for _, p := range e {
		if p[0] < 0 || p[1] < 0 {
			return nil, fmt.Errorf("%s %v must be non-negative", key, e)
		}
	}
	return e, nil
}

func channelsLastOnly(cfg map[string]any) error {
	df, err := cfgString(cfg, "data_format", "channels_last")
	if err != nil {
		return err
	}
	if df != "channels_last" {
		return unsupported("data_format %q", df)
	}
	return nil
}

// convertZeroPaddingND: Pad of the channels-first value.
func convertZeroPaddingND(n int) convertFn {
	return func(c *converter, k *call) (*val, error) {
		e, err := edgesN(k.cfg, "padding", n)
		if err != nil {
			return nil, err
		}
		if err := channelsLastOnly(k.cfg); err != nil {
			return nil, err
		}
		xn, err := c.channelsFirst(k.in[0], n+2)
		if err != nil {
			return nil, err
		}
		pads := make([]int64, 2*(n+2))
		for d, p := range e {
			pads[2+d], pads[n+4+d] = int64(p[0]), int64(p[1])
		}
		return c.finish(c.op("Pad", []string{xn, c.constInt64s("pads", []int{len(pads)}, pads)}, "", attrString("mode", "constant")), true, k), nil
	}
}

// convertCroppingND: Slice of the channels-first value, the ends counted
// from the end (so any length runs).
func convertCroppingND(n int) convertFn {
	return func(c *converter, k *call) (*val, error) {
		e, err := edgesN(k.cfg, "cropping", n)
		if err != nil {
			return nil, err
		}
		if err := channelsLastOnly(k.cfg); err != nil {
			return nil, err
		}
		xn, err := c.channelsFirst(k.in[0], n+2)
		if err != nil {
			return nil, err
		}
		starts, ends, axes := make([]int64, n), make([]int64, n), make([]int64, n)
		for d, p := range e {
			starts[d], ends[d], axes[d] = int64(p[0]), -int64(p[1]), int64(2+d)
			if p[1] == 0 {
				ends[d] = 1<<63 - 1
			}
		}
		ins := []string{xn, c.constInt64s("starts", []int{n}, starts), c.constInt64s("ends", []int{n}, ends), c.constInt64s("axes", []int{n}, axes)}
		return c.finish(c.op("Slice", ins, ""), true, k), nil
	}
}

// convertUpSamplingND: Resize by the integer factors with nearest
// neighbours on asymmetric coordinates, floored: each step (voxel)
// repeated, as Keras' repeat.
func convertUpSamplingND(n int) convertFn {
	return func(c *converter, k *call) (*val, error) {
		size, err := cfgInts(k.cfg, "size", n, nil)
		if err != nil {
			return nil, err
		}
		if size == nil {
			return nil, fmt.Errorf("config has no size")
		}
		if err := channelsLastOnly(k.cfg); err != nil {
			return nil, err
		}
		scales := []float32{1, 1}
		for _, s := range size {
			if s < 1 {
				return nil, fmt.Errorf("size %v must be positive", size)
			}
			scales = append(scales, float32(s))
		}
		xn, err := c.channelsFirst(k.in[0], n+2)
		if err != nil {
			return nil, err
		}
		as := []attr{attrString("mode", "nearest"), attrString("coordinate_transformation_mode", "asymmetric"), attrString("nearest_mode", "floor")}
		return c.finish(c.op("Resize", []string{xn, "", c.constFloats("scales", []int{len(scales)}, scales)}, "", as...), true, k), nil
	}
}
