package layers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// ReLU is keras.layers.ReLU: max(x, 0) by default; with options, x for
// threshold <= x < max_value, max_value above, negative_slope*(x-threshold)
// below the threshold.
type ReLU struct{ Base }

// NewReLU makes a ReLU layer. Options: WithMaxValue, WithNegativeSlope,
// WithThreshold; as in Keras, none of them may be negative.
func NewReLU(opts ...Option) *ReLU {
	l := &ReLU{}
	l.init("ReLU", []string{"max_value", "negative_slope", "threshold"}, opts)
	c := l.cfg
	for _, a := range []struct {
		key string
		v   float64
	}{{"max_value", c.maxValue}, {"negative_slope", c.alpha}, {"threshold", c.threshold}} {
		// The unset max_value is stored as -1 (no cap).
		if c.set[a.key] && !(a.v >= 0) && l.err == nil {
			l.err = fmt.Errorf("layers: ReLU %q: %s cannot be negative, got %v", l.name, a.key, a.v)
		}
	}
	return l
}

// Build implements Layer.
func (l *ReLU) Build([]ops.Shape) error { l.built = true; return nil }

// Call implements Layer.
func (l *ReLU) Call(in []ops.Tensor, _ bool) ops.Tensor {
	c := l.cfg
	x := in[0]
	if c.alpha == 0 && c.threshold == 0 && c.maxValue < 0 {
		return ops.Relu(x)
	}
	// General form composed from ops: f(x) = min(max(x, t) , m) on the
	// linear part plus a slope below t.
	t := float32(c.threshold)
	y := ops.AddScalar(ops.Relu(ops.AddScalar(x, -t)), t)
	y = ops.Mul(y, stepAbove(x, t))
	if c.alpha != 0 {
		y = ops.Add(y, ops.Scale(ops.Neg(ops.Relu(ops.Neg(ops.AddScalar(x, -t)))), float32(c.alpha)))
	}
	if c.maxValue >= 0 {
		y = ops.Clip(y, float32(math.Inf(-1)), float32(c.maxValue))
	}
	return y
}

// stepAbove is 1 where x >= t, else 0 (a constant mask without gradient).
func stepAbove(x ops.Tensor, t float32) ops.Tensor {
	return ops.ApplyOp("StepAbove", t, x.Shape(), func(o []float32, in [][]float32) {
		for i, v := range in[0] {
			if v >= t {
				o[i] = 1
			} else {
				o[i] = 0
			}
		}
	}, nil, x)
}

// GetConfig implements Layer.
func (l *ReLU) GetConfig() map[string]any {
	m := l.baseConfig()
	if l.cfg.maxValue >= 0 {
		m["max_value"] = l.cfg.maxValue
	} else {
		m["max_value"] = nil
	}
	m["negative_slope"] = l.cfg.alpha
	m["threshold"] = l.cfg.threshold
	return m
}
