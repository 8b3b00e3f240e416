package losses_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/ops"
)

var (
	sparseLogits = [][]float64{{1, 2, 0.5, -1}, {0.3, -0.2, 2.5, 0}, {-1, -1, -1, 3}}
	sparseLabels = []int{1, 2, 0}
)

func labelsF(ls []int) []float64 {
	out := make([]float64, len(ls))
	for i, l := range ls {
		out[i] = float64(l)
	}
	return out
}

func TestSparseCategoricalCrossentropyByHand(t *testing.T) {
	// p(true) is 0.75 and 0.5: losses -ln 0.75 and ln 2.
	for _, r := range []struct {
		red   losses.ReductionKind
		shape ops.Shape
		want  []float64
	}{
		{losses.ReductionNone, shp(2), []float64{0.28768207245178085, 0.6931471805599453}},
		{losses.ReductionSum, shp(), []float64{0.28768207245178085 + 0.6931471805599453}},
		{losses.ReductionSumOverBatchSize, shp(), []float64{(0.28768207245178085 + 0.6931471805599453) / 2}},
	} {
		loss := losses.NewSparseCategoricalCrossentropy(losses.Reduction(r.red))
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(2), 1, 0), c(tr, shp(2, 2), 0.25, 0.75, 0.5, 0.5))
		})
		closeTo(t, string(r.red), got, r.shape, r.want, 1e-6)
	}
}

func TestSparseCategoricalCrossentropy(t *testing.T) {
	logits := flat(sparseLogits...)
	labels := labelsF(sparseLabels)
	want := refSparseLogits(sparseLabels, sparseLogits)

	t.Run("FromLogits", func(t *testing.T) {
		loss := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true), losses.Reduction(losses.ReductionNone))
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(3), labels...), c(tr, shp(3, 4), logits...))
		})
		closeTo(t, "per example", got, shp(3), want, 1e-5)
	})
	t.Run("LabelsColumn", func(t *testing.T) {
		loss := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(3, 1), labels...), c(tr, shp(3, 4), logits...))
		})
		closeTo(t, "mean", got, shp(), []float64{mean(want)}, 1e-5)
	})
	t.Run("SoftmaxShortcut", func(t *testing.T) {
		loss := losses.NewSparseCategoricalCrossentropy(losses.Reduction(losses.ReductionNone))
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(3), labels...), ops.Softmax(c(tr, shp(3, 4), logits...)))
		})
		closeTo(t, "softmax input", got, shp(3), want, 1e-5)
	})
	t.Run("Probabilities", func(t *testing.T) {
		// Unnormalised probabilities are renormalised: 0.4/0.8 gives ln 2.
		probs := [][]float64{{0.2, 0.2, 0.4}, {0.1, 0.7, 0.2}, {0, 1, 0}}
		lab := []int{2, 1, 0}
		loss := losses.NewSparseCategoricalCrossentropy(losses.Reduction(losses.ReductionNone))
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(3), labelsF(lab)...), c(tr, shp(3, 3), flat(probs...)...))
		})
		want := refSparseProbs(lab, probs)
		if math.Abs(want[0]-math.Ln2) > 1e-6 {
			t.Fatalf("reference %v, want ln 2", want[0])
		}
		closeTo(t, "probabilities", got, shp(3), want, 1e-5)
		if got.Data[2] < 15 || got.Data[2] > 17 {
			t.Errorf("p(true)=0 gives %v, want about -ln(1e-7) = 16.1", got.Data[2])
		}
	})
	t.Run("Extreme", func(t *testing.T) {
		ext := []float64{100, -100, 0, -100, 100, -100}
		lab := []int{1, 1}
		want := refSparseLogits(lab, [][]float64{ext[:3], ext[3:]}) // 200, 0
		for _, fromLogits := range []bool{true, false} {
			loss := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(fromLogits), losses.Reduction(losses.ReductionNone))
			got := run(t, func(tr *ops.Trace) ops.Tensor {
				z := c(tr, shp(2, 3), ext...)
				if !fromLogits {
					z = ops.Softmax(z)
				}
				return loss.Call(c(tr, shp(2), labelsF(lab)...), z)
			})
			closeTo(t, "extreme", got, shp(2), want, 1e-5)
		}
	})
	t.Run("Rank3", func(t *testing.T) {
		// (2, 2, 3) predictions, (2, 2) labels: per-position losses.
		rows := [][]float64{{1, 0, 0}, {0, 2, 1}, {3, 1, 1}, {0, 0, 0}}
		lab := []int{0, 2, 1, 1}
		loss := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true), losses.Reduction(losses.ReductionNone))
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(2, 2), labelsF(lab)...), c(tr, shp(2, 2, 3), flat(rows...)...))
		})
		closeTo(t, "rank 3", got, shp(2, 2), refSparseLogits(lab, rows), 1e-5)
	})
	t.Run("BadLabel", func(t *testing.T) {
		loss := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))
		err := runErr(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(2), 0, 7), c(tr, shp(2, 3), 0, 0, 0, 0, 0, 0))
		})
		if err == nil || !strings.Contains(err.Error(), "7") {
			t.Errorf("label 7 of 3 classes: error %v", err)
		}
	})
}

