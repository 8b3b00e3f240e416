package optimizers

import (
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/gokeras/gokeras/ops"
)

// LossScaleOptimizer is Keras 3's keras.optimizers.LossScaleOptimizer:
// dynamic loss scaling around an inner optimizer, for mixed_float16,
// whose small gradients underflow float16 unless the loss is scaled up.
//
// The train step multiplies the loss by the current scale (ScaleLoss;
// Model.Compile wraps the optimizer in one under "mixed_float16" and Fit
// does this); ApplyGradients and Apply divide the gradients by the scale
// and, when every gradient is finite, let the inner optimizer apply them,
// doubling the scale after DynamicGrowthSteps finite steps in a row; when
// a gradient holds an inf or a NaN the step is skipped (the weights, the
// slots and the inner optimizer's iterations stay) and the scale is
// halved. Under a distribution strategy the finite check is all-reduced
// with the gradients, so every replica and worker skips together.
type LossScaleOptimizer struct {
	inner        Optimizer
	ib           *base
	name         string
	initialScale float64
	growthSteps  int64
	err          error

	mu       sync.Mutex
	replicas int
	scale    *ops.Variable // dynamic_scale, one copy per replica
	counter  *ops.Variable // step_counter, one copy per replica
}

var _ Optimizer = (*LossScaleOptimizer)(nil)

// LossScaleOption sets an argument of NewLossScaleOptimizer.
type LossScaleOption func(*LossScaleOptimizer)

// InitialScale sets the first loss scale (Keras' initial_scale, default
// 2^15). It must be positive and finite.
func InitialScale(s float64) LossScaleOption {
	return func(o *LossScaleOptimizer) { o.initialScale = s }
}

// DynamicGrowthSteps sets after how many finite steps in a row the scale
// doubles (Keras' dynamic_growth_steps, default 2000); at least 1.
func DynamicGrowthSteps(n int) LossScaleOption {
	return func(o *LossScaleOptimizer) { o.growthSteps = int64(n) }
}

// LossScaleName sets the optimizer's name (default "loss_scale_optimizer"),
// which prefixes its variables' names.
func LossScaleName(name string) LossScaleOption {
	return func(o *LossScaleOptimizer) { o.name = name }
}

// baseOf gives LossScaleOptimizer the machinery of the optimizer it wraps.
func (b *base) baseOf() *base { return b }

type hasBase interface{ baseOf() *base }

// NewLossScaleOptimizer wraps inner, an optimizer of this package
// (keras.optimizers.LossScaleOptimizer(inner_optimizer, initial_scale,
// dynamic_growth_steps)). A bad argument is reported by Err and by every
// update.
func NewLossScaleOptimizer(inner Optimizer, opts ...LossScaleOption) *LossScaleOptimizer {
	o := &LossScaleOptimizer{inner: inner, name: "loss_scale_optimizer", initialScale: 1 << 15, growthSteps: 2000, replicas: 1}
	for _, f := range opts {
		f(o)
	}
	switch hb, ok := inner.(hasBase); {
	case inner == nil || (reflect.ValueOf(inner).Kind() == reflect.Pointer && reflect.ValueOf(inner).IsNil()):
		o.err = fmt.Errorf("optimizers: LossScaleOptimizer %q: the inner optimizer is nil", o.name)
	case !ok:
		if _, nested := inner.(*LossScaleOptimizer); nested {
			o.err = fmt.Errorf("optimizers: LossScaleOptimizer %q: the inner optimizer is already a LossScaleOptimizer", o.name)
		} else {
			o.err = fmt.Errorf("optimizers: LossScaleOptimizer %q: the inner optimizer must be one of package optimizers (SGD, Adam, ...), got %T", o.name, inner)
		}
	default:
		o.ib = hb.baseOf()
		if o.ib.cfg.err != nil {
			o.err = o.ib.cfg.err
		}
	}
	if o.err == nil && (!(o.initialScale > 0) || math.IsInf(o.initialScale, 0)) {
		o.err = fmt.Errorf("optimizers: LossScaleOptimizer %q: initial_scale must be positive and finite, got %g", o.name, o.initialScale)
	}
	if o.err == nil && o.growthSteps < 1 {
		o.err = fmt.Errorf("optimizers: LossScaleOptimizer %q: dynamic_growth_steps must be at least 1, got %d", o.name, o.growthSteps)
	}
	o.counter = ops.NewVariable(o.name+"/step_counter", ops.Shape{}, []float32{0}, false)
	o.scale = ops.NewVariable(o.name+"/dynamic_scale", ops.Shape{}, []float32{float32(o.initialScale)}, false)
	return o
}

