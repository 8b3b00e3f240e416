package onnx

import (
	"fmt"
	"math"
)

func init() {
	converters["BatchNormalization"] = convertBatchNormalization
	converters["LayerNormalization"] = convertLayerNormalization
}

// normAxis reads a normalization's axis: one integer (gokeras' layers
// normalize over one axis; a list of several is refused).
func normAxis(k *call) (int, error) {
	if list, ok := k.cfg["axis"].([]any); ok {
		if len(list) != 1 {
			return 0, unsupported("axis %v (one axis only)", list)
		}
		return cfgInt(map[string]any{"axis": list[0]}, "axis", -1)
	}
	return cfgInt(k.cfg, "axis", -1)
}

// gammaBeta returns the layer's scale and offset over n channels, ones
// and zeros where scale or center is off.
func gammaBeta(k *call, n int) (gamma, beta []float32, err error) {
	scale, err := cfgBool(k.cfg, "scale", true)
	if err != nil {
		return nil, nil, err
	}
	center, err := cfgBool(k.cfg, "center", true)
	if err != nil {
		return nil, nil, err
	}
	gamma, beta = make([]float32, n), make([]float32, n)
	for i := range gamma {
		gamma[i] = 1
	}
	if scale {
		g, err := mustWeight(k.layer, "gamma", n)
		if err != nil {
			return nil, nil, err
		}
		gamma = g.Numpy()
	}
	if center {
		b, err := mustWeight(k.layer, "beta", n)
		if err != nil {
			return nil, nil, err
		}
		beta = b.Numpy()
	}
	return gamma, beta, nil
}

// convertBatchNormalization: inference with the moving statistics.
// Images (made channels-first), other channels-first values and (batch,
// channels) tensors have the channels on axis 1, ONNX
// BatchNormalization's; other ranks get the same affine map as x*s + t
// along the last axis.
func convertBatchNormalization(c *converter, k *call) (*val, error) {
	x := k.in[0]
	a, err := normAxis(k)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	if a < 0 {
		a += r
	}
	if a != r-1 {
		return nil, unsupported("axis %d (the channels, the last axis, only)", a)
	}
	eps, err := cfgFloat(k.cfg, "epsilon", 1e-3)
	if err != nil {
		return nil, err
	}
	n := x.shape[r-1]
	gamma, beta, err := gammaBeta(k, n)
	if err != nil {
		return nil, err
	}
	mean, err := mustWeight(k.layer, "moving_mean", n)
	if err != nil {
		return nil, err
	}
	variance, err := mustWeight(k.layer, "moving_variance", n)
	if err != nil {
		return nil, err
	}
	if r == 4 || r == 2 || x.nchw {
		var xn string
		nchw := r != 2
		if nchw {
			if xn, err = c.channelsFirst(x, r); err != nil {
				return nil, err
			}
		} else {
			xn = c.float(x)
		}
		ins := []string{xn, c.constFloats("gamma", []int{n}, gamma), c.constFloats("beta", []int{n}, beta),
			c.constFloats("moving_mean", []int{n}, mean.Numpy()), c.constFloats("moving_variance", []int{n}, variance.Numpy())}
		return c.finish(c.op("BatchNormalization", ins, "", attrFloat("epsilon", eps)), nchw, k), nil
	}
	m, v := mean.Numpy(), variance.Numpy()
	s, t := make([]float32, n), make([]float32, n)
	for i := range s {
		f := float64(gamma[i]) / math.Sqrt(float64(v[i])+float64(float32(eps)))
		s[i], t[i] = float32(f), float32(float64(beta[i])-float64(m[i])*f)
	}
	c.float(x)
	y := c.op("Mul", []string{c.keras(x), c.constFloats("scale", []int{n}, s)}, "")
	return c.finish(c.op("Add", []string{y, c.constFloats("offset", []int{n}, t)}, ""), false, k), nil
}

// convertLayerNormalization normalizes over the layer's axis:
// LayerNormalization when that is the last axis of the value's layout,
// else the mean and variance written out (a ConvNeXt-style
// normalization of channels-first images over axis 1 needs no
// transposes then).
func convertLayerNormalization(c *converter, k *call) (*val, error) {
	x := k.in[0]
	rms, err := cfgBool(k.cfg, "rms_scaling", false)
	if err != nil {
		return nil, err
	}
	if rms {
		return nil, unsupported("rms_scaling")
	}
	a, err := normAxis(k)
	if err != nil {
		return nil, err
	}
	eps, err := cfgFloat(k.cfg, "epsilon", 1e-3)
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	ka := a
	if ka < 0 {
		ka += r
	}
	if ka <= 0 || ka >= r {
		return nil, fmt.Errorf("axis %d is not a non-batch axis of the rank-%d input", a, r)
	}
	n := x.shape[ka]
	gamma, beta, err := gammaBeta(k, n)
	if err != nil {
		return nil, err
	}
	xn := c.float(x)
	ax, _ := axis(ka, r, x.nchw)
	if ax == r-1 {
		ins := []string{xn, c.constFloats("gamma", []int{n}, gamma), c.constFloats("beta", []int{n}, beta)}
		return c.finish(c.op("LayerNormalization", ins, "", attrInt("axis", -1), attrFloat("epsilon", eps)), x.nchw, k), nil
	}
	mean := c.op("ReduceMean", []string{xn}, "", attrInts("axes", ax), attrInt("keepdims", 1))
	d := c.op("Sub", []string{xn, mean}, "")
	variance := c.op("ReduceMean", []string{c.op("Mul", []string{d, d}, "")}, "", attrInts("axes", ax), attrInt("keepdims", 1))
	y := c.op("Div", []string{d, c.op("Sqrt", []string{c.op("Add", []string{variance, c.scalar("epsilon", float64(float32(eps)))}, "")}, "")}, "")
	dims := make([]int, r-ax)
	for i := range dims {
		dims[i] = 1
	}
	dims[0] = n
	y = c.op("Mul", []string{y, c.constFloats("gamma", dims, gamma)}, "")
	y = c.op("Add", []string{y, c.constFloats("beta", dims, beta)}, "")
	return c.finish(y, x.nchw, k), nil
}