func TestCategoricalCrossentropy(t *testing.T) {
	ys := [][]float64{{0, 1, 0}, {0, 0, 1}, {0.2, 0.3, 0.5}}
	zs := [][]float64{{2, 1, 0.1}, {-1, 0.5, 3}, {0, 0, 0}}
	y, z := flat(ys...), flat(zs...)
	none := losses.Reduction(losses.ReductionNone)

	t.Run("ByHand", func(t *testing.T) {
		loss := losses.NewCategoricalCrossentropy(none)
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(2, 3), 0, 1, 0, 0, 0, 1), c(tr, shp(2, 3), 0.1, 0.6, 0.3, 0.3, 0.3, 0.4))
		})
		closeTo(t, "by hand", got, shp(2), []float64{-math.Log(0.6), -math.Log(0.4)}, 1e-6)
	})
	t.Run("FromLogits", func(t *testing.T) {
		loss := losses.NewCategoricalCrossentropy(losses.FromLogits(true), none)
		got := run(t, func(tr *ops.Trace) ops.Tensor { return loss.Call(c(tr, shp(3, 3), y...), c(tr, shp(3, 3), z...)) })
		closeTo(t, "logits", got, shp(3), refCCELogits(ys, zs), 1e-5)
	})
	t.Run("SoftmaxShortcut", func(t *testing.T) {
		loss := losses.NewCategoricalCrossentropy(none)
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(3, 3), y...), ops.Softmax(c(tr, shp(3, 3), z...)))
		})
		closeTo(t, "softmax input", got, shp(3), refCCELogits(ys, zs), 1e-5)
	})
	t.Run("Probabilities", func(t *testing.T) {
		ps := [][]float64{{0.2, 0.5, 0.1}, {0.3, 0.3, 0.4}, {0, 1, 0}}
		loss := losses.NewCategoricalCrossentropy(none)
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(3, 3), y...), c(tr, shp(3, 3), flat(ps...)...))
		})
		closeTo(t, "probabilities", got, shp(3), refCCEProbs(ys, ps), 1e-5)
	})
	t.Run("LabelSmoothing", func(t *testing.T) {
		sm := smoothCat(ys, 0.1)
		for _, fromLogits := range []bool{true, false} {
			loss := losses.NewCategoricalCrossentropy(losses.FromLogits(fromLogits), losses.LabelSmoothing(0.1))
			got := run(t, func(tr *ops.Trace) ops.Tensor {
				p := c(tr, shp(3, 3), z...)
				if !fromLogits {
					p = ops.Softmax(p)
				}
				return loss.Call(c(tr, shp(3, 3), y...), p)
			})
			closeTo(t, "smoothed", got, shp(), []float64{mean(refCCELogits(sm, zs))}, 1e-5)
		}
		// On plain probabilities too.
		ps := [][]float64{{0.2, 0.5, 0.3}, {0.3, 0.3, 0.4}, {0.1, 0.1, 0.8}}
		loss := losses.NewCategoricalCrossentropy(losses.LabelSmoothing(0.3), losses.Reduction(losses.ReductionSum))
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(3, 3), y...), c(tr, shp(3, 3), flat(ps...)...))
		})
		closeTo(t, "smoothed probabilities", got, shp(), []float64{sum(refCCEProbs(smoothCat(ys, 0.3), ps))}, 1e-5)
	})
	t.Run("Extreme", func(t *testing.T) {
		ez := [][]float64{{100, -100, 0}, {-100, -100, 100}}
		ey := [][]float64{{0, 1, 0}, {0, 0, 1}}
		want := refCCELogits(ey, ez) // 200, 0
		for _, fromLogits := range []bool{true, false} {
			loss := losses.NewCategoricalCrossentropy(losses.FromLogits(fromLogits), none)
			got := run(t, func(tr *ops.Trace) ops.Tensor {
				p := c(tr, shp(2, 3), flat(ez...)...)
				if !fromLogits {
					p = ops.Softmax(p)
				}
				return loss.Call(c(tr, shp(2, 3), flat(ey...)...), p)
			})
			closeTo(t, "extreme", got, shp(2), want, 1e-5)
		}
		// Saturated plain probabilities are clipped: finite.
		loss := losses.NewCategoricalCrossentropy(none)
		got := run(t, func(tr *ops.Trace) ops.Tensor { return loss.Call(c(tr, shp(1, 2), 1, 0), c(tr, shp(1, 2), 0, 1)) })
		closeTo(t, "saturated", got, shp(1), []float64{-math.Log(eps)}, 1e-3)
	})
	t.Run("Axis0", func(t *testing.T) {
		// Classes on axis 0: the transposed problem gives the same losses.
		ps := [][]float64{{0.2, 0.5, 0.1}, {0.3, 0.3, 0.4}, {0.1, 0.6, 0.3}}
		tp := func(m [][]float64) []float64 {
			var out []float64
			for j := range m[0] {
				for i := range m {
					out = append(out, m[i][j])
				}
			}
			return out
		}
		loss := losses.NewCategoricalCrossentropy(losses.Axis(0), none)
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(3, 3), tp(ys)...), c(tr, shp(3, 3), tp(ps)...))
		})
		closeTo(t, "axis 0", got, shp(3), refCCEProbs(ys, ps), 1e-5)
		logits := losses.NewCategoricalCrossentropy(losses.Axis(0), losses.FromLogits(true))
		mustPanic(t, "logits on axis 0", "losses: CategoricalCrossentropy", func() {
			tr := ops.NewTrace(true, 0, 1)
			logits.Call(c(tr, shp(3, 3), y...), c(tr, shp(3, 3), z...))
		}, "(3, 3)")
		bad := losses.NewCategoricalCrossentropy(losses.Axis(2))
		mustPanic(t, "axis out of range", "losses: CategoricalCrossentropy", func() {
			tr := ops.NewTrace(true, 0, 1)
			bad.Call(c(tr, shp(3, 3), y...), c(tr, shp(3, 3), z...))
		}, "axis 2", "(3, 3)")
	})
}

