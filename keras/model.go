package keras

import (
	"errors"
	"fmt"
	"sort"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Model is a Keras model: a graph of layer calls from inputs to outputs,
// made by [NewSequential] or [NewModel]. A Model is not safe for concurrent
// use.
type Model struct {
	name       string
	className  string
	sequential bool
	pending    []layers.Layer      // Sequential layers waiting for an input shape
	input      *layers.KerasTensor // a Sequential model's InputLayer, when given

	inputs  []*layers.KerasTensor
	outputs []*layers.KerasTensor
	nodes   []*layers.CallNode // topological order, inputs excluded
	layers  []layers.Layer     // unique layers in Keras' order (no InputLayer)
	ordered []layers.Layer     // the same with the InputLayers, as Keras lists them

	compiled    bool
	optimizer   optimizers.Optimizer
	loss        losses.Loss
	metricSpecs []any
	metrics     []metrics.LabelMetric
	lossTracker *metrics.Mean

	// lossScaleAuto: Compile wrapped the optimizer in a LossScaleOptimizer
	// (mixed_float16), which the compile config does not record.
	lossScaleAuto bool

	// With several outputs: a loss per output (nil: m.loss for all), their
	// weights, the output each metric watches, per-output loss trackers.
	outputLosses []losses.Loss
	lossWeights  []float64
	metricOutput []int
	// Keras' weighted_metrics: their specs, and for each compiled metric
	// whether it takes the sample weights.
	weightedSpecs      []any
	metricWeighted     []bool
	outputLossTrackers []*metrics.Mean
	// Metrics by output (CompileConfig.MetricsByOutput or one list per
	// output); nil: metricSpecs and weightedSpecs serve every output.
	outputMetricSpecs, outputWeightedSpecs [][]any
	stepsPerExecution                      int
	asLayer                                *ModelLayer // the model nested in others (nested.go)

	fns          stepFunctions
	strategy     engine.Strategy
	custom       customSteps // Override's steps and metrics
	stopTraining bool
	// onBuilt: what runs once the model's weights exist (a deferred
	// checkpoint restore, checkpoint.go).
	onBuilt []func() error
	// subclass is the layer of a model made by Subclass: the model's own
	// call, whose tracked fields are the model's attributes (saved at the
	// root of a weights file, as Keras saves a subclassed model's).
	subclass layers.Layer
	// History is the history of the last Fit.
	History *History
}

// ModelOption sets a keyword argument of a model constructor.
type ModelOption func(*Model)

// ModelName names the model (Keras' name=).
func ModelName(name string) ModelOption { return func(m *Model) { m.name = name } }

// NewSequential makes a Sequential model of ls. If the first layer is an
// InputLayer (layers.NewInputLayer, as keras.Sequential([keras.Input(shape),
// ...])) or declares its input shape (layers.WithInputShape) the model is
// built now; otherwise at the first Fit, Evaluate or Predict, from the
// data.
func NewSequential(ls ...layers.Layer) (*Model, error) {
	if err := engine.ScopeErr(); err != nil {
		return nil, fmt.Errorf("keras: NewSequential: %w", err)
	}
	m := &Model{className: "Sequential", sequential: true, strategy: engine.CurrentStrategy()}
	m.name = layers.UniqueName("sequential")
	for _, l := range ls {
		if err := m.Add(l); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// MustSequential is like [NewSequential] but panics on error.
func MustSequential(ls ...layers.Layer) *Model {
	m, err := NewSequential(ls...)
	if err != nil {
		panic(err)
	}
	return m
}

// Add appends a layer to a Sequential model.
func (m *Model) Add(l layers.Layer) error {
	if err := m.usable("Add"); err != nil {
		return err
	}
	if !m.sequential {
		return errors.New("keras: Add: only Sequential models take Add")
	}
	if l == nil {
		return errors.New("keras: Add: nil layer")
	}
	if err := l.Err(); err != nil {
		return err
	}
	if il, ok := l.(*layers.InputLayer); ok {
		// keras.Sequential([keras.Input(shape), ...]): the model's input,
		// not one of its layers.
		if m.inputs != nil || len(m.pending) > 0 {
			return fmt.Errorf("keras: Add: InputLayer %q must be the first layer of Sequential model %q", il.Name(), m.name)
		}
		m.input = il.Tensor()
		return m.build(il.OutputShape()[1:])
	}
	if m.inputs == nil {
		m.pending = append(m.pending, l)
		if s := m.pending[0].InputShape(); s != nil {
			return m.build(s)
		}
		return nil
	}
	out := layers.Apply(l, m.outputs[0])
	if err := out.Err(); err != nil {
		return fmt.Errorf("keras: %s: %w", m.name, err)
	}
	m.outputs = []*layers.KerasTensor{out}
	return m.index()
}

// build creates the Sequential model's graph for inputs of shape (without batch).
func (m *Model) build(shape ops.Shape) error {
	// Weights made now belong to the strategy the model was created under,
	// as Keras builds a model under its distribution strategy.
	defer engine.EnterScope(m.strategy)()
	in := m.input
	if in == nil {
		in = layers.Input(shape)
	}
	x := in
	for _, l := range m.pending {
		x = layers.Apply(l, x)
	}
	if err := x.Err(); err != nil {
		return fmt.Errorf("keras: %s: %w", m.name, err)
	}
	m.pending = nil
	m.inputs = []*layers.KerasTensor{in}
	m.outputs = []*layers.KerasTensor{x}
	if err := m.index(); err != nil {
		return err
	}
	return m.runOnBuilt()
}

// runOnBuilt runs, once, what waited for the model's weights to exist (a
// checkpoint restored before the model was built).
func (m *Model) runOnBuilt() error {
	hooks := m.onBuilt
	m.onBuilt = nil
	for _, h := range hooks {
		if err := h(); err != nil {
			return err
		}
	}
	return nil
}

// NewModel makes a functional model from symbolic inputs to outputs, as
// keras.Model(inputs, outputs). Errors met while calling layers on the
// symbolic tensors are returned here.
func NewModel(inputs, outputs []*layers.KerasTensor, opts ...ModelOption) (*Model, error) {
	if err := engine.ScopeErr(); err != nil {
		return nil, fmt.Errorf("keras: NewModel: %w", err)
	}
	m := &Model{className: "Functional", strategy: engine.CurrentStrategy()}
	for _, o := range opts {
		o(m)
	}
	if m.name == "" {
		m.name = layers.UniqueName("model")
	}
	if len(inputs) == 0 || len(outputs) == 0 {
		return nil, errors.New("keras: NewModel: needs at least one input and one output")
	}
	for _, t := range append(append([]*layers.KerasTensor(nil), inputs...), outputs...) {
		if t == nil {
			return nil, errors.New("keras: NewModel: nil tensor")
		}
		if err := t.Err(); err != nil {
			return nil, fmt.Errorf("keras: NewModel: %w", err)
		}
	}
	for _, in := range inputs {
		if !in.Node().IsInput {
			return nil, fmt.Errorf("keras: NewModel: input of shape %v does not come from layers.Input", in.Shape())
		}
	}
	m.inputs, m.outputs = inputs, outputs
	for _, o := range opts {
		o(m)
	}
	return m, m.index()
}

// index orders the layer calls between inputs and outputs topologically
// (m.nodes, the order steps run them in) and orders the layers as Keras'
// model.layers does (m.layers, m.ordered): by depth, the longest path from
// the layer to an output, deepest first, and within one depth by when a
// depth-first walk from the outputs first meets the layer. Summary rows,
// weight order and checkpoint keys follow that order, so branchy models
// list their layers as Keras lists them.
func (m *Model) index() error {
	isInput := map[*layers.KerasTensor]bool{}
	for _, in := range m.inputs {
		isInput[in] = true
	}
	seen := map[*layers.CallNode]bool{}
	var order []*layers.CallNode        // post-order without input nodes
	var all []*layers.CallNode          // post-order with input nodes
	firstSeen := map[layers.Layer]int{} // pre-order index of each layer
	var visit func(t *layers.KerasTensor) error
	visit = func(t *layers.KerasTensor) error {
		n := t.Node()
		if seen[n] {
			return nil
		}
		seen[n] = true
		if _, ok := firstSeen[n.Layer]; !ok {
			firstSeen[n.Layer] = len(firstSeen)
		}
		if n.IsInput {
			if !isInput[t] {
				return fmt.Errorf("keras: %s: graph disconnected: output depends on input %q that is not among the model's inputs", m.name, n.Layer.Name())
			}
			all = append(all, n)
			return nil
		}
		for _, in := range n.Inputs {
			if err := visit(in); err != nil {
				return err
			}
		}
		order = append(order, n)
		all = append(all, n)
		return nil
	}
	for _, o := range m.outputs {
		if err := visit(o); err != nil {
			return err
		}
	}
	m.nodes = order

	// Depths, walking from the outputs back: a node is one deeper than the
	// deepest node it feeds, and a layer called several times takes the
	// depth of its deepest call.
	nodeDepth := map[*layers.CallNode]int{}
	layerDepth := map[layers.Layer]int{}
	for i := len(all) - 1; i >= 0; i-- {
		n := all[i]
		d := max(nodeDepth[n], layerDepth[n.Layer])
		nodeDepth[n], layerDepth[n.Layer] = d, d
		for _, in := range n.Inputs {
			p := in.Node()
			nodeDepth[p] = max(nodeDepth[p], d+1)
		}
	}
	// Inputs that no output depends on (their values may feed losses) come
	// first among depth 0, in the order of the model's inputs.
	for i, in := range m.inputs {
		l := in.Node().Layer
		if _, ok := firstSeen[l]; !ok {
			firstSeen[l], layerDepth[l] = i-len(m.inputs), 0
		}
	}
	ordered := make([]layers.Layer, 0, len(layerDepth))
	for l := range layerDepth {
		ordered = append(ordered, l)
	}
	sort.Slice(ordered, func(i, j int) bool {
		a, b := ordered[i], ordered[j]
		if layerDepth[a] != layerDepth[b] {
			return layerDepth[a] > layerDepth[b]
		}
		return firstSeen[a] < firstSeen[b]
	})
	m.ordered = ordered
	m.layers = nil
	for _, l := range ordered {
		if _, ok := l.(*layers.InputLayer); !ok {
			m.layers = append(m.layers, l)
		}
	}
	m.fns = stepFunctions{}
	return nil
}

// Built reports whether the model knows its input shape and has its weights.
func (m *Model) Built() bool { return m != nil && m.inputs != nil }

// Name returns the model's name.
func (m *Model) Name() string {
	if m == nil {
		return ""
	}
	return m.name
}

// Layers returns the model's layers in Keras' model.layers order: for a
// functional model its InputLayers too, every layer ordered by depth from
// the inputs, ties in the order a walk back from the outputs meets them.
func (m *Model) Layers() []layers.Layer {
	if m == nil {
		return nil
	}
	switch {
	case m.inputs == nil:
		return append([]layers.Layer{}, m.pending...)
	case m.sequential:
		return append([]layers.Layer{}, m.layers...)
	}
	return append([]layers.Layer{}, m.ordered...)
}

// Inputs returns the model's symbolic inputs.
func (m *Model) Inputs() []*layers.KerasTensor {
	if m == nil {
		return nil
	}
	return m.inputs
}

// Outputs returns the model's symbolic outputs.
func (m *Model) Outputs() []*layers.KerasTensor {
	if m == nil {
		return nil
	}
	return m.outputs
}

// Weights returns all weights in Keras order: layer by layer, each layer's
// trainable weights then its non-trainable ones.
func (m *Model) Weights() []*ops.Variable {
	if m == nil {
		return nil
	}
	var out []*ops.Variable
	for _, l := range m.layers {
		out = append(out, l.Weights()...)
	}
	return out
}

// TrainableVariables returns the weights optimizers update.
func (m *Model) TrainableVariables() []*ops.Variable {
	if m == nil {
		return nil
	}
	var out []*ops.Variable
	for _, l := range m.layers {
		out = append(out, l.TrainableWeights()...)
	}
	return out
}

// NonTrainableVariables returns the weights optimizers leave alone.
func (m *Model) NonTrainableVariables() []*ops.Variable {
	if m == nil {
		return nil
	}
	var out []*ops.Variable
	for _, l := range m.layers {
		out = append(out, l.NonTrainableWeights()...)
	}
	return out
}

// GetWeights returns copies of all weights, as Keras' get_weights.
func (m *Model) GetWeights() []*tensor.Dense {
	if m == nil {
		return nil
	}
	return layers.GetWeights(m.AsLayer())
}

// SetWeights sets all weights from ws, in GetWeights' order. Every entry
// must be non-nil with its weight's shape; nothing is assigned otherwise.
func (m *Model) SetWeights(ws []*tensor.Dense) error {
	if err := m.usable("SetWeights"); err != nil {
		return err
	}
	vars := m.Weights()
	if len(ws) != len(vars) {
		return fmt.Errorf("keras: SetWeights: model %s has %d weights, got %d", m.name, len(vars), len(ws))
	}
	vals := make([][]float32, len(vars))
	for i, v := range vars {
		if ws[i] == nil {
			return fmt.Errorf("keras: SetWeights: weight %d (%s) is nil", i, v.Name())
		}
		if !ops.Shape(ws[i].Shape()).Equal(v.Shape()) {
			return fmt.Errorf("keras: SetWeights: %s has shape %v, got %v", v.Name(), v.Shape(), ws[i].Shape())
		}
		val, err := valueOf(ws[i])
		if err != nil {
			return fmt.Errorf("keras: SetWeights: %s: %w", v.Name(), err)
		}
		vals[i] = val.Data
	}
	for i, v := range vars {
		if err := v.Assign(vals[i]); err != nil {
			return fmt.Errorf("keras: SetWeights: %s: %w", v.Name(), err)
		}
	}
	return nil
}

// Call computes the model in a trace on inputs (one per model input) and
// returns its outputs: `model(x, training=...)` inside a traced step.
// Shape misuse panics with an *ops.Error that Fit, Function and the other
// boundaries return as an error.
func (m *Model) Call(inputs []ops.Tensor, training bool) []ops.Tensor {
	m.mustUsable("Call")
	if m.inputs == nil && len(inputs) == 1 {
		if err := m.build(inputs[0].Shape()[1:]); err != nil {
			panic(&ops.Error{Op: m.name, Msg: err.Error()})
		}
	}
	if len(inputs) != len(m.inputs) {
		panic(&ops.Error{Op: fmt.Sprintf("model %q", m.name), Msg: fmt.Sprintf("takes %d inputs, got %d", len(m.inputs), len(inputs))})
	}
	vals := map[*layers.KerasTensor]ops.Tensor{}
	for i, in := range m.inputs {
		want, got := in.Shape(), inputs[i].Shape()
		if !shapeMatches(want, got) {
			panic(&ops.Error{Op: fmt.Sprintf("model %q", m.name), Msg: fmt.Sprintf("input %d (%q) expects shape %v, got %v", i, in.Node().Layer.Name(), want, got)})
		}
		vals[in] = inputs[i]
	}
	for _, n := range m.nodes {
		args := make([]ops.Tensor, len(n.Inputs))
		for i, in := range n.Inputs {
			args[i] = vals[in]
		}
		mode := training
		if n.Training != nil {
			// A call fixed to inference stays there (fine-tuning's
			// base_model(x, training=False)); a call fixed to training
			// does not make Predict or Evaluate random: Keras 3's
			// functional call passes its own training=False over a
			// node's saved training=True (an augmentation layer called
			// on a model's input saves that kwarg).
			mode = training && *n.Training
		}
		vals[n.Output] = callLayer(n.Layer, args, mode)
	}
	out := make([]ops.Tensor, len(m.outputs))
	for i, o := range m.outputs {
		out[i] = vals[o]
	}
	return out
}

// callLayer calls l, naming the layer in any *ops.Error it raises.
func callLayer(l layers.Layer, args []ops.Tensor, training bool) ops.Tensor {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*ops.Error); ok {
				shapes := make([]ops.Shape, len(args))
				for i, a := range args {
					shapes[i] = a.Shape()
				}
				panic(&ops.Error{Op: fmt.Sprintf("layer %q (%s)", l.Name(), l.ClassName()), Msg: fmt.Sprintf("input shape %v: %v", shapes, e)})
			}
			panic(r)
		}
	}()
	return layers.CallWithPolicy(l, training, args...) // the layer's dtype policy (layers/mixed_call.go)
}