// Err returns the error in the arguments, if any.
func (o *LossScaleOptimizer) Err() error { return o.err }

// Name implements Optimizer.
func (o *LossScaleOptimizer) Name() string { return o.name }

// InnerOptimizer returns the wrapped optimizer (Keras' inner_optimizer).
func (o *LossScaleOptimizer) InnerOptimizer() Optimizer { return o.inner }

// DynamicScale returns the current loss scale (of the primary replica).
func (o *LossScaleOptimizer) DynamicScale() float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return float64(o.scale.Data(0)[0])
}

// StepCounter returns the finite steps since the scale last changed.
func (o *LossScaleOptimizer) StepCounter() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return int64(o.counter.Data(0)[0])
}

// ScaleLoss returns loss times the current scale, read in loss's trace so
// that every replay uses the scale of its step (Keras' scale_loss). A
// custom training loop differentiates the scaled loss and gives the
// gradients to ApplyGradients, which unscales them.
func (o *LossScaleOptimizer) ScaleLoss(loss ops.Tensor) ops.Tensor {
	return ops.Mul(loss, loss.Trace().Read(o.scale))
}

// GetScaledLoss is ScaleLoss under the name of TensorFlow 2's legacy
// LossScaleOptimizer.get_scaled_loss.
func (o *LossScaleOptimizer) GetScaledLoss(loss ops.Tensor) ops.Tensor { return o.ScaleLoss(loss) }

// GetUnscaledGradients returns grads divided by the current scale (the
// legacy get_unscaled_gradients), for inspecting or clipping gradients in
// a custom loop; none stays none. ApplyGradients unscales by itself: give
// it the scaled gradients, not these.
func (o *LossScaleOptimizer) GetUnscaledGradients(grads []ops.Tensor) []ops.Tensor {
	out := make([]ops.Tensor, len(grads))
	for i, g := range grads {
		if g.IsNone() {
			out[i] = g
			continue
		}
		out[i] = ops.Div(g, g.Trace().Read(o.scale))
	}
	return out
}

// Iterations implements Optimizer: the inner optimizer's, which skipped
// steps do not count, as in Keras.
func (o *LossScaleOptimizer) Iterations() int64 {
	if o.inner == nil || o.ib == nil {
		return 0
	}
	return o.inner.Iterations()
}

// CurrentLearningRate implements Optimizer (the inner optimizer's).
func (o *LossScaleOptimizer) CurrentLearningRate() float64 {
	if o.ib == nil {
		return 0
	}
	return o.inner.CurrentLearningRate()
}

// SetLearningRate implements Optimizer (the inner optimizer's).
func (o *LossScaleOptimizer) SetLearningRate(lr float64) {
	if o.ib != nil {
		o.inner.SetLearningRate(lr)
	}
}

// Variables implements Optimizer: the inner optimizer's variables
// (iterations first), then step_counter and dynamic_scale.
func (o *LossScaleOptimizer) Variables() []*ops.Variable {
	var vs []*ops.Variable
	if o.ib != nil {
		vs = o.inner.Variables()
	}
	return append(vs, o.counter, o.scale)
}

// GetConfig implements Optimizer with Keras 3's keys: name,
// inner_optimizer (serialized), initial_scale, dynamic_growth_steps.
func (o *LossScaleOptimizer) GetConfig() map[string]any {
	var inner any
	if o.ib != nil {
		t := reflect.TypeOf(o.inner)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		inner = map[string]any{"module": "keras.optimizers", "class_name": t.Name(), "config": o.inner.GetConfig(), "registered_name": nil}
	}
	return map[string]any{
		"name":                 o.name,
		"inner_optimizer":      inner,
		"initial_scale":        o.initialScale,
		"dynamic_growth_steps": o.growthSteps,
	}
}

