package keras

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// serialize returns the content of config.json.
func (m *Model) serialize() (map[string]any, error) {
	if m.subclass != nil {
		return m.subclassSerialize()
	}
	var inner map[string]any
	var err error
	if m.sequential {
		inner, err = m.sequentialConfig()
	} else {
		inner, err = m.functionalConfig()
	}
	if err != nil {
		return nil, err
	}
	out := map[string]any{"module": "keras", "class_name": m.className, "config": inner, "registered_name": nil}
	switch {
	case !m.sequential:
		// As Keras 3 writes a functional model: its class lives in
		// keras.src.models.functional, registered under its own name,
		// and its inputs give the shapes.
		out["module"] = "keras.src.models.functional"
		out["registered_name"] = "Functional"
		out["build_config"] = map[string]any{"input_shape": nil}
	case m.Built():
		out["build_config"] = map[string]any{"input_shape": batchShape(m.inputs[0].Shape())}
	}
	if m.compiled {
		cc, err := m.compileConfig()
		if err != nil {
			return nil, err
		}
		out["compile_config"] = cc
	}
	return out, nil
}

// batchShape is a symbolic shape as Keras serialises it: None for -1.
func batchShape(s ops.Shape) []any {
	out := make([]any, len(s))
	for i, d := range s {
		if d >= 0 {
			out[i] = d
		}
	}
	return out
}

func nodeInputShape(n *layers.CallNode) any {
	if len(n.Inputs) == 1 {
		return batchShape(n.Inputs[0].Shape())
	}
	shapes := make([]any, len(n.Inputs))
	for i, in := range n.Inputs {
		shapes[i] = batchShape(in.Shape())
	}
	return shapes
}

func layerEntry(l layers.Layer, inputShape any) map[string]any {
	cfg := maps.Clone(l.GetConfig())
	if inputShape != nil {
		// The model's InputLayer gives the shape; Keras 3 layers take no
		// batch_input_shape argument.
		delete(cfg, "batch_input_shape")
	}
	withLayerModules(cfg)
	e := map[string]any{"module": "keras.layers", "class_name": l.ClassName(), "config": cfg, "registered_name": nil}
	if mod, ok := l.(interface{ Module() string }); ok && mod.Module() != "" {
		// A Keras class outside keras.layers (ConvNeXt's LayerScale):
		// its module, and the name it is registered under.
		e["module"], e["registered_name"] = mod.Module(), l.ClassName()
	}
	if _, ok := l.(*ModelLayer); ok {
		nestedModelEntry(e) // a nested model, as Keras writes it (config_model.go)
	}
	if inputShape != nil {
		e["build_config"] = map[string]any{"input_shape": inputShape}
		if names, ok := positionalInputs[l.ClassName()]; ok {
			// Keras builds such a layer from a dict of named shapes.
			if shapes, ok := inputShape.([]any); ok && len(shapes) <= len(names) {
				d := map[string]any{}
				for i, sh := range shapes {
					d[names[i]] = sh
				}
				e["build_config"] = map[string]any{"shapes_dict": d}
			}
		}
	}
	return e
}

// positionalInputs are the classes Keras calls with one positional
// argument per input tensor rather than a list (MultiHeadAttention's
// query, value, key), with the names of their build shapes.
var positionalInputs = map[string][]string{
	"MultiHeadAttention":  {"query_shape", "value_shape", "key_shape"},
	"GroupQueryAttention": {"query_shape", "value_shape", "key_shape"},
}

// nestedLayerKeys are the config keys that hold a wrapped layer or cell
// (TimeDistributed's layer, Bidirectional's layer and backward_layer, an
// RNN's cell).
var nestedLayerKeys = []string{"layer", "backward_layer", "forward_layer", "cell"}

