package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// window1D reads the kernel_size, strides and dilation_rate of a 1-D
// convolution layer of issue 31 (DepthwiseConv1D, SeparableConv1D,
// Conv1DTranspose) and checks them as Keras does.
func window1D(c *config, kernelSize int) (k, stride, dil int, err error) {
	ks := []int{kernelSize}
	if c.kernelSize != nil {
		ks = c.kernelSize
	}
	var errs [3]error
	k, errs[0] = one("kernel_size", ks, 0)
	stride, errs[1] = one("strides", c.strides, 1)
	dil, errs[2] = one("dilation_rate", c.dilation, 1)
	for _, e := range errs {
		if e != nil {
			return k, stride, dil, e
		}
	}
	if k <= 0 {
		return k, stride, dil, fmt.Errorf("kernel_size must be positive, got %v", ks)
	}
	if stride > 1 && dil > 1 {
		return k, stride, dil, fmt.Errorf("strides > 1 with dilation_rate > 1 is not supported (as in Keras)")
	}
	return k, stride, dil, nil
}

// rank3Channels checks a (batch, steps, channels) input shape and returns
// its channel count.
func rank3Channels(in []ops.Shape) (int, error) {
	if len(in) != 1 || len(in[0]) != 3 {
		return 0, fmt.Errorf("needs one rank-3 (batch, steps, channels) input, got %v", shapesStr(in))
	}
	if in[0][2] <= 0 {
		return 0, fmt.Errorf("the channel dimension of %v must be known", in[0])
	}
	return in[0][2], nil
}
