package layers

import (
	"github.com/gokeras/gokeras/ops"
)

// Average is keras.layers.Average: the elementwise mean of its inputs,
// which must have equal shapes (or broadcast, as in Keras): their sum in
// input order, divided by their count.
type Average struct{ Base }

// NewAverage makes an Average layer. Options: WithName.
func NewAverage(opts ...Option) *Average {
	l := &Average{}
	l.init("Average", nil, opts)
	return l
}

// Build implements Layer.
func (l *Average) Build(in []ops.Shape) error {
	if err := checkMergeArity("Average", len(in), 1, 0); err != nil {
		return err
	}
	l.built = true
	return nil
}

// Call implements Layer.
func (l *Average) Call(in []ops.Tensor, _ bool) ops.Tensor {
	mergeCall(l, in, 1, 0)
	y := in[0]
	for _, x := range in[1:] {
		y = ops.Add(y, x)
	}
	if len(in) == 1 {
		return y
	}
	// Keras divides by the count (output / len(inputs)); a product by
	// 1/n would round differently for counts other than powers of 2.
	return ops.Div(y, y.Trace().Scalar(float32(len(in))))
}

// GetConfig implements Layer.
func (l *Average) GetConfig() map[string]any { return l.baseConfig() }

// AverageTensors is keras.layers.average: Apply(NewAverage(), inputs...).
func AverageTensors(inputs ...*KerasTensor) *KerasTensor { return Apply(NewAverage(), inputs...) }
