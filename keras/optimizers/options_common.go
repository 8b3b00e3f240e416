package optimizers

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/ops"
)

// moreOptions are the options of Keras 3's base optimizer beyond clipping
// and weight decay: the moving average of the weights (use_ema) and
// gradient accumulation. Their zero value is Keras' default (off).
type moreOptions struct {
	useEMA          bool
	emaMomentum     float64
	hasEMAMomentum  bool
	emaOverwrite    int
	accumSteps      int
	hasAccumSteps   bool
	hasEMAOverwrite bool
}

func init() {
	commonKeys = append(commonKeys, "use_ema", "ema_momentum", "ema_overwrite_frequency", "gradient_accumulation_steps")
}

// UseEMA keeps an exponential moving average of every trained variable
// (Keras' use_ema): after each step average = m*average + (1-m)*w, with
// m = EMAMomentum (0 at the first step, so the average starts at the
// weights). The averages replace the weights every EMAOverwriteFrequency
// steps, or when FinalizeVariableValues is called (Keras' fit does at the
// end of training).
func UseEMA(on bool) Option {
	return func(c *config) { c.more.useEMA = on; c.mark("use_ema") }
}

// EMAMomentum sets the momentum of the moving average (Keras'
// ema_momentum, default 0.99), in [0, 1].
func EMAMomentum(m float64) Option {
	return func(c *config) { c.more.emaMomentum = m; c.more.hasEMAMomentum = true; c.mark("ema_momentum") }
}

// EMAOverwriteFrequency makes every n-th step (counted from 1) copy the
// moving averages into the weights (Keras' ema_overwrite_frequency; 0, the
// default, never does during training).
func EMAOverwriteFrequency(n int) Option {
	return func(c *config) {
		c.more.emaOverwrite = n
		c.more.hasEMAOverwrite = true
		c.mark("ema_overwrite_frequency")
	}
}

// GradientAccumulationSteps accumulates the gradients of n calls (n >= 2)
// and updates the weights on every n-th with their mean (Keras'
// gradient_accumulation_steps): the other calls only add their gradients
// to the accumulators. Clipping and weight decay apply to the mean. As in
// Keras, the stored step count (iterations, and the learning-rate
// schedules) advances on every call, while the update rules (Adam's bias
// correction) and the moving average count the weight updates.
func GradientAccumulationSteps(n int) Option {
	return func(c *config) {
		c.more.accumSteps = n
		c.more.hasAccumSteps = true
		c.mark("gradient_accumulation_steps")
	}
}

// checkMore validates the options (Keras' messages) and fills defaults.
func (c *config) checkMore() {
	m := &c.more
	if !m.hasEMAMomentum {
		m.emaMomentum = 0.99
	}
	if !(m.emaMomentum >= 0 && m.emaMomentum <= 1) {
		c.fail("ema_momentum must be a float between [0, 1], got %v", m.emaMomentum)
	}
	if m.hasEMAOverwrite && m.emaOverwrite < 0 {
		c.fail("ema_overwrite_frequency must be a positive integer or 0 (never), got %d", m.emaOverwrite)
	}
	if m.hasAccumSteps && m.accumSteps != 0 && m.accumSteps < 2 {
		c.fail("gradient_accumulation_steps must be an integer >= 2, got %d", m.accumSteps)
	}
	if math.IsNaN(m.emaMomentum) {
		c.fail("ema_momentum is NaN")
	}
}

// addConfig adds Keras' keys for these options when one is in use (Keras
// always writes them; a config without them reads as their defaults, so
// the configs of optimizers without these options stay as they were).
func (m *moreOptions) addConfig(out map[string]any) {
	if !m.useEMA && m.accumSteps == 0 {
		return
	}
	out["use_ema"] = m.useEMA
	out["ema_momentum"] = m.emaMomentum
	out["ema_overwrite_frequency"] = nil
	if m.emaOverwrite > 0 {
		out["ema_overwrite_frequency"] = m.emaOverwrite
	}
	out["gradient_accumulation_steps"] = nil
	if m.accumSteps > 0 {
		out["gradient_accumulation_steps"] = m.accumSteps
	}
}

// moreState holds the moving averages and the gradient accumulators, one
// per trained variable, in the order the variables were first seen (Keras
// creates them for every variable at build time, averages first).
type moreState struct {
	averages, accums map[*ops.Variable]*ops.Variable
	avgOrder, accOrd []*ops.Variable
}

// moreVariables returns the averages then the accumulators (for
// Variables and saving).
func (s *moreState) variables() []*ops.Variable {
	return append(append([]*ops.Variable(nil), s.avgOrder...), s.accOrd...)
}

