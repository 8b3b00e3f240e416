package losses_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/ops"
)

func TestReduce(t *testing.T) {
	data := []float64{1, 2, 3, 4, 5, 6}
	for _, tc := range []struct {
		r     losses.ReductionKind
		shape ops.Shape
		want  []float64
	}{
		{losses.ReductionNone, shp(2, 3), data},
		{losses.ReductionSum, shp(), []float64{21}},
		{losses.ReductionSumOverBatchSize, shp(), []float64{3.5}},
	} {
		got := run(t, func(tr *ops.Trace) ops.Tensor { return losses.Reduce(c(tr, shp(2, 3), data...), tc.r) })
		closeTo(t, string(tc.r), got, tc.shape, tc.want, 1e-6)
	}
	// A scalar loss reduces to itself.
	got := run(t, func(tr *ops.Trace) ops.Tensor { return losses.Reduce(tr.Scalar(2.5), losses.ReductionSumOverBatchSize) })
	closeTo(t, "scalar", got, shp(), []float64{2.5}, 0)
	mustPanic(t, "invalid", "losses: Reduce", func() {
		tr := ops.NewTrace(true, 0, 1)
		losses.Reduce(tr.Scalar(1), "avg")
	}, `"avg"`)
}

func TestParseReduction(t *testing.T) {
	for s, want := range map[string]losses.ReductionKind{
		"sum_over_batch_size": losses.ReductionSumOverBatchSize,
		"auto":                losses.ReductionSumOverBatchSize,
		"sum":                 losses.ReductionSum,
		"none":                losses.ReductionNone,
	} {
		got, err := losses.ParseReduction(s)
		if err != nil || got != want {
			t.Errorf("ParseReduction(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := losses.ParseReduction("mean"); err == nil || !strings.Contains(err.Error(), "mean") {
		t.Errorf("ParseReduction(mean): %v", err)
	}
	if losses.ReductionKind("auto").Valid() {
		t.Error(`"auto" is not a reduction of Keras 3`)
	}
}

func TestComputeAverageLoss(t *testing.T) {
	got := run(t, func(tr *ops.Trace) ops.Tensor { return losses.ComputeAverageLoss(c(tr, shp(4), 1, 2, 3, 4), 8) })
	closeTo(t, "average", got, shp(), []float64{10.0 / 8}, 1e-7)
	// Two replicas each holding half of a global batch of 6: the sum of
	// their average losses is the global mean.
	l := losses.NewMeanSquaredError(losses.Reduction(losses.ReductionNone))
	var total float64
	for _, half := range [][2][]float64{{{1, 2, 3}, {0, 0, 0}}, {{4, 5, 6}, {4, 4, 4}}} {
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return losses.ComputeAverageLoss(l.Call(c(tr, shp(3, 1), half[0]...), c(tr, shp(3, 1), half[1]...)), 6)
		})
		total += float64(got.Data[0])
	}
	if want := (1.0 + 4 + 9 + 0 + 1 + 4) / 6; total-want > 1e-6 || want-total > 1e-6 {
		t.Errorf("sum over replicas %v, want %v", total, want)
	}
	for _, n := range []int{0, -3} {
		mustPanic(t, "batch size", "losses: ComputeAverageLoss", func() {
			tr := ops.NewTrace(true, 0, 1)
			losses.ComputeAverageLoss(tr.Input("l", shp(5)), n)
		}, "(5,)")
	}
}

func TestScaleRegularizationLoss(t *testing.T) {
	got := run(t, func(tr *ops.Trace) ops.Tensor { return losses.ScaleRegularizationLoss(tr.Scalar(3), 4) })
	closeTo(t, "scaled", got, shp(), []float64{0.75}, 1e-7)
	got = run(t, func(tr *ops.Trace) ops.Tensor { return losses.ScaleRegularizationLoss(tr.Scalar(3), 1) })
	closeTo(t, "one replica", got, shp(), []float64{3}, 0)
	mustPanic(t, "replicas", "losses: ScaleRegularizationLoss", func() {
		tr := ops.NewTrace(true, 0, 1)
		losses.ScaleRegularizationLoss(tr.Scalar(1), 0)
	}, "0")
}
