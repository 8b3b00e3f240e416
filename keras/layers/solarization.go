package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// SolarizationSettings are the arguments of keras.layers.Solarization.
// The zero value is Keras' default: addition and threshold factors 0 (no
// addition, threshold 0: every value is inverted) in the value range
// (0, 255).
type SolarizationSettings struct {
	// AdditionFactor f in [0, 1]: additions drawn in [0, 255 f].
	// AdditionRange, when not nil, is Keras' (lower, upper) pair (each in
	// [0, 1], sorted): additions drawn in [lower, 255 upper], Keras'
	// bounds (the lower one not scaled by 255).
	AdditionFactor float64
	AdditionRange  *[2]float64
	// ThresholdFactor and ThresholdRange are the same for the
	// thresholds.
	ThresholdFactor float64
	ThresholdRange  *[2]float64
	// ValueRange is the range of the values (nil: (0, 255)); sorted.
	ValueRange *[2]float64
}

// Solarization is keras.layers.Solarization for NHWC images (rank 4, or
// rank 3 for one image): in training each image draws an addition and a
// threshold (uniformly, in that order, from the layer's seed generator);
// its values, mapped from the value range to 0..255, get the addition,
// are clipped to [0, 255], and those not below the threshold become
// 255 - value; the result is mapped back to the value range. In
// inference it is the identity.
//
// Python: keras.layers.Solarization(addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None)
// Go:     layers.NewSolarization(layers.SolarizationSettings{ThresholdFactor: 0.5})
type Solarization struct {
	Base
	seedGen
	addition, threshold [2]float64
	vr                  [2]float64
}

// NewSolarization makes a Solarization layer. Options: WithSeed,
// WithName, WithInputShape.
func NewSolarization(s SolarizationSettings, opts ...Option) *Solarization {
	l := &Solarization{}
	l.init("Solarization", []string{"seed"}, opts)
	l.initSeed(&l.Base)
	factor := func(arg string, f float64, pair *[2]float64) ([2]float64, error) {
		bad := fmt.Errorf("layers: Solarization %q: %s must be a number or a pair of numbers in [0, 1], got %v / %v", l.name, arg, f, pair)
		in := func(v float64) bool { return v >= 0 && v <= 1 }
		if pair != nil {
			if !in(pair[0]) || !in(pair[1]) {
				return [2]float64{}, bad
			}
			return [2]float64{min(pair[0], pair[1]), max(pair[0], pair[1])}, nil
		}
		if !in(f) {
			return [2]float64{}, bad
		}
		return [2]float64{0, f}, nil
	}
	a, err := factor("addition_factor", s.AdditionFactor, s.AdditionRange)
	t, err2 := factor("threshold_factor", s.ThresholdFactor, s.ThresholdRange)
	vr, err3 := parseValueRange("Solarization", l.name, s.ValueRange, true, true)
	l.addition, l.threshold, l.vr = a, t, vr
	if l.err == nil {
		l.err = firstErr(err, err2, err3)
	}
	return l
}

// Build implements Layer.
func (l *Solarization) Build(in []ops.Shape) error {
	if err := buildColorImage(in); err != nil {
		return err
	}
	l.generator(l.name)
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Solarization) Call(in []ops.Tensor, training bool) ops.Tensor {
	return onImages(l, in[0], func(x ops.Tensor) ops.Tensor {
		if !training {
			return x
		}
		gen, per := l.generator(l.name), ops.Shape{x.Shape()[0], 1, 1, 1}
		add := drawPerImage(x, per, float32(l.addition[0]), float32(l.addition[1]*255), gen)
		thr := drawPerImage(x, per, float32(l.threshold[0]), float32(l.threshold[1]*255), gen)
		return solarizeImages(x, add, thr, l.vr)
	})
}

// solarizeImages is Keras' transform_images for additions and thresholds
// (batch, 1, 1, 1) on the 0..255 scale.
func solarizeImages(x, additions, thresholds ops.Tensor, vr [2]float64) ops.Tensor {
	y := ops.Clip(ops.Add(toValueRange(x, vr, byteRange), additions), 0, 255)
	y = ops.Select(ops.Less(y, thresholds), y, ops.Sub(x.Trace().Scalar(255), y))
	return toValueRange(y, byteRange, vr)
}

// GetConfig implements Layer.
func (l *Solarization) GetConfig() map[string]any {
	m := l.baseConfig()
	m["addition_factor"] = pairConfig(l.addition)
	m["threshold_factor"] = pairConfig(l.threshold)
	m["value_range"] = pairConfig(l.vr)
	m["seed"] = seedConfig(l.cfg)
	m["data_format"] = "channels_last"
	return m
}