// grow makes the scale and the counter hold n copies (new ones start from
// the primary's).
func (o *LossScaleOptimizer) grow(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n > o.replicas {
		o.scale.Mirror(n)
		o.counter.Mirror(n)
		o.replicas = n
	}
}

// ApplyGradients implements Optimizer: it registers a hook that, after
// each replay, all-reduces the (scaled) gradients with a count of the
// replicas that saw a non-finite one, then either unscales them and
// applies the inner optimizer's update, or skips the step and halves the
// scale.
func (o *LossScaleOptimizer) ApplyGradients(grads []ops.Tensor, vars []*ops.Variable) error {
	if o.err != nil {
		return o.err
	}
	if len(grads) != len(vars) {
		return fmt.Errorf("optimizers: %s: %d gradients for %d variables", o.name, len(grads), len(vars))
	}
	if len(grads) == 0 {
		return nil
	}
	if apply := ops.TraceGradientApplier(grads); apply != nil {
		return apply(o, grads, vars) // a distribution that splits the weights (ops.GradientApplier)
	}
	var (
		tr        *ops.Trace
		keptGrads []ops.Tensor
		keptVars  []*ops.Variable
		missing   []string
	)
	for i, v := range vars {
		if err := o.ib.checkVar(v, i); err != nil {
			return err
		}
		g := grads[i]
		if g.IsNone() {
			missing = append(missing, v.Name())
			continue
		}
		if !sameShape(g.Shape(), v.Shape()) {
			return fmt.Errorf("optimizers: %s: gradient %d has shape %v but variable %q has shape %v", o.name, i, g.Shape(), v.Name(), v.Shape())
		}
		if tr == nil {
			tr = g.Trace()
		} else if g.Trace() != tr {
			return fmt.Errorf("optimizers: %s: gradient %d (for %q) is from another trace", o.name, i, v.Name())
		}
		keptGrads = append(keptGrads, g)
		keptVars = append(keptVars, v)
	}
	if len(keptVars) == 0 {
		return fmt.Errorf("optimizers: %s: %w", o.name, errNoGradients)
	}
	if len(missing) > 0 {
		warnf("optimizers: %s: gradients do not exist for variables %v when minimizing the loss; they are not updated", o.name, missing)
	}
	r := tr.Replica()
	replicas := r + 1
	for _, v := range keptVars {
		if r > 0 && r >= v.Replicas() {
			return fmt.Errorf("optimizers: %s: variable %q has %d copies, none for replica %d (mirror it before tracing)", o.name, v.Name(), v.Replicas(), r)
		}
		replicas = max(replicas, v.Replicas())
	}
	slots := o.ib.prepare(keptVars, replicas)
	o.grow(replicas)
	scratch := finiteSlab(keptVars)
	tr.AddHook(ops.Hook{
		Name:   o.name + "/apply_gradients",
		Inputs: keptGrads,
		Run: func(rc ops.ReplicaContext, vals []ops.Value) error {
			if rc == nil {
				rc = single{}
			}
			for i, val := range vals {
				if len(val.Data) < len(scratch[i]) {
					return fmt.Errorf("optimizers: %s: gradient for %q has %d values, want %d", o.name, keptVars[i].Name(), len(val.Data), len(scratch[i]))
				}
				copy(scratch[i], val.Data)
			}
			return o.step(rc, scratch, keptVars, slots)
		},
		Empty: func(rc ops.ReplicaContext) error {
			zeros := finiteSlab(keptVars)
			return o.step(rc, zeros, keptVars, slots)
		},
	})
	return nil
}

