package keras

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// Structure keys.
//
// Keras 3 keys every variable of a weights file by the object's place in
// the model's structure, not by its (auto-generated) name, so that a model
// rebuilt in another process, or in the same one after other layers were
// made, loads the file. Its H5IOStore paths come from a walk of the model:
// the model's own variables at "vars", then its layers as a container
// "layers" in model.layers order (the InputLayers included for a
// functional model, not for a Sequential one), each named by the snake
// case of its class with a counter per container ("layers/conv2d",
// "layers/conv2d_1", "layers/input_layer"), a nested model walked the same
// way below its own path, then the optimizer at "optimizer". Each object
// keeps its variables as the datasets "<path>/vars/0", "1", ...: a layer's
// trainable variables then its non-trainable ones, in the order it made
// them; the optimizer's iteration count, its learning rate (when it is a
// constant) and its slots in Keras' order (see kerasOptimizerVars). A
// layer or model met twice (a shared layer) is saved once, where it is
// first met. Every object gets its "vars" group, empty or not, with the
// object's name as its "name" attribute.

// varKind says what a structure entry's variable is when it is not an
// ops.Variable of the model.
type varKind int

const (
	kindVariable     varKind = iota // an *ops.Variable
	kindIterations                  // the optimizer's step count (int64)
	kindLearningRate                // the optimizer's constant learning rate
	kindUProduct                    // Nadam's running product of momentum factors
	kindIntVariable                 // an *ops.Variable holding an integer, saved as int64 (a LossScaleOptimizer's step_counter)
	kindZeroInt                     // an int64 0 gokeras does not keep (a LossScaleOptimizer's own iteration; read and ignored)
	kindZeroFloat                   // a float32 0 gokeras does not keep (a LossScaleOptimizer's own learning rate)
	kindLossScale                   // a LossScaleOptimizer's dynamic_scale: a float32 scalar, positive and finite
)

// structVar is one dataset of a weights file.
type structVar struct {
	kind  varKind
	v     *ops.Variable // kindVariable
	shape ops.Shape
}

// structEntry is one object's "vars" group.
type structEntry struct {
	path      string // "" for the model itself, "layers/dense", "optimizer"
	name      string // the object's name: the group's "name" attribute
	vars      []structVar
	optimizer bool
}

// varsPath is where the entry's datasets live: "<path>/vars".
func (e structEntry) varsPath() string {
	if e.path == "" {
		return "vars"
	}
	return e.path + "/vars"
}

// describe is the entry's variables as "(3, 3, 1, 32), (32,)".
func (e structEntry) describe() string {
	if len(e.vars) == 0 {
		return "none"
	}
	parts := make([]string, len(e.vars))
	for i, v := range e.vars {
		parts[i] = shapeStr(v.shape)
	}
	return strings.Join(parts, ", ")
}

// SavedChildren is implemented by layers that keep their variables in
// sublayers, as Keras' LSTM keeps its weights in its cell: Keras saves
// each child below the layer's path at the attribute's name
// ("layers/lstm/cell/vars/0"). attrs and children are parallel, in Keras'
// order (attribute names sorted, private ones last). OwnWeights are the
// layer's variables that belong to no child, saved at the layer's own
// "vars".
type SavedChildren interface {
	SavedChildren() (attrs []string, children []layers.Layer)
	OwnWeights() []*ops.Variable
}

// nestedModel is implemented by a layer that is a whole model (a model
// used as a layer): it is saved as Keras saves a nested model.
type nestedModel interface {
	SavedModel() *Model
}

// structure returns the model's entries, with the optimizer's when
// withOptimizer and the model is compiled with one.
func (m *Model) structure(withOptimizer bool) ([]structEntry, error) {
	var out []structEntry
	seen := map[any]bool{}
	if err := m.structureAt("", &out, seen); err != nil {
		return nil, err
	}
	if withOptimizer && m.optimizer != nil {
		vars, err := m.kerasOptimizerVars()
		if err != nil {
			return nil, err
		}
		if lso, ok := m.optimizer.(*optimizers.LossScaleOptimizer); ok { // mixed_saving.go
			out = append(out, lossScaleEntries(lso, vars)...)
		} else {
			out = append(out, structEntry{path: "optimizer", name: m.optimizer.Name(), vars: vars, optimizer: true})
		}
	}
	return out, nil
}