// prepareMoreLocked creates (once) the averages and accumulators of vars
// with the optimizer's number of copies. b.mu is held.
func (b *base) prepareMoreLocked(vars []*ops.Variable) {
	m, s := &b.cfg.more, &b.more
	if !m.useEMA && m.accumSteps == 0 {
		return
	}
	if s.averages == nil {
		s.averages, s.accums = map[*ops.Variable]*ops.Variable{}, map[*ops.Variable]*ops.Variable{}
	}
	for _, v := range vars {
		if m.useEMA && s.averages[v] == nil {
			// Zeros, as Keras' add_variable_from_reference makes them: the
			// first update (t == 0) takes the weights whole. Reading v here
			// would race with the other replicas' updates of it, since the
			// first replica to finish a step creates the averages.
			a := ops.NewVariable(b.slotName("average", v), v.Shape(), make([]float32, v.Shape().Size()), false)
			a.Mirror(b.replicas)
			s.averages[v] = a
			s.avgOrder = append(s.avgOrder, a)
		}
		if m.accumSteps > 0 && s.accums[v] == nil {
			a := ops.NewVariable(b.slotName("gradient_accumulator", v), v.Shape(), make([]float32, v.Shape().Size()), false)
			a.Mirror(b.replicas)
			s.accums[v] = a
			s.accOrd = append(s.accOrd, a)
		}
	}
}

// mirrorMoreLocked gives the averages and accumulators n copies.
func (b *base) mirrorMoreLocked(n int) {
	for _, v := range b.more.variables() {
		v.Mirror(n)
	}
}

// accumulate adds the gradients to the accumulators on replica r and
// reports whether this call (step t, counted from 0) updates the weights;
// if so, grads becomes the mean over the accumulated calls and the
// accumulators are reset, as Keras' (g + acc) / steps.
func (b *base) accumulate(r int, t int64, grads [][]float32, vars []*ops.Variable) (bool, error) {
	n := b.cfg.more.accumSteps
	if n == 0 {
		return true, nil
	}
	b.mu.Lock()
	b.prepareMoreLocked(vars)
	accs := make([]*ops.Variable, len(vars))
	for i, v := range vars {
		accs[i] = b.more.accums[v]
	}
	b.mu.Unlock()
	update := (t+1)%int64(n) == 0
	for i, a := range accs {
		if r >= a.Replicas() {
			return false, fmt.Errorf("optimizers: %s: accumulator of %q has no copy for replica %d", b.cfg.name, vars[i].Name(), r)
		}
		d, g := a.Data(r), grads[i]
		if update {
			f := float32(n)
			for j := range g {
				g[j] = (g[j] + d[j]) / f
				d[j] = 0
			}
		} else {
			for j := range g {
				d[j] += g[j]
			}
		}
	}
	return update, nil
}

// publicIterations is Keras' optimizer.iterations for the raw step count
// t: with gradient accumulation, the number of weight updates (t divided
// by the accumulation steps), which the update rules (Adam's bias
// correction) and the moving average count; learning-rate schedules see
// the raw count.
func (b *base) publicIterations(t int64) int64 {
	if n := b.cfg.more.accumSteps; n > 0 {
		return t / int64(n)
	}
	return t
}

// updateEMA moves the averages of vars towards the weights after step t
// (Keras' iterations before this call, see publicIterations) and overwrites the weights with them every
// ema_overwrite_frequency steps, as Keras.
func (b *base) updateEMA(r int, t int64, vars []*ops.Variable) {
	m := &b.cfg.more
	if !m.useEMA {
		return
	}
	b.mu.Lock()
	b.prepareMoreLocked(vars)
	avgs := make([]*ops.Variable, len(vars))
	for i, v := range vars {
		avgs[i] = b.more.averages[v]
	}
	b.mu.Unlock()
	mom := float32(m.emaMomentum)
	if t == 0 {
		mom = 0
	}
	keep := 1 - mom
	overwrite := m.emaOverwrite > 0 && (t+1)%int64(m.emaOverwrite) == 0
	for i, a := range avgs {
		d, w := a.Data(r), vars[i].Data(r)
		for j := range d {
			d[j] = mom*d[j] + keep*w[j]
		}
		if overwrite {
			copy(w, d)
		}
	}
}

// FinalizeVariableValues copies the moving averages into their variables
// when the optimizer uses EMA (Keras' finalize_variable_values, which fit
// calls at the end of training); otherwise it does nothing.
func (b *base) FinalizeVariableValues(vars []*ops.Variable) {
	if !b.cfg.more.useEMA {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, v := range vars {
		a := b.more.averages[v]
		if a == nil {
			continue
		}
		for r := range min(a.Replicas(), v.Replicas()) {
			copy(v.Data(r), a.Data(r))
		}
	}
}
