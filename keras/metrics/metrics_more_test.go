package metrics_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
)

func v(shape ops.Shape, data ...float32) ops.Value { return ops.Value{Shape: shape, Data: data} }

// TestMetricsMoreOptions: bad settings panic with an *ops.Error, as Keras
// raises at construction; bad shapes are update errors.
func TestMetricsMoreOptions(t *testing.T) {
	for name, f := range map[string]func(){
		"f1 average":            func() { metrics.NewF1Score(metrics.Average("samples")) },
		"f1 threshold":          func() { metrics.NewF1Score(metrics.Threshold(0)) },
		"r2 aggregation":        func() { metrics.NewR2Score(metrics.ClassAggregation("mean")) },
		"r2 regressors":         func() { metrics.NewR2Score(metrics.NumRegressors(-1)) },
		"iou no classes":        func() { metrics.NewMeanIoU() },
		"iou target":            func() { metrics.NewMeanIoU(metrics.NumClasses(2), metrics.TargetClassIDs(2)) },
		"iou axis":              func() { metrics.NewMeanIoU(metrics.NumClasses(2), metrics.Axis(1)) },
		"cosine axis":           func() { metrics.NewCosineSimilarity(metrics.Axis(0)) },
		"rmse threshold":        func() { metrics.NewRootMeanSquaredError(metrics.Threshold(0.5)) },
		"hinge num_classes":     func() { metrics.NewHinge(metrics.NumClasses(2)) },
		"average on R2Score":    func() { metrics.NewR2Score(metrics.Average("macro")) },
		"logcosh sparse_y_true": func() { metrics.NewLogCoshError(metrics.SparseYTrue(false)) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: no panic", name)
				} else if _, ok := r.(*ops.Error); !ok {
					t.Errorf("%s: panic %v is not an *ops.Error", name, r)
				}
			}()
			f()
		}()
	}
	if err := metrics.NewR2Score().Update(v(ops.Shape{3}, 1, 2, 3), v(ops.Shape{3}, 1, 2, 3)); err == nil {
		t.Error("R2Score of rank-1 predictions: no error")
	}
	f1 := metrics.NewF1Score(metrics.Average("macro"))
	if err := f1.Update(v(ops.Shape{1, 2}, 1, 0), v(ops.Shape{1, 2}, 0.7, 0.3)); err != nil {
		t.Fatal(err)
	}
	if err := f1.Update(v(ops.Shape{1, 3}, 1, 0, 0), v(ops.Shape{1, 3}, 0.7, 0.3, 0)); err == nil {
		t.Error("F1Score with a different number of classes: no error")
	}
	if err := metrics.NewRootMeanSquaredError().Update(v(ops.Shape{2}, 1, 2), v(ops.Shape{3}, 1, 2, 3)); err == nil {
		t.Error("RMSE of mismatched shapes: no error")
	}
	if _, err := metrics.ConfigOptions(map[string]any{"average": 3.0}); err == nil {
		t.Error("ConfigOptions with a numeric average: no error")
	}
}

// TestMetricsMoreByHand checks small cases computed by hand, the state
// sums (Reducible) and ResetState.
func TestMetricsMoreByHand(t *testing.T) {
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	rmse := metrics.NewRootMeanSquaredError()
	rmse.Update(v(ops.Shape{2, 2}, 0, 0, 0, 0), v(ops.Shape{2, 2}, 1, 1, 3, 3))
	near("RMSE", rmse.Result(), math.Sqrt((1+1+9+9)/4.0))
	// halves of the data in two metrics: their summed states give the whole
	a, b := metrics.NewRootMeanSquaredError(), metrics.NewRootMeanSquaredError()
	a.Update(v(ops.Shape{1, 2}, 0, 0), v(ops.Shape{1, 2}, 1, 1))
	b.Update(v(ops.Shape{1, 2}, 0, 0), v(ops.Shape{1, 2}, 3, 3))
	sa, sb := a.State(), b.State()
	for i := range sa {
		sa[i] += sb[i]
	}
	near("RMSE of summed states", a.ResultOf(sa), rmse.Result())
	rmse.ResetState()
	near("RMSE after reset", rmse.Result(), 0)

	// R²: labels 1, 2, 3 (mean 2, total 2), predictions 1, 2, 4 (sse 1)
	r2 := metrics.NewR2Score()
	r2.Update(v(ops.Shape{3, 1}, 1, 2, 3), v(ops.Shape{3, 1}, 1, 2, 4))
	near("R2", r2.Result(), 0.5)

	// IoU of classes 0 and 1: labels 0 0 1 1, predictions 0 1 1 1:
	// class 0: tp 1, union 2 -> 0.5; class 1: tp 2, union 3 -> 2/3
	iou := metrics.NewMeanIoU(metrics.NumClasses(2))
	iou.Update(v(ops.Shape{4}, 0, 0, 1, 1), v(ops.Shape{4}, 0, 1, 1, 1))
	near("MeanIoU", iou.Result(), (0.5+2.0/3)/2)

	// F1, macro: argmax predictions 0, 1, 1 for labels 0, 1, 0
	f1 := metrics.NewF1Score(metrics.Average("macro"))
	f1.Update(v(ops.Shape{3, 2}, 1, 0, 0, 1, 1, 0), v(ops.Shape{3, 2}, 0.9, 0.1, 0.2, 0.8, 0.4, 0.6))
	// class 0: tp 1, fp 0, fn 1 -> p 1, r 0.5, f 2/3; class 1: tp 1, fp 1, fn 0 -> f 2/3
	near("F1 macro", f1.Result(), 2.0/3)

	cos := metrics.NewCosineSimilarity()
	cos.Update(v(ops.Shape{2, 2}, 1, 0, 0, 2), v(ops.Shape{2, 2}, 1, 1, 0, -3))
	near("CosineSimilarity", cos.Result(), (1/math.Sqrt2-1)/2)
}