func TestBinaryCrossentropy(t *testing.T) {
	ys := [][]float64{{0, 1, 1}, {1, 0, 0.5}}
	xs := [][]float64{{-1, 2, 0.5}, {3, -0.3, 0}}
	y, x := flat(ys...), flat(xs...)
	none := losses.Reduction(losses.ReductionNone)

	t.Run("ByHand", func(t *testing.T) {
		// -(log 0.8 + log 0.7)/2 and -(log 0.9 + log 0.6)/2, up to the 1e-7 guards.
		loss := losses.NewBinaryCrossentropy(none)
		got := run(t, func(tr *ops.Trace) ops.Tensor {
			return loss.Call(c(tr, shp(2, 2), 0, 1, 1, 1), c(tr, shp(2, 2), 0.2, 0.7, 0.9, 0.6))
		})
		closeTo(t, "by hand", got, shp(2), []float64{-(math.Log(0.8) + math.Log(0.7)) / 2, -(math.Log(0.9) + math.Log(0.6)) / 2}, 1e-5)
	})
	for _, ls := range []float64{0, 0.2} {
		t.Run("FromLogits", func(t *testing.T) {
			loss := losses.NewBinaryCrossentropy(losses.FromLogits(true), losses.LabelSmoothing(ls), none)
			got := run(t, func(tr *ops.Trace) ops.Tensor { return loss.Call(c(tr, shp(2, 3), y...), c(tr, shp(2, 3), x...)) })
			closeTo(t, "logits", got, shp(2), refBCE(ys, xs, true, ls), 1e-5)
		})
		t.Run("SigmoidShortcut", func(t *testing.T) {
			loss := losses.NewBinaryCrossentropy(losses.LabelSmoothing(ls), none)
			got := run(t, func(tr *ops.Trace) ops.Tensor {
				return loss.Call(c(tr, shp(2, 3), y...), ops.Sigmoid(c(tr, shp(2, 3), x...)))
			})
			closeTo(t, "sigmoid input", got, shp(2), refBCE(ys, xs, true, ls), 1e-5)
		})
		t.Run("Probabilities", func(t *testing.T) {
			ps := [][]float64{{0.1, 0.8, 0.6}, {0.95, 0.2, 0.5}}
			loss := losses.NewBinaryCrossentropy(losses.LabelSmoothing(ls), none)
			got := run(t, func(tr *ops.Trace) ops.Tensor {
				return loss.Call(c(tr, shp(2, 3), y...), c(tr, shp(2, 3), flat(ps...)...))
			})
			closeTo(t, "probabilities", got, shp(2), refBCE(ys, ps, false, ls), 1e-5)
		})
	}
	t.Run("Extreme", func(t *testing.T) {
		ex := []float64{100, -100, -100, 100}
		ey := []float64{0, 1, 0, 1}
		for _, fromLogits := range []bool{true, false} {
			loss := losses.NewBinaryCrossentropy(losses.FromLogits(fromLogits), none)
			got := run(t, func(tr *ops.Trace) ops.Tensor {
				p := c(tr, shp(2, 2), ex...)
				if !fromLogits {
					p = ops.Sigmoid(p)
				}
				return loss.Call(c(tr, shp(2, 2), ey...), p)
			})
			closeTo(t, "extreme", got, shp(2), []float64{100, 0}, 1e-5)
		}
		loss := losses.NewBinaryCrossentropy(none)
		got := run(t, func(tr *ops.Trace) ops.Tensor { return loss.Call(c(tr, shp(1, 2), 0, 1), c(tr, shp(1, 2), 1, 0)) })
		// Keras 3: -log of the clipped probabilities, clipped in float32
		// (1-1e-7 rounds to 1-2^-23).
		lo, hi := float64(float32(eps)), float64(float32(1-eps))
		closeTo(t, "saturated", got, shp(1), []float64{-(math.Log(1-hi) + math.Log(lo)) / 2}, 1e-5)
	})
	t.Run("LabelsVector", func(t *testing.T) {
		// Labels (N,) against predictions (N, 1): one loss per example,
		// not an (N, N) broadcast.
		loss := losses.NewBinaryCrossentropy(losses.FromLogits(true), none)
		got := run(t, func(tr *ops.Trace) ops.Tensor { return loss.Call(c(tr, shp(3), 1, 0, 1), c(tr, shp(3, 1), 2, 1, -1)) })
		closeTo(t, "vector labels", got, shp(3), []float64{sigmoidXent(1, 2), sigmoidXent(0, 1), sigmoidXent(1, -1)}, 1e-5)
	})
	t.Run("Axis0", func(t *testing.T) {
		loss := losses.NewBinaryCrossentropy(losses.FromLogits(true), losses.Axis(0), none)
		got := run(t, func(tr *ops.Trace) ops.Tensor { return loss.Call(c(tr, shp(2, 3), y...), c(tr, shp(2, 3), x...)) })
		want := make([]float64, 3)
		for j := range want {
			want[j] = (sigmoidXent(ys[0][j], xs[0][j]) + sigmoidXent(ys[1][j], xs[1][j])) / 2
		}
		closeTo(t, "axis 0", got, shp(3), want, 1e-5)
	})
}