// Forward is Call for a model with one input and one output:
// `predictions = model(images, training=True)`.
func (m *Model) Forward(x ops.Tensor, training bool) ops.Tensor {
	return m.Call([]ops.Tensor{x}, training)[0]
}

// shapeMatches compares a symbolic shape (-1 matches anything) to a concrete one.
func shapeMatches(want, got ops.Shape) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if want[i] >= 0 && want[i] != got[i] {
			return false
		}
	}
	return true
}

// RegularizationLosses returns the layers' regularization penalties in tr
// (Keras' model.losses).
func (m *Model) RegularizationLosses(tr *ops.Trace) []ops.Tensor {
	if m == nil {
		return nil
	}
	var out []ops.Tensor
	for _, l := range m.layers {
		out = append(out, l.RegularizationLosses(tr)...)
	}
	return out
}

// StopTraining asks Fit to stop after the current epoch (Keras'
// model.stop_training = True), for callbacks such as EarlyStopping.
func (m *Model) StopTraining() {
	if m != nil {
		m.stopTraining = true
	}
}

// Strategy returns the distribution strategy the model was created under.
func (m *Model) Strategy() engine.Strategy {
	if m == nil {
		return nil
	}
	return m.strategy
}

// checkScope reports a strategy scope the model cannot be compiled in: one
// entered while another strategy's was active, or the scope of a strategy
// other than the model's (a model made outside a 2-replica scope would
// train on one replica; TF raises too). Compiling outside any scope is
// fine: the model keeps the strategy it was made under.
func (m *Model) checkScope() error {
	if err := engine.ScopeErr(); err != nil {
		return fmt.Errorf("keras: Compile: %w", err)
	}
	cur := engine.CurrentStrategy()
	if cur == m.strategy || cur == engine.Default() {
		return nil
	}
	return fmt.Errorf("keras: Compile: model %q was created outside the scope of %s, under %s, and is compiled "+
		"inside it: it would not train on the scope's replicas; create the model inside strategy.Scope() "+
		"(TF: Mixing different tf.distribute.Strategy objects)",
		m.name, engine.DescribeStrategy(cur), engine.DescribeStrategy(m.strategy))
}

// checkMirrored verifies every weight has one copy per replica of the
// model's strategy: a layer built outside the strategy's scope has one.
func (m *Model) checkMirrored() error {
	n := m.strategy.NumReplicasInSync()
	for _, v := range m.Weights() {
		if v.Replicas() != n {
			return fmt.Errorf("variable %q has %d copies but the model's strategy has %d replicas: it was created outside strategy.Scope(); create the model's layers inside the scope", v.Name(), v.Replicas(), n)
		}
	}
	return nil
}

// Optimizer returns the compiled optimizer.
func (m *Model) Optimizer() optimizers.Optimizer {
	if m == nil {
		return nil
	}
	return m.optimizer
}

// Build builds a Sequential model for inputs of the given shape (without
// the batch dimension), as model.build((None, ...)).
func (m *Model) Build(shape ...int) error {
	if err := m.usable("Build"); err != nil {
		return err
	}
	if m.Built() {
		return nil
	}
	if !m.sequential {
		return fmt.Errorf("keras: Build: model %q is functional and built already", m.name)
	}
	return m.build(ops.Shape(shape))
}
