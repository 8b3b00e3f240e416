package ops

// GroupedConv2D is Keras' Conv2D with groups: the input's c channels split
// into groups of c/groups, each convolved with its own filters/groups
// filters of the kernel w (kh, kw, c/groups, filters), the outputs
// concatenated in group order (output channel o belongs to group
// o / (filters/groups)), as tf.nn.conv2d with a kernel of fewer input
// channels than the input. groups 1 is [Conv2D]. groups == c (one input
// channel per group: ConvNeXt's 7x7 convolutions, groups = channels) is a
// depthwise convolution of multiplier filters/c, whose kernel has the
// same layout: it runs as [DepthwiseConv2D]. Other counts run one
// convolution per group. Misuse panics with an *Error.
func GroupedConv2D(x, w Tensor, groups int, attrs Conv2DAttrs) Tensor {
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 4 || len(ws) != 4 {
		fail("GroupedConv2D", "input %v and kernel %v must be rank 4 (NHWC, HWIO)", xs, ws)
	}
	c, f := xs[3], ws[3]
	switch {
	case groups < 1 || c%groups != 0 || f%groups != 0:
		fail("GroupedConv2D", "groups %d must divide the input's %d channels and the kernel's %d filters", groups, c, f)
	case ws[2]*groups != c:
		fail("GroupedConv2D", "kernel %v has %d input channels per group; the input's %d channels in %d groups need %d", ws, ws[2], c, groups, c/groups)
	}
	if groups == 1 {
		return Conv2D(x, w, attrs)
	}
	if ws[2] == 1 {
		return DepthwiseConv2D(x, Reshape(w, Shape{ws[0], ws[1], c, f / c}), attrs)
	}
	cg, fg := c/groups, f/groups
	ys := make([]Tensor, groups)
	for g := range groups {
		xg := Slice(x, []int{0, 0, 0, g * cg}, []int{-1, -1, -1, cg})
		wg := Slice(w, []int{0, 0, 0, g * fg}, []int{-1, -1, -1, fg})
		ys[g] = Conv2D(xg, wg, attrs)
	}
	return Concat(3, ys...)
}