func TestRegression(t *testing.T) {
	// (2, 2, 2) predictions: per-example losses (2, 2).
	yt := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	yp := []float64{1.5, 2, 1, 4, 5, 9, 6, 8.25}
	var sq, ab []float64
	for i := 0; i < len(yt); i += 2 {
		d0, d1 := yp[i]-yt[i], yp[i+1]-yt[i+1]
		sq = append(sq, (d0*d0+d1*d1)/2)
		ab = append(ab, (math.Abs(d0)+math.Abs(d1))/2)
	}
	for _, tc := range []struct {
		name string
		mk   func(...losses.Option) losses.Loss
		want []float64
	}{
		{"mse", func(o ...losses.Option) losses.Loss { return losses.NewMeanSquaredError(o...) }, sq},
		{"mae", func(o ...losses.Option) losses.Loss { return losses.NewMeanAbsoluteError(o...) }, ab},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, func(tr *ops.Trace) ops.Tensor {
				return tc.mk(losses.Reduction(losses.ReductionNone)).Call(c(tr, shp(2, 2, 2), yt...), c(tr, shp(2, 2, 2), yp...))
			})
			closeTo(t, "none", got, shp(2, 2), tc.want, 1e-6)
			got = run(t, func(tr *ops.Trace) ops.Tensor {
				return tc.mk(losses.Reduction(losses.ReductionSum)).Call(c(tr, shp(2, 2, 2), yt...), c(tr, shp(2, 2, 2), yp...))
			})
			closeTo(t, "sum", got, shp(), []float64{sum(tc.want)}, 1e-6)
			// sum_over_batch_size divides by the 4 loss elements.
			got = run(t, func(tr *ops.Trace) ops.Tensor {
				return tc.mk().Call(c(tr, shp(2, 2, 2), yt...), c(tr, shp(2, 2, 2), yp...))
			})
			closeTo(t, "sum_over_batch_size", got, shp(), []float64{sum(tc.want) / 4}, 1e-6)
			// Labels (N,) against predictions (N, 1).
			got = run(t, func(tr *ops.Trace) ops.Tensor {
				return tc.mk(losses.Reduction(losses.ReductionNone)).Call(c(tr, shp(3), 1, 2, 3), c(tr, shp(3, 1), 2, 2, 1))
			})
			w := []float64{1, 0, 4}
			if tc.name == "mae" {
				w = []float64{1, 0, 2}
			}
			closeTo(t, "vector labels", got, shp(3), w, 1e-6)
		})
	}
}

