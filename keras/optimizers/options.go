package optimizers

import (
	"fmt"
	"math"
	"slices"
)

// Option configures an optimizer. Every option of the package has one type
// so that NewSGD, NewAdam, ... share them; an option an optimizer does not
// take (Beta1 for SGD) is an error, as an unknown keyword argument is in
// Keras.
type Option func(*config)

// config holds every hyperparameter of every optimizer. After construction it
// is read-only except for the learning rate, which lives in base under its
// mutex.
type config struct {
	name     string
	lr       float64
	schedule Schedule

	beta1, beta2, epsilon float64
	amsgrad               bool
	momentum              float64
	nesterov              bool
	rho                   float64
	centered              bool

	// Adagrad and Ftrl.
	initialAccumulator float64
	// Ftrl.
	lrPower, l1, l2, l2Shrinkage, ftrlBeta float64

	weightDecay    float64
	hasWeightDecay bool
	clipNorm       float64
	clipValue      float64
	globalClipNorm float64
	more           moreOptions // options_common.go: use_ema, gradient_accumulation_steps

	// given lists the Keras keys the options set, so the constructor can
	// reject those that do not apply to its optimizer.
	given []string
	err   error
}

func (c *config) mark(key string) {
	if !slices.Contains(c.given, key) {
		c.given = append(c.given, key)
	}
}

// Name sets the optimizer's name, which prefixes its variables' names.
func Name(name string) Option {
	return func(c *config) { c.name = name; c.mark("name") }
}

// LearningRate sets a constant learning rate (replacing a schedule given
// earlier in the option list).
func LearningRate(lr float64) Option {
	return func(c *config) { c.lr = lr; c.schedule = nil; c.mark("learning_rate") }
}

// LearningRateSchedule makes the learning rate a function of the step count,
// evaluated before each update at the iterations done so far.
func LearningRateSchedule(s Schedule) Option {
	return func(c *config) {
		if s == nil {
			c.fail("LearningRateSchedule(nil)")
			return
		}
		c.schedule = s
		c.mark("learning_rate")
	}
}

// Beta1 sets Adam's decay rate of the first moment estimate.
func Beta1(b float64) Option { return func(c *config) { c.beta1 = b; c.mark("beta_1") } }

// Beta2 sets Adam's decay rate of the second moment estimate.
func Beta2(b float64) Option { return func(c *config) { c.beta2 = b; c.mark("beta_2") } }

// Epsilon sets the constant added to denominators (Adam, RMSprop) so that
// a zero second moment does not divide by zero.
func Epsilon(e float64) Option { return func(c *config) { c.epsilon = e; c.mark("epsilon") } }

// Amsgrad selects Adam's AMSGrad variant, which divides by the running
// maximum of the second moment instead of the moment itself.
func Amsgrad(on bool) Option { return func(c *config) { c.amsgrad = on; c.mark("amsgrad") } }

// Momentum sets the momentum of SGD (in [0, 1]) or RMSprop.
func Momentum(m float64) Option { return func(c *config) { c.momentum = m; c.mark("momentum") } }

// Nesterov selects Nesterov momentum for SGD.
func Nesterov(on bool) Option { return func(c *config) { c.nesterov = on; c.mark("nesterov") } }

// Rho sets RMSprop's discounting factor of the squared-gradient average.
func Rho(r float64) Option { return func(c *config) { c.rho = r; c.mark("rho") } }

// Centered makes RMSprop normalise by the estimated variance of the gradient
// rather than by its uncentered second moment.
func Centered(on bool) Option { return func(c *config) { c.centered = on; c.mark("centered") } }

// InitialAccumulatorValue sets the starting value of Adagrad's and Ftrl's
// accumulators (Keras' initial_accumulator_value).
func InitialAccumulatorValue(v float64) Option {
	return func(c *config) { c.initialAccumulator = v; c.mark("initial_accumulator_value") }
}

// LearningRatePower sets how Ftrl's per-coordinate learning rate decreases
// with the accumulated squared gradients (<= 0; 0 is a fixed rate).
func LearningRatePower(p float64) Option {
	return func(c *config) { c.lrPower = p; c.mark("learning_rate_power") }
}

// L1RegularizationStrength sets Ftrl's L1 regularisation (>= 0).
func L1RegularizationStrength(v float64) Option {
	return func(c *config) { c.l1 = v; c.mark("l1_regularization_strength") }
}