// Apply implements Optimizer: one update now from concrete scaled
// gradients (nil for none), with the semantics of ApplyGradients.
func (o *LossScaleOptimizer) Apply(rc ops.ReplicaContext, grads [][]float32, vars []*ops.Variable) error {
	if o.err != nil {
		return o.err
	}
	if rc == nil {
		rc = single{}
	}
	if len(grads) != len(vars) {
		return fmt.Errorf("optimizers: %s: %d gradients for %d variables", o.name, len(grads), len(vars))
	}
	if len(grads) == 0 {
		return nil
	}
	r := rc.ReplicaID()
	replicas := max(r+1, rc.NumReplicas())
	var keptVars []*ops.Variable
	var kept [][]float32
	for i, v := range vars {
		if err := o.ib.checkVar(v, i); err != nil {
			return err
		}
		if grads[i] == nil {
			continue
		}
		if len(grads[i]) != v.Shape().Size() {
			return fmt.Errorf("optimizers: %s: gradient %d has %d values but variable %q has shape %v", o.name, i, len(grads[i]), v.Name(), v.Shape())
		}
		if r > 0 && r >= v.Replicas() {
			return fmt.Errorf("optimizers: %s: variable %q has %d copies, none for replica %d", o.name, v.Name(), v.Replicas(), r)
		}
		replicas = max(replicas, v.Replicas())
		keptVars = append(keptVars, v)
		kept = append(kept, grads[i])
	}
	if len(keptVars) == 0 {
		return fmt.Errorf("optimizers: %s: %w", o.name, errNoGradients)
	}
	slots := o.ib.prepare(keptVars, replicas)
	o.grow(replicas)
	scratch := finiteSlab(keptVars)
	for i, g := range kept {
		copy(scratch[i], g)
	}
	return o.step(rc, scratch, keptVars, slots)
}

// step all-reduces the gradients and the non-finite flag (the last
// buffer of scratch), then updates or skips on replica rc.ReplicaID().
func (o *LossScaleOptimizer) step(rc ops.ReplicaContext, scratch [][]float32, vars []*ops.Variable, slots [][]*ops.Variable) error {
	if _, ok := rc.(ops.ParameterServerContext); ok {
		// The scale and its finite-step count would have to live on the
		// parameter servers beside the variables; until they do, say so
		// rather than update the worker's copies in place.
		return fmt.Errorf("optimizers: %s: LossScaleOptimizer is not supported under ParameterServerStrategy (use the float32 or mixed_bfloat16 policy)", o.name)
	}
	n := len(scratch) - 1
	flag := scratch[n]
	flag[0] = 0
	if !allFinite(scratch[:n]) {
		flag[0] = 1
	}
	if err := rc.AllReduceSum(scratch); err != nil {
		return fmt.Errorf("optimizers: %s: all-reduce: %w", o.name, err)
	}
	// Every replica gets bitwise the same sums, so every one decides the
	// same; a sum that overflowed is non-finite everywhere.
	finite := flag[0] == 0 && allFinite(scratch[:n])
	r := rc.ReplicaID()
	o.mu.Lock()
	if r < 0 || r >= o.replicas {
		k := o.replicas
		o.mu.Unlock()
		return fmt.Errorf("optimizers: %s: replica %d, but the optimizer was prepared for %d", o.name, r, k)
	}
	scale, counter := o.scale.Data(r), o.counter.Data(r)
	o.mu.Unlock()
	if !finite {
		counter[0] = 0
		scale[0] *= 0.5
		return nil
	}
	s := scale[0]
	for _, g := range scratch[:n] {
		for j := range g {
			g[j] /= s
		}
	}
	if err := o.ib.update(r, scratch[:n], vars, slots); err != nil {
		return err
	}
	if int64(counter[0]) >= o.growthSteps-1 {
		counter[0] = 0
		scale[0] *= 2
	} else {
		counter[0]++
	}
	return nil
}

func allFinite(bufs [][]float32) bool {
	for _, b := range bufs {
		for _, x := range b {
			if x-x != 0 { // inf - inf and NaN - NaN are NaN
				return false
			}
		}
	}
	return true
}

// finiteSlab is gradientSlab with one more buffer of one value after the
// gradients, in the same slab: the count of replicas whose gradients were
// not finite, all-reduced in the same call.
func finiteSlab(vars []*ops.Variable) [][]float32 {
	n := 1
	for _, v := range vars {
		n += v.Shape().Size()
	}
	slab := make([]float32, n)
	out := make([][]float32, len(vars)+1)
	off := 0
	for i, v := range vars {
		k := v.Shape().Size()
		out[i] = slab[off : off+k]
		off += k
	}
	out[len(vars)] = slab[off : off+1]
	return out
}