func TestShapeMismatch(t *testing.T) {
	cases := []struct {
		name   string
		loss   losses.Loss
		yt, yp ops.Shape
	}{
		{"sparse batch", losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), shp(32), shp(64, 10)},
		{"sparse one-hot", losses.NewSparseCategoricalCrossentropy(), shp(4, 3), shp(4, 5)},
		{"categorical classes", losses.NewCategoricalCrossentropy(), shp(4, 3), shp(4, 5)},
		{"categorical logits", losses.NewCategoricalCrossentropy(losses.FromLogits(true)), shp(4), shp(4, 5)},
		{"binary", losses.NewBinaryCrossentropy(), shp(8, 2), shp(8, 1)},
		{"mse", losses.NewMeanSquaredError(), shp(8), shp(4, 2)},
		{"mae", losses.NewMeanAbsoluteError(), shp(3, 2), shp(3, 3)}, // (3, 1) broadcasts, as in Keras
	}
	for _, tc := range cases {
		kind := reflect.TypeOf(tc.loss).Elem().Name()
		mustPanic(t, tc.name, "losses: "+kind, func() {
			tr := ops.NewTrace(true, 0, 1)
			tc.loss.Call(tr.Constant(tc.yt, make([]float32, tc.yt.Size())), tr.Constant(tc.yp, make([]float32, tc.yp.Size())))
		}, tc.yt.String(), tc.yp.String())
	}
	// The message spells the expected labels for the sparse case.
	mustPanic(t, "sparse hint", "losses: SparseCategoricalCrossentropy", func() {
		tr := ops.NewTrace(true, 0, 1)
		losses.NewSparseCategoricalCrossentropy().Call(tr.Input("y", shp(32)), tr.Input("p", shp(64, 10)))
	}, "(32,)", "(64, 10)", "(64,)", "(64, 1)")
	// Scalars, none tensors and tensors of two traces.
	mustPanic(t, "scalar", "losses: MeanSquaredError", func() {
		tr := ops.NewTrace(true, 0, 1)
		losses.NewMeanSquaredError().Call(tr.Scalar(1), tr.Scalar(2))
	}, "scalar")
	mustPanic(t, "none", "losses: BinaryCrossentropy", func() {
		tr := ops.NewTrace(true, 0, 1)
		losses.NewBinaryCrossentropy().Call(ops.Tensor{}, tr.Scalar(2))
	}, "none")
	mustPanic(t, "traces", "losses: SparseCategoricalCrossentropy", func() {
		a, b := ops.NewTrace(true, 0, 1), ops.NewTrace(true, 0, 1)
		losses.NewSparseCategoricalCrossentropy().Call(a.Input("y", shp(2)), b.Input("p", shp(2, 3)))
	}, "different traces")
}

