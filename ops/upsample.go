package ops

// UpSample2D repeats the rows and columns of NHWC x size[0] and size[1]
// times, keras.layers.UpSampling2D. interpolation "nearest" copies each
// pixel into a size[0] x size[1] block; "bilinear" interpolates as
// tf.image.resize does (half-pixel centers, edges clamped).
//
// Both are compositions of existing ops: nearest is two broadcasts of one
// contiguous block each (their gradients sum the block back), bilinear a
// product with a constant interpolation matrix along each axis.
func UpSample2D(x Tensor, size [2]int, interpolation string) Tensor {
	const op = "UpSample2D"
	xs := x.Shape()
	if len(xs) != 4 {
		fail(op, "needs a rank-4 NHWC input, got shape %v", xs)
	}
	if size[0] < 1 || size[1] < 1 {
		fail(op, "size %v must be positive", size)
	}
	n, h, w, c := xs[0], xs[1], xs[2], xs[3]
	// Sizes from a file must not overflow the output's shape, nor make the
	// bilinear matrices (built now, at trace time) huge.
	const maxElems = 1 << 40
	if size[0] > maxElems/max(h, 1) || size[1] > maxElems/max(w, 1) ||
		float64(n)*float64(h*size[0])*float64(w*size[1])*float64(c) > maxElems {
		fail(op, "size %v makes the output of input %v too large", size, xs)
	}
	if interpolation == "bilinear" && (float64(h*size[0])*float64(h) > 1<<28 || float64(w*size[1])*float64(w) > 1<<28) {
		fail(op, "bilinear size %v of input %v needs interpolation matrices over 2^28 values", size, xs)
	}
	switch interpolation {
	case "nearest":
		y := x
		if size[1] > 1 {
			y = BroadcastTo(Reshape(y, Shape{n * h * w, 1, c}), Shape{n * h * w, size[1], c})
		}
		if size[0] > 1 {
			y = BroadcastTo(Reshape(y, Shape{n * h, 1, w * size[1] * c}), Shape{n * h, size[0], w * size[1] * c})
		}
		return Reshape(y, Shape{n, h * size[0], w * size[1], c})
	case "bilinear":
		tr := x.Trace()
		y := x
		if size[0] > 1 { // along height: (h, n*w*c) rows
			a := tr.Constant(Shape{h * size[0], h}, bilinearMatrix(h, size[0]))
			t := Reshape(Transpose(y, []int{1, 0, 2, 3}), Shape{h, n * w * c})
			y = Transpose(Reshape(MatMul(a, t, false, false), Shape{h * size[0], n, w, c}), []int{1, 0, 2, 3})
		}
		if size[1] > 1 { // along width: (w, n*h'*c) rows
			hh := h * size[0]
			a := tr.Constant(Shape{w * size[1], w}, bilinearMatrix(w, size[1]))
			t := Reshape(Transpose(y, []int{2, 0, 1, 3}), Shape{w, n * hh * c})
			y = Transpose(Reshape(MatMul(a, t, false, false), Shape{w * size[1], n, hh, c}), []int{1, 2, 0, 3})
		}
		return y
	}
	fail(op, "interpolation must be \"nearest\" or \"bilinear\", got %q", interpolation)
	return Tensor{}
}

// bilinearMatrix is the (in*s, in) matrix of linear interpolation from in
// samples to in*s: output o samples the input at (o+0.5)/s-0.5, clamped
// to [0, in-1] (TensorFlow's half-pixel rule).
func bilinearMatrix(in, s int) []float32 {
	out := in * s
	m := make([]float32, out*in)
	for o := 0; o < out; o++ {
		src := (float64(o)+0.5)/float64(s) - 0.5
		src = max(src, 0)
		i0 := min(int(src), in-1)
		i1 := min(i0+1, in-1)
		f := float32(src - float64(i0))
		m[o*in+i0] += 1 - f
		m[o*in+i1] += f
	}
	return m
}
