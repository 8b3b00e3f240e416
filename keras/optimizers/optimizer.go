package optimizers

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/ops"
)

// Optimizer updates variables from their gradients, as a Keras optimizer.
type Optimizer interface {
	// Name is the optimizer's name in its config, such as "adam" or "SGD".
	Name() string
	// ApplyGradients, called while tracing a step, registers a hook on the
	// gradients' trace that, after each replay, sums the gradients across
	// replicas, clips them and updates this replica's copy of every variable
	// and slot, then counts the step. Variables whose gradient is none are
	// skipped. Slot variables are created now, at trace time.
	ApplyGradients(grads []ops.Tensor, vars []*ops.Variable) error
	// Apply performs one update now from concrete gradients (nil for none),
	// with the same semantics, on replica rc.ReplicaID().
	Apply(rc ops.ReplicaContext, grads [][]float32, vars []*ops.Variable) error
	// Iterations is the number of updates the primary replica has done.
	Iterations() int64
	// CurrentLearningRate is the learning rate the next update uses.
	CurrentLearningRate() float64
	// SetLearningRate makes the learning rate the constant lr, replacing a
	// schedule (what callbacks such as ReduceLROnPlateau need).
	SetLearningRate(lr float64)
	// Variables returns the iteration counter and the slot variables, in
	// creation order, for checkpointing.
	Variables() []*ops.Variable
	// GetConfig returns the Keras config: "name", "learning_rate", ...
	GetConfig() map[string]any
}

// kernel is what each optimizer adds to base: its slots and its update rule.
type kernel interface {
	// slotNames lists the slot variables each trained variable gets, in the
	// order update receives them.
	slotNames() []string
	// update applies one step to w (this replica's copy) from the
	// aggregated, clipped gradient g. lr is the learning rate of this step
	// and step the 1-based step number.
	update(w, g []float32, slots [][]float32, lr float64, step int64)
	// addConfig adds the optimizer's own keys to a config map.
	addConfig(m map[string]any)
}

// slotIniter is implemented by kernels whose slots do not start at zero,
// such as Adagrad's accumulator.
type slotIniter interface {
	// slotInit returns the value every element of the named slot starts at.
	slotInit(slot string) float32
}

// warnf reports variables without gradients, once per trace, as Keras
// warns, through the gokeras logger (keras.SetLogger, else slog.Default).
var warnf = logging.Warnf

// base is the machinery every optimizer shares: per-replica step counts,
// slot variables, clipping, weight decay and the hooks.
type base struct {
	k   kernel
	cfg config // read-only after construction

	mu        sync.Mutex
	lr        float64
	schedule  Schedule
	replicas  int       // copies of the counter and of every slot
	iters     []int64   // per replica: authoritative step count
	written   []float32 // per replica: what we last stored in itVar
	itVar     *ops.Variable
	slots     map[*ops.Variable][]*ops.Variable
	slotOrder []*ops.Variable
	exclude   *exclusion // replaced, never mutated, so updates read it unlocked
	more      moreState  // options_common.go: EMA averages, gradient accumulators
}

// exclusion is the set of variables weight decay leaves alone.
type exclusion struct {
	vars  map[*ops.Variable]bool
	names []*regexp.Regexp
}

func (e *exclusion) excludes(v *ops.Variable) bool {
	if e == nil {
		return false
	}
	if e.vars[v] {
		return true
	}
	for _, re := range e.names {
		if re.MatchString(v.Name()) {
			return true
		}
	}
	return false
}

func (b *base) init(k kernel, cfg config) {
	b.k = k
	b.cfg = cfg
	b.cfg.checkMore()
	b.lr = cfg.lr
	b.schedule = cfg.schedule
	b.replicas = 1
	b.iters = []int64{0}
	b.written = []float32{0}
	// Keras' iterations is an int64 variable; ours are float32, exact up to
	// 2^24 steps. The int64 in iters stays authoritative.
	b.itVar = ops.NewVariable(cfg.name+"/iterations", ops.Shape{}, []float32{0}, false)
	b.slots = map[*ops.Variable][]*ops.Variable{}
}

