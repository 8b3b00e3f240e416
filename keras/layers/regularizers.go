package layers

import "github.com/gokeras/gokeras/ops"

// Regularizer is a penalty on a weight added to the model's loss, as
// keras.regularizers.
type Regularizer interface {
	Penalty(w ops.Tensor) ops.Tensor
	Name() string
}

type l1l2 struct{ l1, l2 float32 }

func (r l1l2) Penalty(w ops.Tensor) ops.Tensor {
	if r.l1 == 0 && r.l2 == 0 {
		// Keras' L1L2(0, 0) penalises nothing: a zero, not a missing loss.
		return w.Trace().Scalar(0)
	}
	var p ops.Tensor
	if r.l1 != 0 {
		p = ops.Scale(ops.Sum(ops.Abs(w), false), r.l1)
	}
	if r.l2 != 0 {
		q := ops.Scale(ops.Sum(ops.Square(w), false), r.l2)
		if p.IsNone() {
			p = q
		} else {
			p = ops.Add(p, q)
		}
	}
	return p
}

func (r l1l2) Name() string {
	switch {
	case r.l1 != 0 && r.l2 == 0:
		return "L1"
	case r.l1 == 0 && r.l2 != 0:
		return "L2"
	}
	return "L1L2"
}

// L1 penalises l * sum(|w|) (Keras' default l is 0.01).
func L1(l float32) Regularizer { return l1l2{l1: l} }

// L2 penalises l * sum(w²) (Keras' default l is 0.01).
func L2(l float32) Regularizer { return l1l2{l2: l} }

// L1L2 penalises l1 * sum(|w|) + l2 * sum(w²).
func L1L2(l1, l2 float32) Regularizer { return l1l2{l1: l1, l2: l2} }