func TestOptions(t *testing.T) {
	mustPanic(t, "smoothing on sparse", "losses: SparseCategoricalCrossentropy", func() {
		losses.NewSparseCategoricalCrossentropy(losses.LabelSmoothing(0.1))
	}, "label_smoothing")
	mustPanic(t, "from_logits on mse", "losses: MeanSquaredError", func() {
		losses.NewMeanSquaredError(losses.FromLogits(true))
	}, "from_logits")
	mustPanic(t, "axis on mae", "losses: MeanAbsoluteError", func() { losses.NewMeanAbsoluteError(losses.Axis(0)) }, "axis")
	mustPanic(t, "smoothing range", "losses: BinaryCrossentropy", func() {
		losses.NewBinaryCrossentropy(losses.LabelSmoothing(1.5))
	}, "1.5")
	mustPanic(t, "smoothing NaN", "losses: CategoricalCrossentropy", func() {
		losses.NewCategoricalCrossentropy(losses.LabelSmoothing(math.NaN()))
	}, "NaN")
	mustPanic(t, "reduction", "losses: CategoricalCrossentropy", func() {
		losses.NewCategoricalCrossentropy(losses.Reduction("mean"))
	}, `"mean"`)
	if n := losses.NewMeanSquaredError(losses.Name("")).Name(); n != "mean_squared_error" {
		t.Errorf("empty Name: %q", n)
	}
	if n := losses.NewMeanSquaredError(losses.Name("mse_loss")).Name(); n != "mse_loss" {
		t.Errorf("Name: %q", n)
	}
}

func TestGetConfig(t *testing.T) {
	cases := []struct {
		loss losses.Loss
		want map[string]any
	}{
		{losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
			map[string]any{"name": "sparse_categorical_crossentropy", "reduction": "sum_over_batch_size", "from_logits": true}},
		{losses.NewCategoricalCrossentropy(losses.LabelSmoothing(0.1), losses.Reduction(losses.ReductionSum)),
			map[string]any{"name": "categorical_crossentropy", "reduction": "sum", "from_logits": false, "label_smoothing": 0.1, "axis": -1}},
		{losses.NewBinaryCrossentropy(losses.Name("bce"), losses.Reduction(losses.ReductionNone), losses.Axis(1)),
			map[string]any{"name": "bce", "reduction": "none", "from_logits": false, "label_smoothing": 0.0, "axis": 1}},
		{losses.NewMeanSquaredError(), map[string]any{"name": "mean_squared_error", "reduction": "sum_over_batch_size"}},
		{losses.NewMeanAbsoluteError(), map[string]any{"name": "mean_absolute_error", "reduction": "sum_over_batch_size"}},
	}
	for _, tc := range cases {
		if got := tc.loss.GetConfig(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: config %v, want %v", tc.loss.Name(), got, tc.want)
		}
		if tc.loss.GetReduction() != losses.ReductionKind(tc.want["reduction"].(string)) {
			t.Errorf("%s: GetReduction %q", tc.loss.Name(), tc.loss.GetReduction())
		}
	}
}

