package ops

import "math"

type equalizeAttrs struct{ Bins int }

// EqualizeHistogram equalizes each channel (the last axis) of x, whose
// values are on Keras' 0..255 scale, over every other position of x, the
// batch included, as keras.layers.Equalization does (its histogram of a
// channel is of the whole batch): a value falls in bin
// trunc(v * (bins-1) / 255) (float32, clipped to [0, bins)); with cdf the
// running count of the bins and cdf_min its first non-zero entry, bin i
// maps to round((cdf[i] - cdf_min) * 255 / (cdf[last] - cdf_min)) (ties
// to even, clipped to [0, 255]; a zero denominator is 1), and a value
// takes the level of bin trunc(v / 255 * (bins-1)) (Keras' second,
// differently rounded, scaling). A channel whose values fill at most one
// bin is passed through.
//
// The output levels do not depend on x smoothly: the gradient is dy on
// the channels passed through and zero elsewhere, as TensorFlow
// differentiates Keras' where(nonzero_bins <= 1, channel, lookup).
func EqualizeHistogram(x Tensor, bins int) Tensor {
	tr := sameTrace("EqualizeHistogram", x)
	s := x.Shape()
	if len(s) == 0 || s[len(s)-1] < 1 {
		fail("EqualizeHistogram", "x must have a channel axis, got shape %v", s)
	}
	if bins < 1 || bins > 1<<20 {
		fail("EqualizeHistogram", "bins must be in [1, 2^20], got %d", bins)
	}
	ch := s[len(s)-1]
	return tr.apply(&Op{
		name: "EqualizeHistogram", out: s, attrs: equalizeAttrs{Bins: bins},
		fwd: func(o []float32, in [][]float32) {
			xs := in[0][:len(o)]
			for c := range ch {
				equalizeChannel(o, xs, c, ch, bins, nil)
			}
		},
		grad: func(in []Tensor, _, dy Tensor) []Tensor {
			mask := tr.apply(&Op{
				name: "EqualizeHistogramPassed", out: s, attrs: equalizeAttrs{Bins: bins}, wrt: []bool{false},
				fwd: func(o []float32, in [][]float32) {
					xs := in[0][:len(o)]
					for c := range ch {
						equalizeChannel(nil, xs, c, ch, bins, o)
					}
				},
			}, in[0])
			return []Tensor{Mul(dy, mask)}
		},
	}, x)
}

// histBin is Keras' float32 bin of v for the histogram, truncated and
// clipped to [0, bins).
func histBin(v float32, scale float32, bins int, divFirst bool) int {
	var f float32
	if divFirst {
		f = min(max(v/255*scale, 0), float32(bins-1))
	} else {
		f = v * scale / 255
	}
	if !(f > 0) { // negative, zero or NaN: bin 0 after the clip
		return 0
	}
	if f >= float32(bins-1) {
		return bins - 1
	}
	return int(f)
}

// equalizeChannel writes channel c of x equalized into o (when o is not
// nil) and 1 into passed where the channel passes through, 0 elsewhere
// (when passed is not nil).
func equalizeChannel(o, x []float32, c, ch, bins int, passed []float32) {
	scale := float32(bins - 1)
	hist := make([]int64, bins)
	for i := c; i < len(x); i += ch {
		hist[histBin(x[i], scale, bins, false)]++
	}
	nonzero := 0
	for _, n := range hist {
		if n != 0 {
			nonzero++
		}
	}
	through := nonzero <= 1
	if passed != nil {
		for i := c; i < len(x); i += ch {
			passed[i] = b2f(through)
		}
	}
	if o == nil {
		return
	}
	if through {
		for i := c; i < len(x); i += ch {
			o[i] = x[i]
		}
		return
	}
	cdf := make([]int64, bins)
	var run, cdfMin int64
	for i, n := range hist {
		run += n
		cdf[i] = run
		if cdfMin == 0 && run != 0 {
			cdfMin = run
		}
	}
	den := cdf[bins-1] - cdfMin
	if den == 0 {
		den = 1
	}
	lut := make([]float32, bins)
	for i, v := range cdf {
		lut[i] = float32(min(max(math.RoundToEven(float64((v-cdfMin)*255)/float64(den)), 0), 255))
	}
	for i := c; i < len(x); i += ch {
		o[i] = lut[histBin(x[i], scale, bins, true)]
	}
}