// Err returns the error in the options the optimizer was made with, if any.
// ApplyGradients and Apply return it too.
func (b *base) Err() error { return b.cfg.err }

// Name implements Optimizer.
func (b *base) Name() string { return b.cfg.name }

// Iterations implements Optimizer.
func (b *base) Iterations() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.iterationsLocked(0)
}

// iterationsLocked returns replica r's step count, first adopting the
// counter variable's value if someone (a checkpoint restore) assigned it
// since we last wrote it.
func (b *base) iterationsLocked(r int) int64 {
	cur := b.itVar.Data(r)[0]
	if cur != b.written[r] && cur >= 0 {
		b.iters[r] = int64(cur)
		b.written[r] = cur
	}
	return b.iters[r]
}

func (b *base) lrLocked(step int64) float64 {
	if b.schedule != nil {
		return b.schedule.At(step)
	}
	return b.lr
}

// CurrentLearningRate implements Optimizer.
func (b *base) CurrentLearningRate() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lrLocked(b.iterationsLocked(0))
}

// SetLearningRate implements Optimizer.
func (b *base) SetLearningRate(lr float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lr = lr
	b.schedule = nil
}

// Variables implements Optimizer.
func (b *base) Variables() []*ops.Variable {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append(append([]*ops.Variable{b.itVar}, b.more.variables()...), b.slotOrder...)
}

// GetConfig implements Optimizer.
func (b *base) GetConfig() map[string]any {
	b.mu.Lock()
	m := b.cfg.commonConfig(b.lr, b.schedule)
	b.mu.Unlock()
	b.k.addConfig(m)
	b.cfg.more.addConfig(m)
	return m
}

// ExcludeFromWeightDecay exempts vars, and every variable whose name matches
// one of the regular expressions names, from weight decay (biases and
// normalisation scales usually are). Calls accumulate.
func (b *base) ExcludeFromWeightDecay(vars []*ops.Variable, names ...string) error {
	next := &exclusion{vars: map[*ops.Variable]bool{}}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.exclude != nil {
		for v := range b.exclude.vars {
			next.vars[v] = true
		}
		next.names = append(next.names, b.exclude.names...)
	}
	for _, v := range vars {
		next.vars[v] = true
	}
	for _, n := range names {
		re, err := regexp.Compile(n)
		if err != nil {
			return fmt.Errorf("optimizers: %s: ExcludeFromWeightDecay: %w", b.cfg.name, err)
		}
		next.names = append(next.names, re)
	}
	b.exclude = next
	return nil
}

// growLocked makes the counter and every slot hold n copies. New copies
// start from the primary, which is right before training and keeps replicas
// in step after it.
func (b *base) growLocked(n int) {
	if n <= b.replicas {
		return
	}
	b.itVar.Mirror(n)
	for _, s := range b.slotOrder {
		s.Mirror(n)
	}
	b.mirrorMoreLocked(n)
	for len(b.iters) < n {
		b.iters = append(b.iters, b.iters[0])
		b.written = append(b.written, b.itVar.Data(0)[0])
	}
	b.replicas = n
}

// prepare creates (once) the slots of vars with at least replicas copies and
// returns them, under the lock so that replicas tracing concurrently create
// each slot once.
func (b *base) prepare(vars []*ops.Variable, replicas int) [][]*ops.Variable {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.growLocked(replicas)
	out := make([][]*ops.Variable, len(vars))
	for i, v := range vars {
		s, ok := b.slots[v]
		if !ok {
			for _, name := range b.k.slotNames() {
				init := make([]float32, v.Shape().Size())
				if si, ok := b.k.(slotIniter); ok {
					if x := si.slotInit(name); x != 0 {
						for j := range init {
							init[j] = x
						}
					}
				}
				sv := ops.NewVariable(b.slotName(name, v), v.Shape(), init, false)
				sv.Mirror(b.replicas)
				s = append(s, sv)
				b.slotOrder = append(b.slotOrder, sv)
			}
			b.slots[v] = s
		}
		out[i] = s
	}
	return out
}

