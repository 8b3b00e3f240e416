package metrics

import (
	"math"

	"github.com/gokeras/gokeras/ops"
)

// MeanSquaredError is the mean of (y_pred - y_true)^2. Labels and
// predictions have the same shape (or differ by a trailing axis of size 1).
type MeanSquaredError struct{ labelMetric }

// NewMeanSquaredError makes the metric, named "mean_squared_error".
// Options: Name.
func NewMeanSquaredError(opts ...Option) *MeanSquaredError {
	c := newConfig("MeanSquaredError", "mean_squared_error", nil, opts)
	m := &MeanSquaredError{}
	m.init("MeanSquaredError", c, sameShape, func(t, p []float32, _, ps ops.Shape) (float64, int, int, error) {
		var s float64
		for i := range p {
			d := float64(p[i]) - float64(t[i])
			s += d * d
		}
		return s, len(p), examplesOf(ps), nil
	}, nil)
	return m
}

// MeanAbsoluteError is the mean of |y_pred - y_true|. Labels and
// predictions have the same shape (or differ by a trailing axis of size 1).
type MeanAbsoluteError struct{ labelMetric }

// NewMeanAbsoluteError makes the metric, named "mean_absolute_error".
// Options: Name.
func NewMeanAbsoluteError(opts ...Option) *MeanAbsoluteError {
	c := newConfig("MeanAbsoluteError", "mean_absolute_error", nil, opts)
	m := &MeanAbsoluteError{}
	m.init("MeanAbsoluteError", c, sameShape, func(t, p []float32, _, ps ops.Shape) (float64, int, int, error) {
		var s float64
		for i := range p {
			s += math.Abs(float64(p[i]) - float64(t[i]))
		}
		return s, len(p), examplesOf(ps), nil
	}, nil)
	return m
}