// withLayerModules gives the layers nested in cfg the "module" and
// "registered_name" Keras 3 needs to find their classes, replacing (not
// mutating) the nested maps.
func withLayerModules(cfg map[string]any) {
	for _, k := range nestedLayerKeys {
		sub, ok := cfg[k].(map[string]any)
		if !ok || sub["class_name"] == nil {
			continue
		}
		sub = maps.Clone(sub)
		if _, ok := sub["module"]; !ok {
			sub["module"] = "keras.layers"
		}
		if _, ok := sub["registered_name"]; !ok {
			sub["registered_name"] = nil
		}
		if c, ok := sub["config"].(map[string]any); ok {
			c = maps.Clone(c)
			withLayerModules(c)
			sub["config"] = c
		}
		cfg[k] = sub
	}
}

func inputLayerEntry(in *layers.KerasTensor) map[string]any {
	return map[string]any{"module": "keras.layers", "class_name": "InputLayer", "registered_name": nil,
		"config": map[string]any{"batch_shape": batchShape(in.Shape()), "dtype": in.Dtype(), "sparse": false, "name": in.Node().Layer.Name()}}
}

func (m *Model) sequentialConfig() (map[string]any, error) {
	entries := []any{}
	inner := map[string]any{"name": m.name, "trainable": true, "dtype": modelDTypeConfig()} // mixed_config.go
	seen := map[string]bool{}
	add := func(l layers.Layer, shape any) error {
		if seen[l.Name()] {
			return fmt.Errorf("two layers are named %q (or a layer is used twice): a Sequential model saves each layer once", l.Name())
		}
		seen[l.Name()] = true
		entries = append(entries, layerEntry(l, shape))
		return nil
	}
	if m.Built() {
		entries = append(entries, inputLayerEntry(m.inputs[0]))
		inner["build_input_shape"] = batchShape(m.inputs[0].Shape())
		for _, n := range m.nodes {
			if err := add(n.Layer, nodeInputShape(n)); err != nil {
				return nil, err
			}
		}
	} else {
		for _, l := range m.pending {
			if err := add(l, nil); err != nil {
				return nil, err
			}
		}
	}
	inner["layers"] = entries
	return inner, nil
}

func (m *Model) functionalConfig() (map[string]any, error) {
	// Each call of a layer is one of its inbound nodes, numbered in the
	// order the model calls it.
	pos := map[*layers.CallNode]int{}
	calls := map[layers.Layer][]*layers.CallNode{}
	for _, n := range m.nodes {
		pos[n] = len(calls[n.Layer]) + firstCallNode(n.Layer)
		calls[n.Layer] = append(calls[n.Layer], n)
	}
	ref := func(t *layers.KerasTensor) []any {
		n := t.Node()
		if n.IsInput {
			return []any{n.Layer.Name(), 0, 0}
		}
		return []any{n.Layer.Name(), pos[n], 0}
	}
	tensorArg := func(t *layers.KerasTensor) map[string]any {
		return map[string]any{"class_name": "__keras_tensor__", "config": map[string]any{
			"shape": batchShape(t.Shape()), "dtype": t.Dtype(), "keras_history": ref(t)}}
	}
	inputOf := map[layers.Layer]*layers.KerasTensor{}
	for _, in := range m.inputs {
		inputOf[in.Node().Layer] = in
	}
	// Layers in model.layers order, the InputLayers where Keras puts them.
	seen := map[string]bool{}
	entries := []any{}
	for _, l := range m.ordered {
		if seen[l.Name()] {
			return nil, fmt.Errorf("two layers are named %q: give the layers distinct names", l.Name())
		}
		seen[l.Name()] = true
		if in, ok := inputOf[l]; ok {
			e := inputLayerEntry(in)
			e["name"] = l.Name()
			e["inbound_nodes"] = []any{}
			entries = append(entries, e)
			continue
		}
		ns := calls[l]
		switch x := l.(type) {
		case *layers.MaskAttach:
			continue // folded into its consumers' mask arguments (saving_nodes.go)
		case *layers.Operation:
			entries = append(entries, operationEntry(x, ns, tensorArg))
			continue
		}
		e := layerEntry(l, nodeInputShape(ns[0]))
		e["name"] = l.Name()
		inbound := make([]any, len(ns))
		for i, n := range ns {
			inputs, masks := unmaskInputs(n.Inputs)
			var args []any
			if len(inputs) == 1 {
				args = []any{tensorArg(inputs[0])}
			} else {
				list := make([]any, len(inputs))
				for j, in := range inputs {
					list[j] = tensorArg(in)
				}
				args = []any{list}
				if _, ok := positionalInputs[l.ClassName()]; ok {
					args = list // query, value, key: one argument each
				}
			}
			kwargs := map[string]any{}
			if n.Training != nil {
				kwargs["training"] = *n.Training
			}
			if masks != nil {
				kwargs["mask"] = maskArg(masks, tensorArg)
			}
			if causalMask(l) {
				kwargs["use_causal_mask"] = true
			}
			inbound[i] = map[string]any{"args": args, "kwargs": kwargs}
		}
		e["inbound_nodes"] = inbound
		entries = append(entries, e)
	}
	ins := make([]any, len(m.inputs))
	for i, in := range m.inputs {
		ins[i] = ref(in)
	}
	outs := make([]any, len(m.outputs))
	for i, o := range m.outputs {
		if _, ok := o.Node().Layer.(*layers.MaskAttach); ok {
			return nil, fmt.Errorf("output %d is a MaskAttach node's, which Keras has no layer for: output its first input", i)
		}
		outs[i] = ref(o)
	}
	return map[string]any{"name": m.name, "trainable": true, "layers": entries, "input_layers": ins, "output_layers": outs}, nil
}

