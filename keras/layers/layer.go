package layers

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"

	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/ops"
)

// Layer is a Keras layer: weights built from the input shape and a
// computation in a traced step.
type Layer interface {
	// Name is the layer's unique name, such as "conv2d_1".
	Name() string
	// ClassName is the Keras class name, such as "Conv2D".
	ClassName() string
	// Build creates the weights for these input shapes (batch dim -1).
	// It is called once, before the first Call.
	Build(inputShapes []ops.Shape) error
	Built() bool
	// Call computes the layer's output in a trace. Misuse panics with an
	// *ops.Error; model boundaries turn it into an error.
	Call(inputs []ops.Tensor, training bool) ops.Tensor
	// Weights returns every weight, trainable ones first, as Keras orders them.
	Weights() []*ops.Variable
	TrainableWeights() []*ops.Variable
	NonTrainableWeights() []*ops.Variable
	Trainable() bool
	SetTrainable(bool)
	// RegularizationLosses returns the penalties of the layer's
	// regularizers, computed in tr.
	RegularizationLosses(tr *ops.Trace) []ops.Tensor
	// GetConfig returns the constructor arguments by Keras key.
	GetConfig() map[string]any
	// InputShape is the declared input shape (without batch), or nil.
	InputShape() ops.Shape
	// Err is the error of the layer's construction, if any.
	Err() error
}

// Base implements the bookkeeping every layer shares: name, class name,
// built state, weights, trainability, regularizers, construction errors.
// Layers embed it, as Keras layers subclass keras.layers.Layer; a user's
// layer made with [NewBase] only writes Build (with AddWeight) and Call:
// the layer is marked built after its Build succeeds. The zero Base works
// too, as a layer of class "Layer" named on first use.
type Base struct {
	name      string
	class     string
	cfg       *config
	err       error
	built     bool
	trainable bool
	weights   []*ops.Variable
	// fixed holds the weights made with trainable false (moving
	// statistics, counters): SetTrainable(true) leaves them
	// non-trainable, as Keras keeps them in non_trainable_variables.
	fixed  map[*ops.Variable]bool
	regs   map[*ops.Variable]Regularizer
	rng    *rand.Rand
	budget *int64 // weight values AddWeight may still create; nil: no limit
	calls  firstCall
	policy mixedprecision.DTypePolicy // options_dtype.go
	// self is the user's layer that embeds this Base, once the framework
	// has met it (Track), or the value given to TrackFields: its fields'
	// layers and variables are tracked (tracking.go). nil for built-in
	// layers. skip leaves values out of the walk.
	self any
	skip func(any) bool
}

// LimitWeights makes AddWeight count the values of the weights it creates
// down from *budget (shared by every layer of a model loaded from a file:
// the values the file holds) and panic with an *ops.Error rather than
// allocate beyond it. nil lifts the limit.
func (b *Base) LimitWeights(budget *int64) { b.budget = budget }

// NewBase returns the Base of a user's layer of the given Keras class
// name (the default name is its snake case, numbered: "linear",
// "linear_1"), taking the options every layer takes: WithName,
// WithInputShape, WithTrainable and WithSeed (of the weight
// initialisation). Other options make Err report an error, as Keras
// rejects unknown arguments. It is Keras' super().__init__(**kwargs):
//
//	type Linear struct {
//		layers.Base
//		units int
//		w, b  *ops.Variable
//	}
//
//	func NewLinear(units int, opts ...layers.Option) *Linear {
//		return &Linear{Base: layers.NewBase("Linear", opts...), units: units}
//	}
func NewBase(class string, opts ...Option) Base {
	var b Base
	if class == "" {
		class = "Layer"
	}
	b.init(class, []string{"seed"}, opts)
	return b
}

// ensure makes a zero Base usable: a trainable layer of class "Layer"
// seeded from the global random state.
func (b *Base) ensure() {
	if b.cfg == nil && b.rng == nil && b.name == "" {
		class := b.class
		if class == "" {
			class = "Layer"
		}
		b.init(class, nil, nil)
	}
}

// setBuilt marks the layer built once its Build succeeded.
func (b *Base) setBuilt() { b.built = true }

// Build implements Layer for a layer without weights: it does nothing, as
// Keras' Layer.build. Layers with weights define their own.
func (b *Base) Build([]ops.Shape) error { return nil }

// GetConfig implements Layer: the keys every layer has (name, trainable,
// dtype, the input shape when given). A user's layer with arguments of
// its own adds them to this map.
func (b *Base) GetConfig() map[string]any {
	b.ensure()
	return b.baseConfig()
}