// slotName follows Keras 3's scheme: optimizer name, slot, variable path
// with '/' flattened, e.g. "adam/momentum/dense_kernel".
func (b *base) slotName(slot string, v *ops.Variable) string {
	return b.cfg.name + "/" + slot + "/" + strings.ReplaceAll(v.Name(), "/", "_")
}

// sameShape is shape equality, tolerating the two spellings of a scalar.
func sameShape(g, v ops.Shape) bool {
	return g.Equal(v) || (g.Size() == 1 && v.Size() == 1 && (len(g) == 0 || len(v) == 0))
}

func (b *base) checkVar(v *ops.Variable, i int) error {
	if v == nil {
		return fmt.Errorf("optimizers: %s: variable %d is nil", b.cfg.name, i)
	}
	if !v.Trainable() {
		return fmt.Errorf("optimizers: %s: variable %q is not trainable", b.cfg.name, v.Name())
	}
	return nil
}

var errNoGradients = errors.New("no gradients provided for any variable")

// ApplyGradients implements Optimizer.
func (b *base) ApplyGradients(grads []ops.Tensor, vars []*ops.Variable) error {
	if b.cfg.err != nil {
		return b.cfg.err
	}
	if len(grads) != len(vars) {
		return fmt.Errorf("optimizers: %s: %d gradients for %d variables", b.cfg.name, len(grads), len(vars))
	}
	if len(grads) == 0 {
		return nil // a model without trainable variables: nothing to do, as in Keras
	}
	if apply := ops.TraceGradientApplier(grads); apply != nil {
		// A step of a distribution that splits the weights: its devices
		// update their shards (ops.GradientApplier).
		self, ok := b.k.(Optimizer)
		if !ok {
			return fmt.Errorf("optimizers: %s: cannot hand this optimizer to the distribution's sharded update", b.cfg.name)
		}
		return apply(self, grads, vars)
	}
	var (
		tr        *ops.Trace
		keptGrads []ops.Tensor
		keptVars  []*ops.Variable
		missing   []string
	)
	for i, v := range vars {
		if err := b.checkVar(v, i); err != nil {
			return err
		}
		g := grads[i]
		if g.IsNone() {
			missing = append(missing, v.Name())
			continue
		}
		if !sameShape(g.Shape(), v.Shape()) {
			return fmt.Errorf("optimizers: %s: gradient %d has shape %v but variable %q has shape %v",
				b.cfg.name, i, g.Shape(), v.Name(), v.Shape())
		}
		if tr == nil {
			tr = g.Trace()
		} else if g.Trace() != tr {
			return fmt.Errorf("optimizers: %s: gradient %d (for %q) is from another trace", b.cfg.name, i, v.Name())
		}
		keptGrads = append(keptGrads, g)
		keptVars = append(keptVars, v)
	}
	if len(keptVars) == 0 {
		return fmt.Errorf("optimizers: %s: %w", b.cfg.name, errNoGradients)
	}
	if len(missing) > 0 {
		warnf("optimizers: %s: gradients do not exist for variables %v when minimizing the loss; they are not updated", b.cfg.name, missing)
	}
	r := tr.Replica()
	replicas := r + 1
	for _, v := range keptVars {
		if r > 0 && r >= v.Replicas() {
			// Data(r) would alias the primary and two replicas would
			// update one copy.
			return fmt.Errorf("optimizers: %s: variable %q has %d copies, none for replica %d (mirror it before tracing)",
				b.cfg.name, v.Name(), v.Replicas(), r)
		}
		replicas = max(replicas, v.Replicas())
	}
	slots := b.prepare(keptVars, replicas)
	// Scratch belongs to this hook, hence to this trace's replica: the
	// all-reduce works in place without touching the program's buffers.
	scratch := gradientSlab(keptVars)
	ov := &overlapState{name: b.cfg.name, scratch: scratch}
	tr.AddHook(ops.Hook{
		Name:   b.cfg.name + "/apply_gradients",
		Inputs: keptGrads,
		Ready:  ov.ready,
		Run: func(rc ops.ReplicaContext, vals []ops.Value) error {
			if rc == nil {
				rc = single{}
			}
			for i, val := range vals {
				if len(val.Data) < len(scratch[i]) {
					return fmt.Errorf("optimizers: %s: gradient for %q has %d values, want %d",
						b.cfg.name, keptVars[i].Name(), len(val.Data), len(scratch[i]))
				}
			}
			if done, err := ov.finish(rc, vals); done {
				if err != nil {
					return fmt.Errorf("optimizers: %s: all-reduce: %w", b.cfg.name, err)
				}
				return b.update(rc.ReplicaID(), scratch, keptVars, slots)
			}
			for i, val := range vals {
				copy(scratch[i], val.Data)
			}
			if ps, ok := rc.(ops.ParameterServerContext); ok {
				return b.push(ps, scratch, keptVars)
			}
			if err := rc.AllReduceSum(scratch); err != nil {
				return fmt.Errorf("optimizers: %s: all-reduce: %w", b.cfg.name, err)
			}
			return b.update(rc.ReplicaID(), scratch, keptVars, slots)
		},
		Empty: func(rc ops.ReplicaContext) error {
			// A replica without data contributes zero gradients and
			// applies the same update; its scratch is its own. A
			// parameter-server worker without data has nothing to push.
			if _, ok := rc.(ops.ParameterServerContext); ok {
				return nil
			}
			zeros := gradientSlab(keptVars)
			if done, err := overlapZeros(rc, zeros); done {
				if err != nil {
					return fmt.Errorf("optimizers: %s: all-reduce: %w", b.cfg.name, err)
				}
				return b.update(rc.ReplicaID(), zeros, keptVars, slots)
			}
			if err := rc.AllReduceSum(zeros); err != nil {
				return fmt.Errorf("optimizers: %s: all-reduce: %w", b.cfg.name, err)
			}
			return b.update(rc.ReplicaID(), zeros, keptVars, slots)
		},
	})
	return nil
}

