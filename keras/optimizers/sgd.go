package optimizers

// SGD is gradient descent with optional (Nesterov) momentum, Keras' SGD.
//
// Without momentum: w -= lr*g. With momentum μ, the velocity slot m gets
// m = μ*m - lr*g, then w += m, or with Nesterov w += μ*m - lr*g.
type SGD struct{ base }

var _ Optimizer = (*SGD)(nil)

// NewSGD returns an SGD optimizer. Defaults as in Keras: LearningRate(0.01),
// Momentum(0), Nesterov(false), Name("SGD"). Options it does not take, or a
// momentum outside [0, 1], make every ApplyGradients and Apply (and Err)
// return the error.
func NewSGD(opts ...Option) *SGD {
	c := build(config{name: "SGD", lr: 0.01}, []string{"momentum", "nesterov"}, opts)
	if !(c.momentum >= 0 && c.momentum <= 1) {
		c.fail("momentum must be a float between [0, 1], got %v", c.momentum)
	}
	o := &SGD{}
	o.init(o, c)
	return o
}

// slotNames: the velocity exists only with momentum, so plain SGD holds no
// state beyond the counter, as in Keras.
func (o *SGD) slotNames() []string {
	if o.cfg.momentum != 0 {
		return []string{"momentum"}
	}
	return nil
}

func (o *SGD) update(w, g []float32, slots [][]float32, lr float64, _ int64) {
	a := float32(lr)
	if o.cfg.momentum == 0 {
		for j, x := range g {
			w[j] -= a * x
		}
		return
	}
	mu := float32(o.cfg.momentum)
	m := slots[0]
	for j, x := range g {
		m[j] = mu*m[j] - a*x
		if o.cfg.nesterov {
			w[j] += mu*m[j] - a*x
		} else {
			w[j] += m[j]
		}
	}
}

func (o *SGD) addConfig(m map[string]any) {
	m["momentum"] = o.cfg.momentum
	m["nesterov"] = o.cfg.nesterov
}