// firstCallNode is the node index Keras gives a layer's first call: 1 for
// a nested functional model (Keras' Functional has a node of its own,
// from its inputs to its outputs, before any call), 0 otherwise.
func firstCallNode(l layers.Layer) int {
	if ml, ok := l.(*ModelLayer); ok && !ml.Model().sequential {
		return 1
	}
	return 0
}

// firstCallNodeOf is firstCallNode for a layer entry of a config.
func firstCallNodeOf(class string) int {
	if class == "Functional" {
		return 1
	}
	return 0
}

// weightBudget bounds the weight values that the layers of a model loaded
// from a file may create while it is built: the values the file holds, so
// that a config asking for a huge layer is an error, not an allocation
// (layers' AddWeight panics with an *ops.Error beyond it). nil: no bound.
type weightBudget struct {
	left    int64
	limited []interface{ LimitWeights(*int64) }
	// tensors is the tensor budget (config_budget.go): the most values
	// per sample of any layer's output; 0 none.
	tensors int64
}

// tensorBudget is b's tensor budget, 0 (none) for a nil b.
func (b *weightBudget) tensorBudget() int64 {
	if b == nil {
		return 0
	}
	return b.tensors
}

// layerFromEntry makes the layer of a config entry under budget: a nested
// model is built here with the outer model's budgets (the function
// registered for its class builds without them), any other class through
// the registry, its weights then limited.
func layerFromEntry(class string, cfg map[string]any, budget *weightBudget) (layers.Layer, error) {
	if budget != nil && (class == "Sequential" || class == "Functional") {
		m, err := modelFromConfig(map[string]any{"class_name": class, "config": cfg}, budget)
		if err != nil {
			return nil, fmt.Errorf("layer %s %v from config: %w", class, cfg["name"], err)
		}
		return m.AsLayer(), nil
	}
	if newModel := registeredSubclass(class); newModel != nil {
		// A registered subclassed model used as a layer: made by its
		// constructor, built by the call its node makes.
		m, err := subclassFromConfig(class, newModel, map[string]any{"class_name": class, "config": cfg})
		if err != nil {
			return nil, fmt.Errorf("layer %s %v from config: %w", class, cfg["name"], err)
		}
		return m.AsLayer(), nil
	}
	l, err := LayerFromConfig(class, cfg)
	if err != nil {
		return nil, err
	}
	budget.limit(l)
	return l, nil
}

func (b *weightBudget) limit(l layers.Layer) {
	if lw, ok := l.(interface{ LimitWeights(*int64) }); ok && b != nil {
		lw.LimitWeights(&b.left)
		b.limited = append(b.limited, lw)
	}
}