// Apply implements Optimizer.
func (b *base) Apply(rc ops.ReplicaContext, grads [][]float32, vars []*ops.Variable) error {
	if b.cfg.err != nil {
		return b.cfg.err
	}
	if rc == nil {
		rc = single{}
	}
	if len(grads) != len(vars) {
		return fmt.Errorf("optimizers: %s: %d gradients for %d variables", b.cfg.name, len(grads), len(vars))
	}
	if len(grads) == 0 {
		return nil
	}
	r := rc.ReplicaID()
	replicas := max(r+1, rc.NumReplicas())
	var keptVars []*ops.Variable
	var scratch [][]float32
	for i, v := range vars {
		if err := b.checkVar(v, i); err != nil {
			return err
		}
		g := grads[i]
		if g == nil {
			continue
		}
		if len(g) != v.Shape().Size() {
			return fmt.Errorf("optimizers: %s: gradient %d has %d values but variable %q has shape %v",
				b.cfg.name, i, len(g), v.Name(), v.Shape())
		}
		if r > 0 && r >= v.Replicas() {
			return fmt.Errorf("optimizers: %s: variable %q has %d copies, none for replica %d",
				b.cfg.name, v.Name(), v.Replicas(), r)
		}
		replicas = max(replicas, v.Replicas())
		keptVars = append(keptVars, v)
		scratch = append(scratch, append([]float32(nil), g...))
	}
	if len(keptVars) == 0 {
		return fmt.Errorf("optimizers: %s: %w", b.cfg.name, errNoGradients)
	}
	if ps, ok := rc.(ops.ParameterServerContext); ok {
		return b.push(ps, scratch, keptVars)
	}
	slots := b.prepare(keptVars, replicas)
	if err := rc.AllReduceSum(scratch); err != nil {
		return fmt.Errorf("optimizers: %s: all-reduce: %w", b.cfg.name, err)
	}
	return b.update(r, scratch, keptVars, slots)
}

// push hands one step's gradients to the parameter servers of a
// ParameterServerStrategy worker: the servers own the variables, their
// slots and the step count, and apply their own copy of this optimizer
// (built from its config), so nothing is updated or counted here.
func (b *base) push(ps ops.ParameterServerContext, grads [][]float32, vars []*ops.Variable) error {
	self, ok := b.k.(Optimizer)
	if !ok {
		return fmt.Errorf("optimizers: %s: cannot describe this optimizer to parameter servers", b.cfg.name)
	}
	if err := ps.PushGradients(self, vars, grads); err != nil {
		return fmt.Errorf("optimizers: %s: pushing gradients to the parameter servers: %w", b.cfg.name, err)
	}
	return nil
}

