package layers

import (
	"strconv"

	"github.com/gokeras/gokeras/ops"
)

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

// regConfig returns Keras' serialisation of a regularizer: nil when there
// is none, else its class name and factors.
func regConfig(r Regularizer) any {
	if r == nil {
		return nil
	}
	cfg := map[string]any{}
	if l, ok := r.(l1l2); ok {
		switch r.Name() {
		case "L1":
			cfg["l1"] = f64(l.l1)
		case "L2":
			cfg["l2"] = f64(l.l2)
		default:
			cfg["l1"], cfg["l2"] = f64(l.l1), f64(l.l2)
		}
	}
	return map[string]any{"class_name": r.Name(), "config": cfg}
}

// f64 widens x to the float64 it prints as (0.01, not 0.009999999776).
func f64(x float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return v
}
