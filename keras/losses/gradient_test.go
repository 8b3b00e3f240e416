package losses_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/ops"
)

// checkLossGrad compares the symbolic gradient of a scalar loss with
// respect to a variable x (initialised to init) with central differences of
// the loss computed by running the same program.
func checkLossGrad(t *testing.T, shape ops.Shape, init []float64, build func(tr *ops.Trace, x ops.Tensor) ops.Tensor) {
	t.Helper()
	f := make([]float32, len(init))
	for i, v := range init {
		f[i] = float32(v)
	}
	v := ops.NewVariable("x", shape, f, true)
	tr := ops.NewTrace(true, 0, 1)
	loss := build(tr, tr.Read(v))
	grads, err := ops.Gradients(loss, []*ops.Variable{v})
	if err != nil {
		t.Fatalf("Gradients: %v", err)
	}
	if grads[0].IsNone() {
		t.Fatal("no gradient")
	}
	p, err := engine.Compile(tr, []ops.Tensor{loss, grads[0]})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	analytic := append([]float32(nil), vals[1].Data...)
	lossAt := func() float64 {
		vals, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return float64(vals[0].Data[0])
	}
	const h = 1e-3
	data := v.Data(0)
	for j := range data {
		orig := data[j]
		data[j] = orig + h
		lp := lossAt()
		data[j] = orig - h
		lm := lossAt()
		data[j] = orig
		num := (lp - lm) / (2 * h)
		if got := float64(analytic[j]); math.Abs(got-num) > 2e-3*math.Max(1, math.Abs(num)) {
			t.Errorf("d loss/d x[%d] = %.6g, finite difference %.6g", j, got, num)
		}
	}
}

func TestGradients(t *testing.T) {
	logits := []float64{1, 2, 0.5, -1, 0.3, -0.2, 2.5, 0, -1, -1, -1, 3}
	probs := []float64{0.2, 0.5, 0.3, 0.6, 0.25, 0.4, 0.35, 0.7, 0.45, 0.3, 0.55, 0.25}
	sparse := func(tr *ops.Trace) ops.Tensor { return c(tr, shp(3), 1, 2, 0) }
	onehot := func(tr *ops.Trace) ops.Tensor { return c(tr, shp(3, 4), 0, 1, 0, 0, 0.2, 0.3, 0.5, 0, 0, 0, 0, 1) }
	binary := func(tr *ops.Trace) ops.Tensor { return c(tr, shp(3, 4), 0, 1, 1, 0, 1, 0, 0.5, 1, 0, 0, 1, 1) }
	s34 := shp(3, 4)
	cases := []struct {
		name string
		init []float64
		fn   func(tr *ops.Trace, x ops.Tensor) ops.Tensor
	}{
		{"SparseLogits", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)).Call(sparse(tr), x)
		}},
		{"SparseProbabilities", probs, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewSparseCategoricalCrossentropy(losses.Reduction(losses.ReductionSum)).Call(sparse(tr), x)
		}},
		{"SparseSoftmax", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewSparseCategoricalCrossentropy().Call(sparse(tr), ops.Softmax(x))
		}},
		{"CategoricalLogitsSmoothed", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewCategoricalCrossentropy(losses.FromLogits(true), losses.LabelSmoothing(0.2)).Call(onehot(tr), x)
		}},
		{"CategoricalProbabilities", probs, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewCategoricalCrossentropy().Call(onehot(tr), x)
		}},
		{"CategoricalProbabilitiesAxis0", probs, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewCategoricalCrossentropy(losses.Axis(0)).Call(onehot(tr), x)
		}},
		{"CategoricalSoftmax", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewCategoricalCrossentropy(losses.Reduction(losses.ReductionSum)).Call(onehot(tr), ops.Softmax(x))
		}},
		{"BinaryLogits", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewBinaryCrossentropy(losses.FromLogits(true)).Call(binary(tr), x)
		}},
		{"BinaryProbabilitiesSmoothed", probs, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewBinaryCrossentropy(losses.LabelSmoothing(0.1)).Call(binary(tr), x)
		}},
		{"BinarySigmoid", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewBinaryCrossentropy().Call(binary(tr), ops.Sigmoid(x))
		}},
		{"MeanSquaredError", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewMeanSquaredError().Call(binary(tr), x)
		}},
		{"MeanAbsoluteError", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			return losses.NewMeanAbsoluteError(losses.Reduction(losses.ReductionSum)).Call(binary(tr), x)
		}},
		{"ComputeAverageLoss", logits, func(tr *ops.Trace, x ops.Tensor) ops.Tensor {
			l := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true), losses.Reduction(losses.ReductionNone))
			return losses.ScaleRegularizationLoss(losses.ComputeAverageLoss(l.Call(sparse(tr), x), 6), 2)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkLossGrad(t, s34, tc.init, tc.fn) })
	}
}