// savedLayers is model.layers as Keras walks it: with the InputLayers for
// a functional model, without for a Sequential one.
func (m *Model) savedLayers() []layers.Layer {
	if m.sequential || m.inputs == nil {
		if m.inputs == nil {
			return append([]layers.Layer(nil), m.pending...)
		}
		return append([]layers.Layer(nil), m.layers...)
	}
	return append([]layers.Layer(nil), m.ordered...)
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func (m *Model) structureAt(path string, out *[]structEntry, seen map[any]bool) error {
	seen[m] = true
	if m.subclass != nil {
		return m.subclassStructure(path, out, seen)
	}
	*out = append(*out, structEntry{path: path, name: m.name})
	return layerContainer(joinPath(path, "layers"), m.savedLayers(), out, seen)
}

// layerContainer walks a list of layers as Keras' _save_container_state.
func layerContainer(path string, ls []layers.Layer, out *[]structEntry, seen map[any]bool) error {
	used := map[string]int{}
	for _, l := range ls {
		name := uniqueInContainer(kerasSnake(pythonClass(l.ClassName())), used)
		if err := layerStructure(joinPath(path, name), l, out, seen); err != nil {
			return err
		}
	}
	return nil
}

func layerStructure(path string, l layers.Layer, out *[]structEntry, seen map[any]bool) error {
	if seen[l] {
		return nil
	}
	var sub *Model
	switch x := l.(type) {
	case *ModelLayer:
		sub = x.Model()
	case nestedModel:
		sub = x.SavedModel()
	}
	if sub != nil {
		if seen[sub] {
			return nil
		}
		seen[l] = true
		return sub.structureAt(path, out, seen)
	}
	seen[l] = true
	own, attrs, children := savedChildren(l)
	e := structEntry{path: path, name: l.Name()}
	for _, v := range own {
		e.vars = append(e.vars, structVar{v: v, shape: v.Shape()})
	}
	*out = append(*out, e)
	if len(attrs) != len(children) {
		return fmt.Errorf("layer %q: SavedChildren gives %d names for %d children", l.Name(), len(attrs), len(children))
	}
	for i, c := range children {
		if err := childStructure(path, l, attrs[i], c, out, seen); err != nil {
			return err
		}
	}
	return nil
}

// childStructure walks the child c that layer l saves at attribute attr.
func childStructure(path string, l layers.Layer, attr string, c any, out *[]structEntry, seen map[any]bool) error {
	p := joinPath(path, attr)
	switch c := c.(type) {
	case layers.Layer:
		return layerStructure(p, c, out, seen)
	case varsChild:
		ce := structEntry{path: p, name: strings.TrimSuffix(strings.TrimPrefix(attr, "_"), "_dense")}
		for _, v := range c {
			ce.vars = append(ce.vars, structVar{v: v, shape: v.Shape()})
		}
		*out = append(*out, ce)
	case layers.Cell:
		if seen[c] {
			return nil
		}
		seen[c] = true
		ce := structEntry{path: p, name: c.Name()}
		for _, v := range c.Weights() {
			ce.vars = append(ce.vars, structVar{v: v, shape: v.Shape()})
		}
		*out = append(*out, ce)
	default:
		return fmt.Errorf("layer %q: child %q is a %T, neither a layer nor a cell", l.Name(), attr, c)
	}
	return nil
}

// subclassStructure walks a subclassed model as Keras saves one: its
// attributes (its call's tracked fields) at the model's path
// ("encoder/dense_proj/vars/0"), not below the layer list of the
// Sequential that runs the call. Keras walks the attributes in sorted
// order, and a Model's "layers" property is one of them: the sublayers no
// attribute sorted before "layers" reached are saved there, by class name
// in the model's layer order ("layers/dense_1" for a field "out"), and an
// attribute after it finds its layer saved already.
func (m *Model) subclassStructure(path string, out *[]structEntry, seen map[any]bool) error {
	l := m.subclass
	seen[l] = true
	own, attrs, children := savedChildren(l)
	e := structEntry{path: path, name: m.name}
	for _, v := range own {
		e.vars = append(e.vars, structVar{v: v, shape: v.Shape()})
	}
	*out = append(*out, e)
	if len(attrs) != len(children) {
		return fmt.Errorf("model %q: %d names for %d children", m.name, len(attrs), len(children))
	}
	listed := false
	list := func() error {
		listed = true
		return layerContainer(joinPath(path, "layers"), layers.Sublayers(l), out, seen)
	}
	for i, c := range children {
		if !listed && attrs[i] > "layers" {
			if err := list(); err != nil {
				return err
			}
		}
		if err := childStructure(path, l, attrs[i], c, out, seen); err != nil {
			return err
		}
	}
	if !listed {
		return list()
	}
	return nil
}

// varsChild is a sublayer Keras has and gokeras does not: its variables,
// saved at the attribute's path.
type varsChild []*ops.Variable

// savedChildren returns the variables a layer keeps itself and the
// objects Keras saves below it, at their attribute names (each a
// layers.Layer or a layers.Cell): an RNN layer (LSTM, GRU, SimpleRNN, RNN)
// keeps its weights in its "cell"; Bidirectional in its "backward_layer"
// and "forward_layer" (attribute names sorted, as Keras walks them);
// TimeDistributed in its "layer".
func savedChildren(l layers.Layer) (own []*ops.Variable, attrs []string, children []any) {
	switch x := l.(type) {
	case SavedChildren:
		as, cs := x.SavedChildren()
		for _, c := range cs {
			children = append(children, c)
		}
		return x.OwnWeights(), as, children
	case *layers.Bidirectional:
		return nil, []string{"backward_layer", "forward_layer"}, []any{x.Backward, x.Forward}
	case *layers.TimeDistributed:
		return nil, []string{"layer"}, []any{x.Layer}
	case *layers.MultiHeadAttention:
		// Keras' MultiHeadAttention keeps its projections in EinsumDense
		// sublayers (public properties, sorted) and has a dropout and a
		// softmax layer (private attributes, last) without variables.
		dense := func(vs ...*ops.Variable) varsChild {
			var out varsChild
			for _, v := range vs {
				if v != nil {
					out = append(out, v)
				}
			}
			return out
		}
		return nil, []string{"key_dense", "output_dense", "query_dense", "value_dense", "_dropout_layer", "_softmax"},
			[]any{dense(x.KeyKernel, x.KeyBias), dense(x.OutputKernel, x.OutputBias), dense(x.QueryKernel, x.QueryBias),
				dense(x.ValueKernel, x.ValueBias), varsChild(nil), varsChild(nil)}
	case *layers.GroupQueryAttention:
		// Keras' GroupedQueryAttention keeps its projections in private
		// EinsumDense attributes (sorted: the dropout and the gate, the
		// key, output and query projections, the softmax, the value).
		dense := func(vs ...*ops.Variable) varsChild {
			var out varsChild
			for _, v := range vs {
				if v != nil {
					out = append(out, v)
				}
			}
			return out
		}
		attrs := []string{"_dropout_layer", "_key_dense", "_output_dense", "_query_dense", "_softmax", "_value_dense"}
		cs := []any{varsChild(nil), dense(x.KeyKernel, x.KeyBias), dense(x.OutputKernel, x.OutputBias),
			dense(x.QueryKernel, x.QueryBias), varsChild(nil), dense(x.ValueKernel, x.ValueBias)}
		if x.GateKernel != nil {
			attrs = append(attrs[:1], append([]string{"_gate_dense"}, attrs[1:]...)...)
			cs = append(cs[:1], append([]any{dense(x.GateKernel, x.GateBias)}, cs[1:]...)...)
		}
		return nil, attrs, cs
	case interface{ CellOf() layers.Cell }:
		if c := x.CellOf(); c != nil {
			return nil, []string{"cell"}, []any{c}
		}
	}
	// A user's layer holding layers in its fields: them at their
	// attribute names, as Keras saves a layer's tracked attributes.
	if own, attrs, cs, ok := layers.TrackedChildren(l); ok && len(cs) > 0 {
		for _, c := range cs {
			children = append(children, c)
		}
		return own, attrs, children
	}
	return l.Weights(), nil, nil
}

// pythonClass is the Python class of a Keras class name where the two
// differ (Keras 3 exports GroupedQueryAttention as GroupQueryAttention and
// writes that name in configs, but names its weights' paths after the
// class).
func pythonClass(class string) string {
	if class == "GroupQueryAttention" {
		return "GroupedQueryAttention"
	}
	return class
}

// uniqueInContainer is Keras' _get_unique_name: the first "dense", then
// "dense_1", "dense_2", ...
func uniqueInContainer(name string, used map[string]int) string {
	n, ok := used[name]
	if !ok {
		used[name] = 0
		return name
	}
	used[name] = n + 1
	return fmt.Sprintf("%s_%d", name, n+1)
}

var (
	snakeNonWord = regexp.MustCompile(`\W+`)
	snakeWord    = regexp.MustCompile(`(.)([A-Z][a-z]+)`)
	snakeLower   = regexp.MustCompile(`([a-z])([A-Z])`)
)

// kerasSnake is Keras' naming.to_snake_case, which names the objects of a
// container: Conv2D -> conv2d, MaxPooling2D -> max_pooling2d, ReLU ->
// re_lu, InputLayer -> input_layer.
func kerasSnake(name string) string {
	name = snakeNonWord.ReplaceAllString(name, "")
	name = snakeWord.ReplaceAllString(name, "${1}_${2}")
	return strings.ToLower(snakeLower.ReplaceAllString(name, "${1}_${2}"))
}

// kerasOptimizerVars lists the optimizer's variables in the order of
// Keras' optimizer.variables: the iteration count, the learning rate when
// it is a constant (Keras keeps it in a variable; a schedule has none),
// then the slots Keras' build makes for model.trainable_variables. Keras
// makes each call of add_optimizer_variables interleaved per variable
// (Adam: m0, v0, m1, v1, ...); Adam's AMSGrad velocity_hat and each of
// RMSprop's slots come from calls of their own, so they follow as blocks.
// Nadam ends with its running product u_product. A not yet built
// optimizer has only the first two.
func (m *Model) kerasOptimizerVars() ([]structVar, error) {
	opt := compiledOptimizer(m.optimizer) // a LossScaleOptimizer's inner one
	out := []structVar{{kind: kindIterations, shape: ops.Shape{}}}
	if _, ok := m.constantLearningRate(); ok {
		out = append(out, structVar{kind: kindLearningRate, shape: ops.Shape{}})
	}
	all := opt.Variables()
	if len(all) <= 1 {
		return out, nil
	}
	byName := map[string]*ops.Variable{}
	for _, v := range all[1:] {
		byName[v.Name()] = v
	}
	train := m.TrainableVariables()
	slotOf := func(slot string, v *ops.Variable) *ops.Variable {
		return byName[opt.Name()+"/"+slot+"/"+strings.ReplaceAll(v.Name(), "/", "_")]
	}
	// The slot names, in the optimizer's order, from the first variable.
	var slots []string
	if len(train) > 0 {
		prefix := opt.Name() + "/"
		suffix := "/" + strings.ReplaceAll(train[0].Name(), "/", "_")
		for _, v := range all[1:] {
			n := v.Name()
			if strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix) && len(n) > len(prefix)+len(suffix) {
				slots = append(slots, n[len(prefix):len(n)-len(suffix)])
			}
		}
	}
	used := 0
	for _, group := range kerasSlotGroups(typeName(opt), slots) {
		for _, v := range train {
			for _, s := range group {
				sv := slotOf(s, v)
				if sv == nil {
					return nil, fmt.Errorf("optimizer %s has no %s slot for variable %q", opt.Name(), s, v.Name())
				}
				out = append(out, structVar{v: sv, shape: sv.Shape()})
				used++
			}
		}
	}
	if used != len(all)-1 {
		return nil, fmt.Errorf("optimizer %s has %d slot variables, but %d for the model's %d trainable variables", opt.Name(), len(all)-1, used, len(train))
	}
	if _, ok := opt.(*optimizers.Nadam); ok {
		out = append(out, structVar{kind: kindUProduct, shape: ops.Shape{}})
	}
	return out, nil
}

// kerasSlotGroups splits an optimizer's slot names into the groups Keras'
// build makes with one add_optimizer_variables call each.
func kerasSlotGroups(class string, slots []string) [][]string {
	switch class {
	case "RMSprop":
		out := make([][]string, len(slots))
		for i, s := range slots {
			out[i] = []string{s}
		}
		return out
	case "Adam", "AdamW":
		var first, hat []string
		for _, s := range slots {
			if s == "velocity_hat" {
				hat = append(hat, s)
			} else {
				first = append(first, s)
			}
		}
		if hat != nil {
			return [][]string{first, hat}
		}
		return [][]string{first}
	}
	return [][]string{slots}
}

// nadamUProduct is Keras' Nadam u_product after steps updates: the product
// of beta_1 * (1 - 0.5 * 0.96^t) over t = 1..steps, in float32 as Keras
// keeps it (it underflows to zero within a few thousand steps).
func nadamUProduct(beta1 float64, steps int64) float32 {
	p := float32(1)
	for t := int64(1); t <= steps && p != 0; t++ {
		p *= float32(beta1) * (1 - 0.5*float32(math.Pow(0.96, float64(t))))
	}
	return p
}
