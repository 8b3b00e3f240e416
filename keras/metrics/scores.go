package metrics

import (
	"fmt"
	"math"
	"slices"

	"github.com/gokeras/gokeras/ops"
)

// rank2 accepts labels and predictions of shape (N, K) (labels (N,)
// against predictions (N, 1) too), as R2Score and F1Score need.
func rank2(ts, ps ops.Shape) error {
	if err := sameShape(ts, ps); err != nil {
		return err
	}
	if len(ps) != 2 {
		return fmt.Errorf("predictions must have shape (batch, outputs), got %v", ps)
	}
	return nil
}

// R2Score is keras.metrics.R2Score, the coefficient of determination
// 1 - sum((y - ŷ)²) / sum((y - mean(y))²) of each output over every
// example seen, combined by ClassAggregation, and adjusted for
// NumRegressors when it is not 0. Labels and predictions have shape
// (batch, outputs).
//
//	keras.metrics.R2Score(class_aggregation="variance_weighted_average")
//	metrics.NewR2Score(metrics.ClassAggregation("variance_weighted_average"))
type R2Score struct{ sumsMetric }

// NewR2Score makes the metric, named "r2_score". Options:
// ClassAggregation (default "uniform_average"), NumRegressors, Name.
func NewR2Score(opts ...Option) *R2Score {
	c := newConfig("R2Score", "r2_score", []string{"class_aggregation", "num_regressors"}, withMoreDefaults(opts))
	agg, nreg := c.more.classAggregation, c.more.numRegressors
	if agg != "" && agg != "uniform_average" && agg != "variance_weighted_average" {
		fail("R2Score", "class_aggregation %q: want \"uniform_average\", \"variance_weighted_average\" or \"\" (None)", agg)
	}
	if nreg < 0 {
		fail("R2Score", "num_regressors %d must be >= 0", nreg)
	}
	var aggCfg any = agg
	if agg == "" {
		aggCfg = nil
	}
	// state: num_samples, then squared_sum, sum, total_mse, count per output
	return &R2Score{sumsMetric{kind: "R2Score", name: c.name, check: rank2,
		cfg: map[string]any{"class_aggregation": aggCfg, "num_regressors": nreg},
		accumulate: func(st []float64, t, p []float32, _, ps ops.Shape, w []float32) ([]float64, error) {
			k := ps[1]
			if st == nil {
				st = make([]float64, 1+4*k)
			}
			if len(st) != 1+4*k {
				return st, fmt.Errorf("predictions of shape %v after updates with %d outputs", ps, (len(st)-1)/4)
			}
			sq, sum, mse, cnt := st[1:1+k], st[1+k:1+2*k], st[1+2*k:1+3*k], st[1+3*k:]
			wt := weightOf(w, len(p))
			for i := range p {
				j := i % k
				y, wi := float64(t[i]), wt(i)
				sum[j] += y * wi
				sq[j] += y * y * wi
				d := y - float64(p[i])
				mse[j] += d * d * wi
				cnt[j] += wi
			}
			st[0] += float64(len(p)) // Keras counts elements, not rows
			return st, nil
		},
		results: func(st []float64) []float64 {
			if len(st) < 5 || (len(st)-1)%4 != 0 {
				return nil
			}
			k := (len(st) - 1) / 4
			sq, sum, mse, cnt := st[1:1+k], st[1+k:1+2*k], st[1+2*k:1+3*k], st[1+3*k:]
			raw, total := make([]float64, k), make([]float64, k)
			for j := range raw {
				mean := sum[j] / cnt[j]
				total[j] = sq[j] - sum[j]*mean
				raw[j] = 1 - mse[j]/total[j]
				if math.IsInf(raw[j], 0) {
					raw[j] = 0
				}
			}
			var r2 float64
			switch agg {
			case "uniform_average":
				for _, v := range raw {
					r2 += v
				}
				r2 /= float64(k)
			case "variance_weighted_average":
				var ws, sw float64
				for j, v := range raw {
					ws += total[j] * v
					sw += total[j]
				}
				r2 = ws / sw
			default:
				return raw
			}
			if n, p := st[0], float64(nreg); nreg != 0 && p < n-1 {
				r2 = 1 - (1-r2)*(n-1)/(n-p-1)
			}
			return []float64{r2}
		}}}
}