// update is one step on replica r from aggregated gradients (scratch the
// caller owns; clipped in place): clip, decay, update rule, count. Only the
// bookkeeping is locked: each replica writes only its own copies.
func (b *base) update(r int, grads [][]float32, vars []*ops.Variable, slots [][]*ops.Variable) error {
	b.mu.Lock()
	if r < 0 || r >= b.replicas {
		n := b.replicas
		b.mu.Unlock()
		return fmt.Errorf("optimizers: %s: replica %d, but the optimizer was prepared for %d", b.cfg.name, r, n)
	}
	t := b.iterationsLocked(r)
	lr := b.lrLocked(t)
	excl := b.exclude
	b.mu.Unlock()

	for _, v := range vars {
		if r > 0 && r >= v.Replicas() {
			return fmt.Errorf("optimizers: %s: variable %q has %d copies, none for replica %d",
				b.cfg.name, v.Name(), v.Replicas(), r)
		}
	}
	apply, err := b.accumulate(r, t, grads, vars) // options_common.go
	if err != nil {
		return err
	}
	if apply {
		b.clip(grads)
		var slotData [4][]float32 // enough for every optimizer here: no allocation per step
		for i, v := range vars {
			w := v.Data(r)
			if b.cfg.hasWeightDecay && !excl.excludes(v) {
				f := float32(b.cfg.weightDecay * lr)
				for j := range w {
					w[j] -= w[j] * f
				}
			}
			sd := slotData[:len(slots[i])]
			for j, s := range slots[i] {
				sd[j] = s.Data(r)
			}
			b.k.update(w, grads[i], sd, lr, b.publicIterations(t)+1)
		}
	}
	b.updateEMA(r, b.publicIterations(t), vars) // options_common.go
	for _, v := range vars {
		ops.ApplyConstraint(v, r) // kernel_constraint= and the like, after the update as in Keras
	}

	b.mu.Lock()
	b.iters[r] = t + 1
	f := float32(t + 1)
	b.itVar.Data(r)[0] = f
	b.written[r] = f
	b.mu.Unlock()
	return nil
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// single is the one-replica context used when a caller passes nil.
type single struct{}

func (single) ReplicaID() int                 { return 0 }
func (single) NumReplicas() int               { return 1 }
func (single) AllReduceSum([][]float32) error { return nil }

// Get returns the optimizer Keras knows by name ("adam", "sgd", "rmsprop",
// "adamw", "adagrad", "adamax", "nadam", "adadelta", "lion", "ftrl";
// case-insensitive) with its default hyperparameters.
func Get(name string) (Optimizer, error) {
	switch strings.ToLower(name) {
	case "adagrad":
		return NewAdagrad(), nil
	case "adamax":
		return NewAdamax(), nil
	case "nadam":
		return NewNadam(), nil
	case "adadelta":
		return NewAdadelta(), nil
	case "lion":
		return NewLion(), nil
	case "ftrl":
		return NewFtrl(), nil
	case "sgd":
		return NewSGD(), nil
	case "adam":
		return NewAdam(), nil
	case "rmsprop":
		return NewRMSprop(), nil
	case "adamw":
		return NewAdamW(), nil
	}
	return nil, fmt.Errorf("optimizers: unknown optimizer %q (known: sgd, adam, rmsprop, adamw, adagrad, adamax, nadam, adadelta, lion, ftrl)", name)
}

// gradientSlab returns one buffer per variable, all cut from one slab in
// order: a cross-worker all-reduce sends buffers that lie back to back
// in one call, without copying them into a pack.
func gradientSlab(vars []*ops.Variable) [][]float32 {
	n := 0
	for _, v := range vars {
		n += v.Shape().Size()
	}
	slab := make([]float32, n)
	out := make([][]float32, len(vars))
	off := 0
	for i, v := range vars {
		k := v.Shape().Size()
		out[i] = slab[off : off+k]
		off += k
	}
	return out
}