func (b *Base) init(class string, allowed []string, opts []Option) {
	b.class = class
	b.cfg, b.err = newConfig(class, allowed, opts)
	b.trainable = b.cfg.trainable
	b.name = b.cfg.name
	if b.name == "" {
		b.name = UniqueName(snake(class))
	}
	b.initPolicy()
	if b.err != nil {
		b.err = fmt.Errorf("%w (layer %q)", b.err, b.name)
	}
	seed := nextSeed()
	if b.cfg.hasSeed {
		seed = uint64(b.cfg.seed)
	}
	b.rng = rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
}

// Name implements Layer.
func (b *Base) Name() string {
	b.ensure()
	return b.name
}

// ClassName implements Layer.
func (b *Base) ClassName() string {
	b.ensure()
	return b.class
}

// Built implements Layer.
func (b *Base) Built() bool { return b.built }

// Err implements Layer.
func (b *Base) Err() error { return b.err }

// Trainable implements Layer.
func (b *Base) Trainable() bool { return b.trainable }

// SetTrainable implements Layer: a frozen layer's weights are
// non-trainable; unfreezing makes trainable again only the weights made
// trainable (AddWeight's trainable argument), so a BatchNormalization's
// moving statistics stay non-trainable, as in Keras.
func (b *Base) SetTrainable(t bool) {
	b.ensure()
	b.trainable = t
	for _, w := range b.weights {
		if !b.fixed[w] {
			w.SetTrainable(t)
		}
	}
	for _, p := range b.parts() {
		switch {
		case p.layer != nil:
			p.layer.SetTrainable(t)
		case p.v != nil && !b.fixed[p.v]:
			p.v.SetTrainable(t)
		}
	}
}

// InputShape implements Layer.
func (b *Base) InputShape() ops.Shape {
	if b.cfg == nil || b.cfg.inputShape == nil {
		return nil
	}
	return ops.Shape(b.cfg.inputShape).Clone()
}

// Weights implements Layer: the trainable weights, then the others. A
// layer that holds other layers in its fields (see [Track]) lists its own
// weights, then each sublayer's, as Keras' layer.weights.
func (b *Base) Weights() []*ops.Variable {
	if b.self != nil {
		return b.trackedWeights()
	}
	return append(b.TrainableWeights(), b.NonTrainableWeights()...)
}

// TrainableWeights implements Layer.
func (b *Base) TrainableWeights() []*ops.Variable {
	ws := b.weights
	if b.self != nil {
		if !b.trainable {
			return nil
		}
		ws = b.trackedWeights()
	}
	var out []*ops.Variable
	for _, w := range ws {
		if w.Trainable() {
			out = append(out, w)
		}
	}
	return out
}

// NonTrainableWeights implements Layer.
func (b *Base) NonTrainableWeights() []*ops.Variable {
	ws := b.weights
	if b.self != nil {
		ws = b.trackedWeights()
		if !b.trainable {
			return ws
		}
	}
	var out []*ops.Variable
	for _, w := range ws {
		if !w.Trainable() {
			out = append(out, w)
		}
	}
	return out
}

// RegularizationLosses implements Layer: the penalties of the layer's
// weight regularizers, then its sublayers'.
func (b *Base) RegularizationLosses(tr *ops.Trace) []ops.Tensor {
	var out []ops.Tensor
	for _, w := range b.weights {
		if r := b.regs[w]; r != nil {
			out = append(out, r.Penalty(tr.Read(w)))
		}
	}
	for _, p := range b.parts() {
		if p.layer != nil {
			out = append(out, p.layer.RegularizationLosses(tr)...)
		}
	}
	return out
}

// AddWeight creates a weight named "<layer>/<name>", initialised by init
// from the layer's seeded random stream, as Keras' add_weight.
func (b *Base) AddWeight(name string, shape ops.Shape, init Initializer, trainable bool, reg Regularizer) *ops.Variable {
	return b.addWeightAs(name, name, shape, init, trainable, reg)
}