// F1Score is keras.metrics.F1Score: 2PR/(P+R) from the precision P and
// recall R of each class over every example seen, for one-hot labels and
// predictions of shape (batch, classes). A prediction counts as 1 where it
// is above Threshold, or, without one (Keras' default None), where it is
// its row's maximum (and not 0).
//
//	keras.metrics.F1Score(average="macro", threshold=0.5)
//	metrics.NewF1Score(metrics.Average("macro"), metrics.Threshold(0.5))
//
// With Average "" (Keras' None, the default) Keras' result is one score
// per class: Results returns them, and Result, the number Fit logs, is
// their mean.
type F1Score struct{ sumsMetric }

// NewF1Score makes the metric, named "f1_score". Options: Average
// ("micro", "macro", "weighted" or "", the default), Threshold (in
// (0, 1]; default none, the argmax), Name.
func NewF1Score(opts ...Option) *F1Score {
	c := newConfig("F1Score", "f1_score", []string{"average", "threshold"}, withMoreDefaults(opts))
	avg := c.more.average
	if avg != "" && avg != "micro" && avg != "macro" && avg != "weighted" {
		fail("F1Score", "average %q: want \"micro\", \"macro\", \"weighted\" or \"\" (None)", avg)
	}
	hasThreshold := slices.Contains(c.set, "threshold")
	th := c.threshold
	if hasThreshold && !(th > 0 && th <= 1) {
		fail("F1Score", "threshold %v must be in (0, 1]", th)
	}
	cfg := map[string]any{"average": nil, "threshold": nil}
	if avg != "" {
		cfg["average"] = avg
	}
	if hasThreshold {
		cfg["threshold"] = th
	}
	// state: true_positives, false_positives, false_negatives,
	// intermediate_weights, each one per class (one in all for micro)
	return &F1Score{sumsMetric{kind: "F1Score", name: c.name, check: rank2, cfg: cfg,
		accumulate: func(st []float64, t, p []float32, _, ps ops.Shape, w []float32) ([]float64, error) {
			k := ps[1]
			per := k
			if avg == "micro" {
				per = 1
			}
			if st == nil {
				st = make([]float64, 4*per)
			}
			if len(st) != 4*per || avg != "micro" && len(st) != 4*k {
				return st, fmt.Errorf("predictions of shape %v after updates with %d classes", ps, len(st)/4)
			}
			tp, fp, fn, iw := st[:per], st[per:2*per], st[2*per:3*per], st[3*per:]
			rows := len(p) / k
			for r := 0; r < rows; r++ {
				row, lab := p[r*k:(r+1)*k], t[r*k:(r+1)*k]
				mx := float32(math.Inf(-1))
				for _, v := range row {
					mx = max(mx, v)
				}
				wi := 1.0
				if w != nil {
					wi = float64(w[r])
				}
				for j, v := range row {
					var yp float64
					if hasThreshold {
						if v > float32(th) {
							yp = 1
						}
					} else if v >= mx && math.Abs(float64(v)) > 1e-9 {
						yp = 1
					}
					y := float64(lab[j])
					o := j % per
					tp[o] += yp * y * wi
					fp[o] += yp * (1 - y) * wi
					fn[o] += (1 - yp) * y * wi
					iw[o] += y * wi
				}
			}
			return st, nil
		},
		results: func(st []float64) []float64 {
			if len(st) == 0 || len(st)%4 != 0 {
				return nil
			}
			per := len(st) / 4
			tp, fp, fn, iw := st[:per], st[per:2*per], st[2*per:3*per], st[3*per:]
			f := make([]float64, per)
			var sumW float64
			for j := range f {
				prec := tp[j] / (tp[j] + fp[j] + 1e-7)
				rec := tp[j] / (tp[j] + fn[j] + 1e-7)
				f[j] = 2 * prec * rec / (prec + rec + 1e-7)
				sumW += iw[j]
			}
			switch avg {
			case "weighted":
				var s float64
				for j := range f {
					s += f[j] * iw[j] / (sumW + 1e-7)
				}
				return []float64{s}
			case "micro", "macro":
				var s float64
				for _, v := range f {
					s += v
				}
				return []float64{s / float64(len(f))}
			}
			return f
		}}}
}

// MeanIoU is keras.metrics.MeanIoU: from the confusion matrix of every
// example seen, the intersection over union TP / (TP + FP + FN) of each
// class, averaged over the classes that occur (among TargetClassIDs).
// Labels and predictions are class ids (SparseYTrue, SparseYPred true, the
// default) or scores along the last axis; ids outside [0, NumClasses) and
// IgnoreClass are left out.
//
//	keras.metrics.MeanIoU(num_classes=3, sparse_y_pred=False)
//	metrics.NewMeanIoU(metrics.NumClasses(3), metrics.SparseYPred(false))
type MeanIoU struct{ sumsMetric }