func TestGet(t *testing.T) {
	for name, want := range map[string]string{
		"sparse_categorical_crossentropy": "sparse_categorical_crossentropy",
		"SparseCategoricalCrossentropy":   "sparse_categorical_crossentropy",
		"categorical_crossentropy":        "categorical_crossentropy",
		"CategoricalCrossentropy":         "categorical_crossentropy",
		"binary_crossentropy":             "binary_crossentropy",
		"BinaryCrossentropy":              "binary_crossentropy",
		"mean_squared_error":              "mean_squared_error",
		"mse":                             "mean_squared_error",
		"MSE":                             "mean_squared_error",
		"MeanSquaredError":                "mean_squared_error",
		"mean_absolute_error":             "mean_absolute_error",
		"mae":                             "mean_absolute_error",
		"MAE":                             "mean_absolute_error",
		"MeanAbsoluteError":               "mean_absolute_error",
	} {
		l, err := losses.Get(name)
		if err != nil {
			t.Errorf("Get(%q): %v", name, err)
			continue
		}
		if l.Name() != want || l.GetReduction() != losses.ReductionSumOverBatchSize {
			t.Errorf("Get(%q): %s %s", name, l.Name(), l.GetReduction())
		}
	}
	a, _ := losses.Get("mse")
	b, _ := losses.Get("mse")
	if a == b {
		t.Error("Get returns a shared loss")
	}
	l, err := losses.Get("sparse_categorical_crossentropy", losses.FromLogits(true), losses.Name("loss"))
	if err != nil || l.Name() != "loss" || l.GetConfig()["from_logits"] != true {
		t.Errorf("Get with options: %v %v", l, err)
	}
	if _, err := losses.Get("ctc"); err == nil || !strings.Contains(err.Error(), "ctc") || !strings.Contains(err.Error(), "mse") {
		t.Errorf("unknown loss: %v", err)
	}
	if _, err := losses.Get("mse", losses.FromLogits(true)); err == nil || !strings.Contains(err.Error(), "from_logits") {
		t.Errorf("option mse does not take: %v", err)
	}
}

func TestLossFunctionWrapper(t *testing.T) {
	sqErr := func(yt, yp ops.Tensor) ops.Tensor { return ops.Sum(ops.Square(ops.Sub(yp, yt)), false, -1) }
	l := losses.NewLossFunctionWrapper("sum_squared", sqErr, losses.Reduction(losses.ReductionSum))
	got := run(t, func(tr *ops.Trace) ops.Tensor {
		return l.Call(c(tr, shp(2, 2), 0, 0, 1, 1), c(tr, shp(2, 2), 1, 2, 1, 4))
	})
	closeTo(t, "wrapper", got, shp(), []float64{14}, 1e-6)
	if l.Name() != "sum_squared" || !reflect.DeepEqual(l.GetConfig(), map[string]any{"name": "sum_squared", "reduction": "sum"}) {
		t.Errorf("wrapper: %s %v", l.Name(), l.GetConfig())
	}
	mustPanic(t, "nil fn", "losses: LossFunctionWrapper", func() { losses.NewLossFunctionWrapper("x", nil) }, "nil")
	noneFn := losses.NewLossFunctionWrapper("none_fn", func(_, _ ops.Tensor) ops.Tensor { return ops.Tensor{} })
	mustPanic(t, "none result", "losses: LossFunctionWrapper", func() {
		tr := ops.NewTrace(true, 0, 1)
		noneFn.Call(tr.Scalar(0), tr.Scalar(0))
	}, "none_fn")
}
