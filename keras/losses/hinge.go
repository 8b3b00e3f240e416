package losses

import "github.com/gokeras/gokeras/ops"

// hingeLabels converts labels that are all 0 or 1 to -1 and 1 (2y-1),
// leaving other labels as they are: Keras decides this on the values, so
// it is an op of its own, run after the labels are known.
func hingeLabels(y ops.Tensor) ops.Tensor {
	return ops.ApplyOp("HingeLabels", nil, y.Shape(), func(o []float32, in [][]float32) {
		binary := true
		for _, v := range in[0] {
			binary = binary && (v == 0 || v == 1)
		}
		for i, v := range in[0] {
			if binary {
				v = 2*v - 1
			}
			o[i] = v
		}
	}, nil, y)
}

// Hinge is keras.losses.Hinge: mean over the last axis of
// max(1 - y_true*y_pred, 0). Labels are -1 or 1; labels that are all 0 or
// 1 are converted to -1 and 1 first, as Keras does.
//
//	keras.losses.Hinge()
//	losses.NewHinge()
type Hinge struct{ elementLoss }

// NewHinge makes the loss. Options: Reduction, Name.
func NewHinge(opts ...Option) *Hinge {
	b, _ := newConfig("Hinge", "hinge", nil, opts)
	l := &Hinge{}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = hingeLabels(l.matchLabels(yTrue, yPred))
		return ops.Mean(ops.Relu(ops.OneMinus(ops.Mul(yTrue, yPred))), false, -1)
	}}
	return l
}

// SquaredHinge is keras.losses.SquaredHinge: mean over the last axis of
// max(1 - y_true*y_pred, 0)², labels as for [Hinge].
//
//	keras.losses.SquaredHinge()
//	losses.NewSquaredHinge()
type SquaredHinge struct{ elementLoss }

// NewSquaredHinge makes the loss. Options: Reduction, Name.
func NewSquaredHinge(opts ...Option) *SquaredHinge {
	b, _ := newConfig("SquaredHinge", "squared_hinge", nil, opts)
	l := &SquaredHinge{}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = hingeLabels(l.matchLabels(yTrue, yPred))
		return ops.Mean(ops.Square(ops.Relu(ops.OneMinus(ops.Mul(yTrue, yPred)))), false, -1)
	}}
	return l
}

// CategoricalHinge is keras.losses.CategoricalHinge: max(neg - pos + 1, 0)
// with pos = sum(y_true*y_pred) and neg = max((1-y_true)*y_pred) over the
// last axis, for one-hot labels.
//
//	keras.losses.CategoricalHinge()
//	losses.NewCategoricalHinge()
type CategoricalHinge struct{ elementLoss }

// NewCategoricalHinge makes the loss. Options: Reduction, Name.
func NewCategoricalHinge(opts ...Option) *CategoricalHinge {
	b, _ := newConfig("CategoricalHinge", "categorical_hinge", nil, opts)
	l := &CategoricalHinge{}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.matchLabels(yTrue, yPred)
		pos := ops.Sum(ops.Mul(yTrue, yPred), false, -1)
		neg := ops.Max(ops.Mul(ops.OneMinus(yTrue), yPred), false, -1)
		return ops.Relu(ops.AddScalar(ops.Sub(neg, pos), 1))
	}}
	return l
}