// NewMeanIoU makes the metric, named "mean_io_u". Options: NumClasses
// (required), TargetClassIDs, IgnoreClass, SparseYTrue, SparseYPred, Axis
// (-1 only), Name.
func NewMeanIoU(opts ...Option) *MeanIoU {
	c := newConfig("MeanIoU", "mean_io_u", []string{"num_classes", "target_class_ids", "ignore_class", "sparse_y_true", "sparse_y_pred", "axis"},
		withMoreDefaults(opts))
	mc := c.more
	n := mc.numClasses
	if n < 1 || n > 1<<12 {
		fail("MeanIoU", "num_classes %d: want 1 to 4096", n)
	}
	if mc.axis != -1 {
		fail("MeanIoU", "axis %d: only the last axis (-1) is supported", mc.axis)
	}
	targets := mc.targetClassIDs
	if targets == nil {
		for i := range n {
			targets = append(targets, i)
		}
	}
	for _, id := range targets {
		if id < 0 || id >= n {
			fail("MeanIoU", "target class id %d is not a class of %d", id, n)
		}
	}
	cfg := map[string]any{"num_classes": n, "ignore_class": nil, "sparse_y_true": mc.sparseYTrue, "sparse_y_pred": mc.sparseYPred,
		"axis": -1, "target_class_ids": intsToAny(targets)}
	if mc.ignoreClass != nil {
		cfg["ignore_class"] = *mc.ignoreClass
	}
	// ids returns the class ids of v (shape s): the values, or the argmax
	// of each row of the last axis.
	ids := func(v []float32, s ops.Shape, sparse bool) []int {
		if sparse {
			out := make([]int, len(v))
			for i, x := range v {
				out[i] = -1
				if x >= 0 && x < float32(n) {
					out[i] = int(x)
				}
			}
			return out
		}
		k := s[len(s)-1]
		out := make([]int, len(v)/k)
		for r := range out {
			out[r] = argmax(v[r*k : (r+1)*k])
		}
		return out
	}
	check := func(ts, ps ops.Shape) error {
		for _, x := range []struct {
			s      ops.Shape
			sparse bool
		}{{ts, mc.sparseYTrue}, {ps, mc.sparseYPred}} {
			if !x.sparse && (len(x.s) == 0 || x.s[len(x.s)-1] == 0) {
				return fmt.Errorf("scores of shape %v need a class axis", x.s)
			}
		}
		return nil
	}
	return &MeanIoU{sumsMetric{kind: "MeanIoU", name: c.name, check: check, cfg: cfg, state: make([]float64, n*n),
		accumulate: func(st []float64, t, p []float32, ts, ps ops.Shape, w []float32) ([]float64, error) {
			yt, yp := ids(t, ts, mc.sparseYTrue), ids(p, ps, mc.sparseYPred)
			if len(yt) != len(yp) {
				return st, fmt.Errorf("labels of shape %v give %d class ids, predictions of shape %v %d", ts, len(yt), ps, len(yp))
			}
			if st == nil {
				st = make([]float64, n*n)
			}
			wt := weightOf(w, len(yt))
			for i := range yt {
				a, b := yt[i], yp[i]
				if a < 0 || b < 0 || mc.ignoreClass != nil && a == *mc.ignoreClass {
					continue
				}
				st[a*n+b] += wt(i)
			}
			return st, nil
		},
		results: func(st []float64) []float64 {
			if len(st) != n*n {
				return []float64{0}
			}
			var sum, valid float64
			for _, c := range targets {
				var row, col float64
				for j := 0; j < n; j++ {
					row += st[j*n+c] // predicted c
					col += st[c*n+j] // labelled c
				}
				tp := st[c*n+c]
				den := row + col - tp
				if den > 1e-9 {
					valid++
					sum += tp / (den + 1e-7)
				}
			}
			return []float64{sum / (valid + 1e-7)}
		}}}
}

func intsToAny(v []int) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

var (
	_ SampleWeighted = (*RootMeanSquaredError)(nil)
	_ SampleWeighted = (*R2Score)(nil)
	_ SampleWeighted = (*F1Score)(nil)
	_ SampleWeighted = (*MeanIoU)(nil)
	_ Reducible      = (*RootMeanSquaredError)(nil)
	_ Reducible      = (*R2Score)(nil)
	_ Reducible      = (*F1Score)(nil)
	_ Reducible      = (*MeanIoU)(nil)
	_ Reducible      = (*Hinge)(nil)
	_ SampleWeighted = (*CosineSimilarity)(nil)
)
