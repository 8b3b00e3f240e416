package losses

import (
	"math"

	"github.com/gokeras/gokeras/ops"
)

// pow is x^g for x >= 0, with the exact forms of the usual exponents and
// a gradient that stays finite at x = 0.
func pow(x ops.Tensor, g float64) ops.Tensor {
	switch g {
	case 0:
		return ops.AddScalar(ops.Scale(x, 0), 1)
	case 1:
		return x
	case 2:
		return ops.Square(x)
	}
	return ops.Exp(ops.Scale(ops.Log(ops.Clip(x, 1e-30, math.MaxFloat32)), float32(g)))
}

// focalConfig is what the focal losses share: their options and config.
type focalConfig struct {
	fromLogits     bool
	labelSmoothing float64
	axis           int
	alpha, gamma   float64
}

func (f focalConfig) config(c map[string]any) map[string]any {
	c["from_logits"] = f.fromLogits
	c["label_smoothing"] = f.labelSmoothing
	c["axis"] = f.axis
	c["alpha"] = f.alpha
	c["gamma"] = f.gamma
	return c
}

func newFocal(kind, name string, extra []string, opts []Option) (base, config, focalConfig) {
	b, c := newConfig(kind, name, append([]string{"from_logits", "label_smoothing", "axis", "alpha", "gamma"}, extra...),
		withDefault(opts, func(c *config) { c.more.alpha, c.more.gamma = 0.25, 2 }))
	if !(c.more.gamma >= 0) || math.IsInf(c.more.gamma, 0) || math.IsNaN(c.more.alpha) || math.IsInf(c.more.alpha, 0) {
		b.fail("alpha %v must be a finite number and gamma %v a finite number >= 0", c.more.alpha, c.more.gamma)
	}
	return b, c, focalConfig{fromLogits: c.fromLogits, labelSmoothing: c.labelSmoothing, axis: c.axis, alpha: c.more.alpha, gamma: c.more.gamma}
}

// CategoricalFocalCrossentropy is keras.losses.CategoricalFocalCrossentropy:
// the categorical crossentropy of each class weighted by
// alpha * (1 - p)^gamma, summed over the class axis, where p are the
// predictions normalised to sum to 1 and clipped to [1e-7, 1-1e-7]
// (softmax of them with FromLogits(true)).
//
//	keras.losses.CategoricalFocalCrossentropy(alpha=0.25, gamma=2.0, from_logits=True)
//	losses.NewCategoricalFocalCrossentropy(losses.Alpha(0.25), losses.Gamma(2), losses.FromLogits(true))
type CategoricalFocalCrossentropy struct {
	elementLoss
	focalConfig
}

// NewCategoricalFocalCrossentropy makes the loss. Options: Alpha (default
// 0.25), Gamma (default 2), FromLogits, LabelSmoothing, Axis, Reduction,
// Name.
func NewCategoricalFocalCrossentropy(opts ...Option) *CategoricalFocalCrossentropy {
	b, _, f := newFocal("CategoricalFocalCrossentropy", "categorical_focal_crossentropy", nil, opts)
	l := &CategoricalFocalCrossentropy{focalConfig: f}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.matchLabels(yTrue, yPred)
		ps := yPred.Shape()
		ax := l.normAxis(f.axis, ps)
		if f.labelSmoothing > 0 {
			ls := f.labelSmoothing
			yTrue = ops.AddScalar(ops.Scale(yTrue, float32(1-ls)), float32(ls/float64(ps[ax])))
		}
		p := yPred
		if f.fromLogits {
			if ax != len(ps)-1 {
				l.fail("from_logits needs the class axis last: axis %d of predictions of shape %v", f.axis, ps)
			}
			p = ops.Softmax(p)
		}
		p = ops.Clip(ops.Div(p, ops.Sum(p, true, ax)), epsilon, 1-epsilon)
		cce := ops.Neg(ops.Mul(yTrue, ops.Log(p)))
		w := ops.Scale(pow(ops.OneMinus(p), f.gamma), float32(f.alpha))
		return ops.Sum(ops.Mul(w, cce), false, ax)
	}, extra: func() map[string]any { return l.focalConfig.config(map[string]any{}) }}
	return l
}

// BinaryFocalCrossentropy is keras.losses.BinaryFocalCrossentropy: the
// binary crossentropy of each element weighted by (1 - p_t)^gamma, where
// p_t = y*p + (1-y)*(1-p) is the probability given to the true label, and
// with ApplyClassBalancing(true) also by alpha for positive labels and
// 1-alpha for negative ones; averaged over Axis (default -1). As for
// [BinaryCrossentropy], logits (FromLogits(true), or predictions that are
// an ops.Sigmoid) give the crossentropy without clipping.
//
//	keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True, gamma=3.0)
//	losses.NewBinaryFocalCrossentropy(losses.ApplyClassBalancing(true), losses.Gamma(3))
type BinaryFocalCrossentropy struct {
	elementLoss
	focalConfig
	balance bool
}

// NewBinaryFocalCrossentropy makes the loss. Options: ApplyClassBalancing,
// Alpha (default 0.25), Gamma (default 2), FromLogits, LabelSmoothing,
// Axis, Reduction, Name.
func NewBinaryFocalCrossentropy(opts ...Option) *BinaryFocalCrossentropy {
	b, c, f := newFocal("BinaryFocalCrossentropy", "binary_focal_crossentropy", []string{"apply_class_balancing"}, opts)
	l := &BinaryFocalCrossentropy{focalConfig: f, balance: c.more.applyClassBalancing}
	l.elementLoss = elementLoss{base: b, per: func(yTrue, yPred ops.Tensor) ops.Tensor {
		yTrue = l.matchLabels(yTrue, yPred)
		ax := l.normAxis(f.axis, yPred.Shape())
		if f.labelSmoothing > 0 {
			ls := f.labelSmoothing
			yTrue = ops.AddScalar(ops.Scale(yTrue, float32(1-ls)), float32(ls/2))
		}
		var bce, p ops.Tensor
		x, ok := yPred, f.fromLogits
		if !ok {
			x, ok = ops.SigmoidInput(yPred)
		}
		if ok {
			bce = ops.SigmoidCrossEntropyWithLogits(yTrue, x)
			p = ops.Sigmoid(x)
		} else {
			p = yPred
			q := ops.Clip(p, epsilon, 1-epsilon)
			bce = ops.Neg(ops.Add(ops.Mul(yTrue, ops.Log(q)), ops.Mul(ops.OneMinus(yTrue), ops.Log(ops.OneMinus(q)))))
		}
		// 1 - p_t = 1 - (y*p + (1-y)*(1-p)) = y + p - 2*y*p
		notPt := ops.Sub(ops.Add(yTrue, p), ops.Scale(ops.Mul(yTrue, p), 2))
		e := ops.Mul(pow(notPt, f.gamma), bce)
		if l.balance {
			a := float32(f.alpha)
			e = ops.Mul(ops.AddScalar(ops.Scale(yTrue, 2*a-1), 1-a), e) // y*alpha + (1-y)*(1-alpha)
		}
		return ops.Mean(e, false, ax)
	}, extra: func() map[string]any {
		m := l.focalConfig.config(map[string]any{})
		m["apply_class_balancing"] = l.balance
		return m
	}}
	return l
}
