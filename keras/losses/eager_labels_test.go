package losses_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// An eager tensor (ops.Zeros, ops.ConvertToTensor) used inside a traced
// step is a constant of that trace, as every op of package ops takes it:
// each loss given eager labels (or eager predictions) with symbolic
// predictions (labels) computes what it computes from the same values as
// constants of the trace.
func TestLossesTakeEagerTensorsInATrace(t *testing.T) {
	probs := []float32{0.2, 0.5, 0.3, 0.6, 0.1, 0.3}
	oneHot := []float32{0, 1, 0, 1, 0, 0}
	cases := []struct {
		loss          losses.Loss
		labels        []float32
		labelShape    ops.Shape
		eagerPreds    bool
		zerosAsLabels bool
	}{
		{loss: losses.NewMeanSquaredError(), zerosAsLabels: true},
		{loss: losses.NewMeanAbsoluteError(), labels: oneHot},
		{loss: losses.NewBinaryCrossentropy(), labels: oneHot},
		{loss: losses.NewCategoricalCrossentropy(), labels: oneHot},
		{loss: losses.NewSparseCategoricalCrossentropy(), labels: []float32{1, 0}, labelShape: ops.Shape{2}},
		{loss: losses.NewHuber(), zerosAsLabels: true},
		{loss: losses.NewCategoricalHinge(), labels: oneHot},
		{loss: losses.NewKLDivergence(), labels: oneHot},
		{loss: losses.NewCategoricalFocalCrossentropy(), labels: oneHot},
		{loss: losses.NewMeanSquaredError(), labels: oneHot, eagerPreds: true},
		{loss: losses.NewCategoricalCrossentropy(), labels: oneHot, eagerPreds: true},
	}
	for _, tc := range cases {
		shape := tc.labelShape
		if shape == nil {
			shape = ops.Shape{2, 3}
		}
		labels := tc.labels
		if tc.zerosAsLabels {
			labels = make([]float32, shape.Size())
		}
		name := fmt.Sprintf("%s eagerPreds=%v", tc.loss.Name(), tc.eagerPreds)
		eager := func(data []float32, s ops.Shape) ops.Tensor {
			if tc.zerosAsLabels {
				return ops.Zeros(s)
			}
			return ops.ConvertToTensor(tensor.New(tensor.WithShape(s...), tensor.WithBacking(append([]float32(nil), data...))))
		}
		want := run(t, func(tr *ops.Trace) ops.Tensor {
			return tc.loss.Call(tr.Constant(shape, labels), ops.Mul(tr.Constant(ops.Shape{2, 3}, probs), c(tr, nil, 1)))
		})
		var got ops.Value
		err := catch(func() {
			got = run(t, func(tr *ops.Trace) ops.Tensor {
				if tc.eagerPreds {
					return tc.loss.Call(ops.Mul(tr.Constant(shape, labels), c(tr, nil, 1)), eager(probs, ops.Shape{2, 3}))
				}
				return tc.loss.Call(eager(labels, shape), ops.Mul(tr.Constant(ops.Shape{2, 3}, probs), c(tr, nil, 1)))
			})
		})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(got.Data) != 1 || math.Abs(float64(got.Data[0]-want.Data[0])) > 1e-6 {
			t.Errorf("%s: %v; with constants of the trace %v", name, got.Data, want.Data)
		}
	}
}

// catch returns what f panics with, or nil.
func catch(f func()) (err any) {
	defer func() { err = recover() }()
	f()
	return nil
}