// lift removes the bound once the model is built (a model loaded unbuilt
// builds later, from data).
func (b *weightBudget) lift() {
	if b != nil {
		for _, l := range b.limited {
			l.LimitWeights(nil)
		}
	}
}

func modelFromConfig(top map[string]any, budget *weightBudget) (*Model, error) {
	class, _ := top["class_name"].(string)
	inner, ok := top["config"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: no model config", kerasConfigFile)
	}
	switch class {
	case "Sequential":
		return sequentialFromConfig(inner, top, budget)
	case "Functional", "Model":
		return functionalFromConfig(inner, budget)
	}
	if newModel := registeredSubclass(class); newModel != nil {
		return subclassFromConfig(class, newModel, top)
	}
	return nil, fmt.Errorf("%s: model class %q is not supported (Sequential and Functional are; register a subclassed model's class with RegisterSubclass)", kerasConfigFile, class)
}

func sequentialFromConfig(cfg, top map[string]any, budget *weightBudget) (*Model, error) {
	entries, _ := cfg["layers"].([]any)
	var shape []int
	var ls []layers.Layer
	for i, e := range entries {
		em, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("layer entry %d is not an object", i)
		}
		class, _ := em["class_name"].(string)
		lc, _ := em["config"].(map[string]any)
		if class == "InputLayer" {
			s, err := inputLayerShape(lc)
			if err != nil {
				return nil, err
			}
			shape = s
			if dt := inputLayerDtype(lc); dt != nil && len(ls) == 0 {
				// An integer input is the model's InputLayer, as in
				// keras.Sequential([keras.Input(shape, dtype="int32"), ...]).
				n, _ := lc["name"].(string)
				opts := []layers.Option{dt}
				if n != "" {
					opts = append(opts, layers.WithName(n))
				}
				ls = append(ls, layers.NewInputLayer(s, opts...))
			}
			continue
		}
		l, err := layerFromEntry(class, lc, budget)
		if err != nil {
			return nil, err
		}
		if shape == nil && len(ls) == 0 {
			if bc, ok := em["build_config"].(map[string]any); ok {
				shape, _ = shapeWithoutBatch(bc["input_shape"])
			}
		}
		ls = append(ls, l)
	}
	if shape == nil {
		shape, _ = shapeWithoutBatch(cfg["build_input_shape"])
	}
	if shape == nil {
		if bc, ok := top["build_config"].(map[string]any); ok {
			shape, _ = shapeWithoutBatch(bc["input_shape"])
		}
	}
	if err := checkSequentialOutputs(ls, shape, budget.tensorBudget()); err != nil {
		return nil, err
	}
	m, err := NewSequential(ls...)
	if err != nil {
		return nil, err
	}
	if name, ok := cfg["name"].(string); ok && name != "" {
		m.name = name
	}
	if !m.Built() && shape != nil && len(m.pending) > 0 {
		if err := m.build(shape); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// inputLayerDtype is the option that gives a loaded Input the integer
// dtype its InputLayer config names ("int32", "int64", as a name or a
// DTypePolicy), or nil: every other dtype loads as float32, gokeras'
// only float input dtype.
func inputLayerDtype(cfg map[string]any) layers.Option {
	d, _ := cfg["dtype"].(string)
	if p, ok := cfg["dtype"].(map[string]any); ok {
		c, _ := p["config"].(map[string]any)
		d, _ = c["name"].(string)
	}
	if d == "int32" || d == "int64" {
		return layers.WithDtype(d)
	}
	return nil
}

// inputLayerShape reads an InputLayer config's shape (Keras 3's
// batch_shape or Keras 2's batch_input_shape), without the batch.
func inputLayerShape(cfg map[string]any) ([]int, error) {
	for _, k := range []string{"batch_shape", "batch_input_shape"} {
		if v, ok := cfg[k]; ok && v != nil {
			s, err := shapeWithoutBatch(v)
			if err != nil {
				return nil, fmt.Errorf("InputLayer %v: %w", cfg["name"], err)
			}
			return s, nil
		}
	}
	if v, ok := cfg["shape"]; ok && v != nil {
		s, err := toInts(v)
		if err != nil {
			return nil, fmt.Errorf("InputLayer %v: shape: %w", cfg["name"], err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("InputLayer %v has no shape", cfg["name"])
}

// shapeWithoutBatch reads a serialised batch shape [None, d1, ...]; a
// None past the batch is layers.None.
func shapeWithoutBatch(v any) ([]int, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("bad shape %v", v)
	}
	out := make([]int, len(list)-1)
	for i, d := range list[1:] {
		if d == nil {
			out[i] = layers.None // Keras' None: a dimension of unknown size
			continue
		}
		n, ok := toInt(d)
		if !ok || n <= 0 {
			return nil, fmt.Errorf("shape %v: dimension %d is %v; want a size > 0 or None", v, i+1, d)
		}
		out[i] = n
	}
	return out, nil
}

type tensorRef struct {
	layer       string
	node, index int
}

func (r tensorRef) String() string { return fmt.Sprintf("%s[%d][%d]", r.layer, r.node, r.index) }

func parseRef(v any) (tensorRef, error) {
	list, ok := v.([]any)
	if !ok || len(list) < 3 {
		return tensorRef{}, fmt.Errorf("bad tensor reference %v", v)
	}
	name, ok1 := list[0].(string)
	node, ok2 := toInt(list[1])
	idx, ok3 := toInt(list[2])
	if !ok1 || !ok2 || !ok3 {
		return tensorRef{}, fmt.Errorf("bad tensor reference %v", v)
	}
	return tensorRef{name, node, idx}, nil
}

// parseRefs reads a list of references, or a single one ([name, 0, 0]).
func parseRefs(v any) ([]tensorRef, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("bad tensor list %v", v)
	}
	if len(list) > 0 {
		if _, single := list[0].(string); single {
			r, err := parseRef(list)
			return []tensorRef{r}, err
		}
	}
	out := make([]tensorRef, len(list))
	for i, x := range list {
		r, err := parseRef(x)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func functionalFromConfig(cfg map[string]any, budget *weightBudget) (*Model, error) {
	entries, _ := cfg["layers"].([]any)
	type pendingCall struct {
		layer layers.Layer
		name  string
		node  int
		refs  []tensorRef
		// training: the node's kwargs "training", when it is a bool
		// (`base(x, training=False)`).
		training *bool
		// nIn: the call's inputs are refs[:nIn]; masks[i], when not
		// -1, is the index in refs of input i's mask (the node's mask
		// argument, saving_nodes.go).
		nIn   int
		masks []int
	}
	tensors := map[tensorRef]*layers.KerasTensor{}
	var pending []pendingCall
	var err error
	for i, e := range entries {
		em, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("layer entry %d is not an object", i)
		}
		class, _ := em["class_name"].(string)
		lc, _ := em["config"].(map[string]any)
		name, _ := em["name"].(string)
		if name == "" {
			name, _ = lc["name"].(string)
		}
		if class == "InputLayer" {
			shape, err := inputLayerShape(lc)
			if err != nil {
				return nil, err
			}
			opts := []layers.Option{layers.WithName(name)}
			if dt := inputLayerDtype(lc); dt != nil {
				opts = append(opts, dt)
			}
			kt := layers.Input(shape, opts...)
			if err := kt.Err(); err != nil {
				return nil, err
			}
			tensors[tensorRef{name, 0, 0}] = kt
			continue
		}
		nodes, _ := em["inbound_nodes"].([]any)
		parsed := make([]parsedNode, len(nodes))
		for j, n := range nodes {
			if parsed[j], err = parseNode(n); err != nil {
				return nil, fmt.Errorf("layer %q: node %d: %w", name, j, err)
			}
		}
		if isOperationEntry(em) { // saving_nodes.go
			op, err := operationFromEntry(class, name, lc, parsed)
			if err != nil {
				return nil, err
			}
			for j, p := range parsed {
				pending = append(pending, pendingCall{layer: op, name: name, node: j, refs: p.refs, nIn: len(p.refs)})
			}
			continue
		}
		l, err := layerFromEntry(class, lc, budget)
		if err != nil {
			return nil, err
		}
		causal := 0
		for j, p := range parsed {
			call, err := layerNodeCall(class, p)
			if err != nil {
				return nil, fmt.Errorf("layer %q: node %d: %w", name, j, err)
			}
			if call.causal {
				causal++
			}
			pending = append(pending, pendingCall{l, name, j + firstCallNodeOf(class), p.refs, call.training, len(call.refs), call.masks})
		}
		if causal > 0 {
			if err := setCausalMask(l, name, causal == len(parsed)); err != nil {
				return nil, err
			}
		}
	}
	// Call layers once their inputs exist; a shared layer's later calls
	// may depend on layers listed after it.
	for len(pending) > 0 {
		var next []pendingCall
		for _, p := range pending {
			all := make([]*layers.KerasTensor, len(p.refs))
			ready := true
			for i, r := range p.refs {
				if all[i] = tensors[r]; all[i] == nil {
					ready = false
					break
				}
			}
			if !ready {
				next = append(next, p)
				continue
			}
			ins := all[:p.nIn]
			for i, m := range p.masks {
				if m < 0 {
					continue
				}
				// The layer's call gets the mask Keras' got (saving_nodes.go).
				ma := layers.NewMaskAttach(layers.WithName(maskNodeName(p.name, p.node, i)))
				if ins[i] = layers.Apply(ma, ins[i], all[m]); ins[i].Err() != nil {
					return nil, fmt.Errorf("layer %q: mask of input %d: %w", p.name, i, ins[i].Err())
				}
			}
			var out *layers.KerasTensor
			if p.training != nil {
				out = layers.ApplyTraining(p.layer, *p.training, ins...)
			} else {
				out = layers.Apply(p.layer, ins...)
			}
			if err := out.Err(); err != nil {
				return nil, err
			}
			if err := checkOutputSize(p.layer, out.Shape(), budget.tensorBudget()); err != nil {
				return nil, err
			}
			tensors[tensorRef{p.name, p.node, 0}] = out
		}
		if len(next) == len(pending) {
			p := next[0]
			return nil, fmt.Errorf("cannot connect layer %q: one of its inputs %v is produced by no layer of the config", p.name, p.refs)
		}
		pending = next
	}
	lookup := func(key string) ([]*layers.KerasTensor, error) {
		refs, err := parseRefs(cfg[key])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		out := make([]*layers.KerasTensor, len(refs))
		for i, r := range refs {
			if out[i] = tensors[r]; out[i] == nil {
				return nil, fmt.Errorf("%s: no tensor %v", key, r)
			}
		}
		return out, nil
	}
	ins, err := lookup("input_layers")
	if err != nil {
		return nil, err
	}
	outs, err := lookup("output_layers")
	if err != nil {
		return nil, err
	}
	var opts []ModelOption
	if name, ok := cfg["name"].(string); ok && name != "" {
		opts = append(opts, ModelName(name))
	}
	return NewModel(ins, outs, opts...)
}

// ---- JSON values ----

// toInt reads an integer from a decoded JSON number or a Go integer.
func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int32:
		return int(x), true
	case int64:
		return int(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), true
		}
	case float32:
		if float64(x) == math.Trunc(float64(x)) {
			return int(x), true
		}
	case json.Number:
		n, err := x.Int64()
		return int(n), err == nil
	}
	return 0, false
}

// toFloat reads a number.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// toInts reads an integer or a list of integers.
func toInts(v any) ([]int, error) {
	if n, ok := toInt(v); ok {
		return []int{n}, nil
	}
	var list []any
	switch x := v.(type) {
	case []any:
		list = x
	case []int:
		return slices.Clone(x), nil
	case []int64:
		out := make([]int, len(x))
		for i, n := range x {
			out[i] = int(n)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("want an integer or a list of integers, got %v", v)
	}
	out := make([]int, len(list))
	for i, x := range list {
		n, ok := toInt(x)
		if !ok {
			return nil, fmt.Errorf("want a list of integers, got %v", v)
		}
		out[i] = n
	}
	return out, nil
}

func shapeStr(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
