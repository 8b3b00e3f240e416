package optimizers

// RMSprop is Keras' RMSprop: divide the gradient by a running root mean
// square of recent gradients.
//
// vel = ρ*vel + (1-ρ)g²; centered: avg = ρ*avg + (1-ρ)g and
// denom = vel - avg² + ε, else denom = vel + ε; inc = lr*g/sqrt(denom);
// with momentum μ > 0: mom = μ*mom + inc, w -= mom; else w -= inc.
type RMSprop struct{ base }

var _ Optimizer = (*RMSprop)(nil)

// NewRMSprop returns an RMSprop optimizer. Defaults as in Keras:
// LearningRate(0.001), Rho(0.9), Momentum(0), Epsilon(1e-7),
// Centered(false), Name("rmsprop").
func NewRMSprop(opts ...Option) *RMSprop {
	c := build(config{name: "rmsprop", lr: 0.001, rho: 0.9, epsilon: 1e-7},
		[]string{"rho", "momentum", "epsilon", "centered"}, opts)
	o := &RMSprop{}
	o.init(o, c)
	return o
}

// slotNames: momentum and the gradient average exist only when used.
func (o *RMSprop) slotNames() []string {
	s := []string{"velocity"}
	if o.cfg.momentum > 0 {
		s = append(s, "momentum")
	}
	if o.cfg.centered {
		s = append(s, "average_gradient")
	}
	return s
}

func (o *RMSprop) update(w, g []float32, slots [][]float32, lr float64, _ int64) {
	c := &o.cfg
	rho := float32(c.rho)
	c1 := float32(1 - c.rho)
	eps := float32(c.epsilon)
	a := float32(lr)
	vel := slots[0]
	var mom, avg []float32
	k := 1
	if c.momentum > 0 {
		mom = slots[k]
		k++
	}
	if c.centered {
		avg = slots[k]
	}
	mu := float32(c.momentum)
	for j, x := range g {
		vel[j] = rho*vel[j] + c1*x*x
		den := vel[j] + eps
		if avg != nil {
			avg[j] = rho*avg[j] + c1*x
			den = vel[j] - avg[j]*avg[j] + eps
		}
		inc := a * x / sqrt32(den)
		if mom != nil {
			mom[j] = mu*mom[j] + inc
			w[j] -= mom[j]
		} else {
			w[j] -= inc
		}
	}
}

func (o *RMSprop) addConfig(m map[string]any) {
	m["rho"] = o.cfg.rho
	m["momentum"] = o.cfg.momentum
	m["epsilon"] = o.cfg.epsilon
	m["centered"] = o.cfg.centered
}