// L2RegularizationStrength sets Ftrl's online L2 stabilisation (>= 0).
func L2RegularizationStrength(v float64) Option {
	return func(c *config) { c.l2 = v; c.mark("l2_regularization_strength") }
}

// L2ShrinkageRegularizationStrength sets Ftrl's shrinkage-type L2, a
// penalty added to the loss (>= 0).
func L2ShrinkageRegularizationStrength(v float64) Option {
	return func(c *config) { c.l2Shrinkage = v; c.mark("l2_shrinkage_regularization_strength") }
}

// Beta sets Ftrl's beta, which adds beta/(2*lr) to the L2 strength.
func Beta(b float64) Option { return func(c *config) { c.ftrlBeta = b; c.mark("beta") } }

// WeightDecay applies decoupled weight decay, w -= w*weightDecay*lr, before
// each update, for any optimizer (AdamW's default is 0.004).
func WeightDecay(wd float64) Option {
	return func(c *config) { c.weightDecay = wd; c.hasWeightDecay = true; c.mark("weight_decay") }
}

// ClipNorm scales each gradient tensor so that its L2 norm is at most n.
func ClipNorm(n float64) Option { return func(c *config) { c.clipNorm = n; c.mark("clipnorm") } }

// ClipValue clips every gradient element to [-v, v].
func ClipValue(v float64) Option { return func(c *config) { c.clipValue = v; c.mark("clipvalue") } }

// GlobalClipNorm scales all gradients together so that the L2 norm of their
// concatenation is at most n.
func GlobalClipNorm(n float64) Option {
	return func(c *config) { c.globalClipNorm = n; c.mark("global_clipnorm") }
}

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("optimizers: %s: "+format, append([]any{c.name}, args...)...)
	}
}

// commonKeys are the options every optimizer takes.
var commonKeys = []string{"name", "learning_rate", "weight_decay", "clipnorm", "clipvalue", "global_clipnorm"}

// build applies opts over defaults and checks what every optimizer checks;
// own lists the optimizer-specific keys it accepts.
func build(defaults config, own []string, opts []Option) config {
	c := defaults
	c.given = nil
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	for _, k := range c.given {
		if !slices.Contains(commonKeys, k) && !slices.Contains(own, k) {
			c.fail("does not take the option %s", k)
		}
	}
	if c.schedule == nil && (math.IsNaN(c.lr) || c.lr < 0) {
		c.fail("learning_rate must be >= 0, got %v", c.lr)
	}
	// Keras refuses ambiguous clipping rather than pick one silently.
	n := 0
	for _, k := range []string{"clipnorm", "clipvalue", "global_clipnorm"} {
		if slices.Contains(c.given, k) {
			n++
		}
	}
	if n > 1 {
		c.fail("only one of clipnorm, clipvalue and global_clipnorm can be set")
	}
	for _, p := range []struct {
		key string
		v   float64
	}{{"clipnorm", c.clipNorm}, {"clipvalue", c.clipValue}, {"global_clipnorm", c.globalClipNorm}} {
		if slices.Contains(c.given, p.key) && !(p.v > 0) {
			c.fail("%s must be > 0, got %v", p.key, p.v)
		}
	}
	if c.hasWeightDecay && (math.IsNaN(c.weightDecay) || c.weightDecay < 0) {
		c.fail("weight_decay must be >= 0, got %v", c.weightDecay)
	}
	return c
}

// commonConfig returns the Keras config keys every optimizer has; nil stands
// for Python's None.
func (c *config) commonConfig(lr float64, sched Schedule) map[string]any {
	m := map[string]any{
		"name":            c.name,
		"weight_decay":    nil,
		"clipnorm":        nil,
		"clipvalue":       nil,
		"global_clipnorm": nil,
	}
	if sched != nil {
		m["learning_rate"] = SerializeSchedule(sched)
	} else {
		m["learning_rate"] = lr
	}
	if c.hasWeightDecay {
		m["weight_decay"] = c.weightDecay
	}
	if c.clipNorm > 0 {
		m["clipnorm"] = c.clipNorm
	}
	if c.clipValue > 0 {
		m["clipvalue"] = c.clipValue
	}
	if c.globalClipNorm > 0 {
		m["global_clipnorm"] = c.globalClipNorm
	}
	return m
}