// addWeightAs is AddWeight for a weight whose constraint and regularizer
// options are keyed by another name than its own: DepthwiseConv's
// weight is "kernel", as Keras 3 names it, and takes the
// depthwise_constraint (the options' "depthwise_kernel").
func (b *Base) addWeightAs(name, optionsKey string, shape ops.Shape, init Initializer, trainable bool, reg Regularizer) *ops.Variable {
	b.ensure()
	if b.rng == nil {
		b.rng = rand.New(rand.NewPCG(nextSeed(), 0x5851f42d4c957f2d))
	}
	for _, d := range shape {
		if d < 0 {
			panic(&ops.Error{Op: b.name, Msg: fmt.Sprintf("weight %q of shape %v depends on a dimension of unknown size (None) of the input", name, shape)})
		}
	}
	if b.budget != nil {
		n := int64(1)
		for _, d := range shape {
			if d > 0 && n > *b.budget/int64(d) {
				panic(&ops.Error{Op: b.name, Msg: fmt.Sprintf("weight %q of shape %v: more values than the %d the file holds", name, shape, *b.budget)})
			}
			n *= int64(max(d, 0))
		}
		*b.budget -= n
	}
	var v *ops.Variable
	if _, fresh := init.(freshInitializer); fresh {
		v = ops.NewVariableOwned(b.name+"/"+name, shape, init.Init(shape, b.rng), trainable && b.trainable)
	} else { // a caller's initializer may hand out a slice it keeps
		v = ops.NewVariable(b.name+"/"+name, shape, init.Init(shape, b.rng), trainable && b.trainable)
	}
	reg = b.attachWeightOptions(optionsKey, v, reg) // options_constraints.go
	b.weights = append(b.weights, v)
	if !trainable {
		if b.fixed == nil {
			b.fixed = map[*ops.Variable]bool{}
		}
		b.fixed[v] = true
	}
	if reg != nil {
		if b.regs == nil {
			b.regs = map[*ops.Variable]Regularizer{}
		}
		b.regs[v] = reg
	}
	return v
}

// baseConfig returns the config keys every layer reports.
func (b *Base) baseConfig() map[string]any {
	m := map[string]any{"name": b.name, "trainable": b.trainable, "dtype": b.policy.Config()}
	if b.cfg != nil && b.cfg.inputShape != nil {
		bs := append([]any{nil}, intsAny(b.cfg.inputShape)...)
		m["batch_input_shape"] = bs
	}
	b.weightOptionsConfig(m) // options_constraints.go
	return m
}

func intsAny(v []int) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

var (
	namesMu sync.Mutex
	names   = map[string]int{}
	seedMu  sync.Mutex
	seedRng = rand.New(rand.NewPCG(0, 0))
)

// UniqueName returns prefix the first time, then prefix_1, prefix_2, ...,
// as Keras names layers and models.
func UniqueName(prefix string) string {
	namesMu.Lock()
	defer namesMu.Unlock()
	n := names[prefix]
	names[prefix] = n + 1
	if n == 0 {
		return prefix
	}
	return fmt.Sprintf("%s_%d", prefix, n)
}

// ClearSession resets layer name counters, as keras.backend.clear_session.
func ClearSession() {
	namesMu.Lock()
	names = map[string]int{}
	namesMu.Unlock()
}

// SetRandomSeed seeds the global random state, as
// keras.utils.set_random_seed: the weight initialisation of layers created
// afterwards, and the random streams (dropout masks, augmentation) of
// training steps traced afterwards.
func SetRandomSeed(seed uint64) {
	seedMu.Lock()
	seedRng = rand.New(rand.NewPCG(seed, 0))
	seedGeneration++
	seedMu.Unlock()
}

// seedGeneration counts SetRandomSeed calls.
var seedGeneration uint64

// RandomSeedGeneration counts the calls of SetRandomSeed: keras/random
// makes its global seed generator afresh after each, as
// keras.utils.set_random_seed resets Keras' global SeedGenerator.
func RandomSeedGeneration() uint64 {
	seedMu.Lock()
	defer seedMu.Unlock()
	return seedGeneration
}

// DrawSeed draws a seed from the global random state that SetRandomSeed
// sets. Models seed their step functions' random streams with it.
func DrawSeed() uint64 { return nextSeed() }

func nextSeed() uint64 {
	seedMu.Lock()
	defer seedMu.Unlock()
	return seedRng.Uint64()
}

var (
	snake1 = regexp.MustCompile(`(.)([A-Z][a-z0-9]+)`)
	snake2 = regexp.MustCompile(`([a-z])([A-Z])`)
)

// snake converts a class name to Keras' snake case: Conv2D -> conv2d,
// MaxPooling2D -> max_pooling2d, ReLU -> re_lu.
func snake(s string) string {
	s = snake1.ReplaceAllString(s, "${1}_${2}")
	return strings.ToLower(snake2.ReplaceAllString(s, "${1}_${2}"))
}

// checkRank panics with an *ops.Error when the input has the wrong rank.
func checkRank(l Layer, x ops.Tensor, ranks ...int) {
	for _, r := range ranks {
		if x.Rank() == r {
			return
		}
	}
	panic(&ops.Error{Op: fmt.Sprintf("layer %q (%s)", l.Name(), l.ClassName()), Msg: fmt.Sprintf("expected input of rank %v, got shape %v", ranks, x.Shape())})
}
