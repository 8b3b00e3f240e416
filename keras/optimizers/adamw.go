package optimizers

// AdamW is Adam with decoupled weight decay (Loshchilov & Hutter): before
// each Adam step, w -= w*weight_decay*lr. The decay does not pass through
// the moment estimates, which is the point of AdamW over L2 regularisation.
type AdamW struct{ base }

var _ Optimizer = (*AdamW)(nil)

// NewAdamW returns an AdamW optimizer. Defaults as in Keras:
// LearningRate(0.001), WeightDecay(0.004), Beta1(0.9), Beta2(0.999),
// Epsilon(1e-7), Amsgrad(false), Name("adamw").
func NewAdamW(opts ...Option) *AdamW {
	d := adamDefaults("adamw")
	d.weightDecay, d.hasWeightDecay = 0.004, true
	o := &AdamW{}
	o.init(o, build(d, adamKeys, opts))
	return o
}

func (o *AdamW) slotNames() []string { return adamSlots(&o.cfg) }

// update is Adam's: the decay is the base's decoupled weight decay, which
// runs first with the same learning rate.
func (o *AdamW) update(w, g []float32, slots [][]float32, lr float64, step int64) {
	adamUpdate(&o.cfg, w, g, slots, lr, step)
}

func (o *AdamW) addConfig(m map[string]any) { adamConfig(&o.cfg, m) }
