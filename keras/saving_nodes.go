package keras

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
)

// Inbound nodes of a functional config.
//
// Keras 3 records each call of a layer or an operation as a node: its
// positional arguments ("args") and keyword arguments ("kwargs"), as
// serialize_keras_object writes them. A tensor is {"class_name":
// "__keras_tensor__", "config": {"keras_history": [name, node, index]}};
// a constant is a plain JSON value, or a __slice__, __ellipsis__,
// __numpy__ or __tensor__ object; lists nest. A layer's arguments are
// tensors (one, a list for a merge layer, several for
// MultiHeadAttention's query, value and key); its kwargs may hold
// training (a boolean) and mask (a tensor, or a list with one per input,
// that Keras' call receives: the masks of Embedding(mask_zero=True) and
// Masking, saved as NotEqual and Any operation nodes). An operation's
// arguments mix tensors and constants (Add(x, 3.0), GetItem(x, [slice,
// 0])). Keras 2's nodes are lists of [name, node, index, kwargs].

// parsedNode is one inbound node read: the tensors it takes (in the order
// its arguments list them) and its arguments with a layers.OpTensor
// where each goes.
type parsedNode struct {
	refs   []tensorRef
	args   []any
	kwargs map[string]any
}

// nodeArgParser reads a node's argument trees, collecting tensor
// references.
type nodeArgParser struct {
	refs []tensorRef
}

// parse reads one argument (tree).
func (p *nodeArgParser) parse(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		class, _ := x["class_name"].(string)
		c, _ := x["config"].(map[string]any)
		switch class {
		case "__keras_tensor__":
			r, err := parseRef(c["keras_history"])
			if err != nil {
				return nil, err
			}
			p.refs = append(p.refs, r)
			return layers.OpTensor(len(p.refs) - 1), nil
		case "__slice__":
			var s layers.OpSlice
			for _, f := range []struct {
				key string
				dst **int
			}{{"start", &s.Start}, {"stop", &s.Stop}, {"step", &s.Step}} {
				b := c[f.key]
				if b == nil {
					continue
				}
				n, ok := toInt(b)
				if !ok || n > 1<<31 || n < -(1<<31) {
					return nil, fmt.Errorf("slice %s %v is not an integer", f.key, compactJSON(b))
				}
				*f.dst = &n
			}
			return s, nil
		case "__ellipsis__":
			return layers.OpEllipsis{}, nil
		case "__numpy__", "__tensor__":
			return parseArray(class, c)
		case "":
			if _, ok := x["config"]; !ok {
				// A Python dict of arguments.
				out := map[string]any{}
				for _, k := range sortedKeys(x) {
					e, err := p.parse(x[k])
					if err != nil {
						return nil, err
					}
					out[k] = e
				}
				return out, nil
			}
		}
		return nil, fmt.Errorf("argument %s (a %s object) is not a value gokeras reads", compactJSON(class), compactJSON(x["module"]))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			a, err := p.parse(e)
			if err != nil {
				return nil, err
			}
			out[i] = a
		}
		return out, nil
	case nil, bool, string, float64:
		return x, nil
	}
	if f, ok := toFloat(v); ok {
		return f, nil
	}
	return nil, fmt.Errorf("argument %v is not a value gokeras reads", v)
}

// parseArray reads a __numpy__ or __tensor__ constant: a nested list of
// numbers and a dtype.
func parseArray(class string, c map[string]any) (layers.OpArray, error) {
	a := layers.OpArray{}
	a.Dtype, _ = c["dtype"].(string)
	var shape []int
	v := c["value"]
	for {
		l, ok := v.([]any)
		if !ok {
			break
		}
		shape = append(shape, len(l))
		if len(l) == 0 {
			return a, fmt.Errorf("%s constant %s is empty", class, compactJSON(c["value"]))
		}
		v = l[0]
	}
	var walk func(v any, d int) error
	walk = func(v any, d int) error {
		if d == len(shape) {
			f, ok := toFloat(v)
			if b, isBool := v.(bool); isBool {
				f, ok = 0, true
				if b {
					f = 1
				}
			}
			if !ok {
				return fmt.Errorf("%s constant %s: %s is not a number", class, compactJSON(c["value"]), compactJSON(v))
			}
			a.Values = append(a.Values, f)
			return nil
		}
		l, ok := v.([]any)
		if !ok || len(l) != shape[d] {
			return fmt.Errorf("%s constant %s is not a regular array", class, compactJSON(c["value"]))
		}
		for _, e := range l {
			if err := walk(e, d+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(c["value"], 0); err != nil {
		return a, err
	}
	a.Shape = shape
	return a, nil
}

// parseNode reads an inbound node of either format.
func parseNode(node any) (parsedNode, error) {
	switch n := node.(type) {
	case map[string]any:
		var p nodeArgParser
		args, err := p.parse(n["args"])
		if err != nil {
			return parsedNode{}, err
		}
		list, ok := args.([]any)
		switch {
		case n["args"] == nil:
			list = []any{} // keyword arguments only
		case !ok:
			list = []any{args}
		}
		out := parsedNode{args: list, kwargs: map[string]any{}}
		if kw, ok := n["kwargs"].(map[string]any); ok {
			for _, k := range sortedKeys(kw) {
				v, err := p.parse(kw[k])
				if err != nil {
					return parsedNode{}, fmt.Errorf("keyword argument %q: %w", k, err)
				}
				out.kwargs[k] = v
			}
		}
		out.refs = p.refs
		return out, nil
	case []any:
		out := parsedNode{kwargs: map[string]any{}}
		for i, x := range n {
			r, err := parseRef(x)
			if err != nil {
				return parsedNode{}, err
			}
			out.refs = append(out.refs, r)
			out.args = append(out.args, layers.OpTensor(i))
		}
		if len(out.args) > 1 {
			out.args = []any{out.args}
		}
		return out, nil
	}
	return parsedNode{}, fmt.Errorf("bad inbound node %s", compactJSON(node))
}

// layerCall is what a layer's node asks of its call: the tensors in
// order, the training argument, the mask of each input (-1: none; an
// index into refs) and Keras' call arguments gokeras keeps on the layer.
type layerCall struct {
	refs     []tensorRef
	training *bool
	masks    []int
	causal   bool
}

// layerNodeCall checks that a layer's node passes only tensors (no
// constants) as arguments and reads its keyword arguments.
func layerNodeCall(class string, n parsedNode) (layerCall, error) {
	c := layerCall{}
	nIn := 0
	var check func(v any) error
	check = func(v any) error {
		switch x := v.(type) {
		case layers.OpTensor:
			nIn++
			return nil
		case []any:
			for _, e := range x {
				if err := check(e); err != nil {
					return err
				}
			}
			return nil
		case map[string]any:
			for _, k := range sortedKeys(x) {
				if err := check(x[k]); err != nil {
					return err
				}
			}
			return nil
		}
		return fmt.Errorf("argument %s is not a tensor (a layer takes tensors; constants are for operations)", describeNodeArg(v))
	}
	for _, a := range n.args {
		if err := check(a); err != nil {
			return c, err
		}
	}
	if nIn == 0 {
		return c, fmt.Errorf("the call passes the layer no tensor")
	}
	c.refs = n.refs[:nIn]
	for _, k := range sortedKeys(n.kwargs) {
		v := n.kwargs[k]
		switch k {
		case "key":
			// MultiHeadAttention(query, value, key=k): Keras writes the
			// key as a keyword argument; it is the layer's third input.
			if i, ok := v.(layers.OpTensor); ok && int(i) == nIn && nIn == 2 && positionalInputs[class] != nil {
				nIn++
				c.refs = n.refs[:nIn]
				continue
			}
		case "training":
			if t, ok := v.(bool); ok {
				c.training = &t
			}
			continue
		case "mask":
			masks, err := nodeMasks(v, nIn)
			if err != nil {
				return c, err
			}
			c.masks = masks
			continue
		case "use_causal_mask":
			if b, ok := v.(bool); ok && b {
				if class != "MultiHeadAttention" && class != "Attention" && class != "GroupQueryAttention" {
					return c, fmt.Errorf("use_causal_mask is an argument of MultiHeadAttention, GroupQueryAttention and Attention calls, not of %s", class)
				}
				c.causal = true
			}
			continue
		case "return_attention_scores":
			if v == true {
				return c, fmt.Errorf("return_attention_scores=True: a node of gokeras' graph has one output")
			}
			continue
		}
		if hasTensor(v) {
			return c, fmt.Errorf("keyword argument %q takes a tensor, which gokeras does not pass to a %s call (only mask)", k, class)
		}
	}
	return c, nil
}

// nodeMasks reads a mask argument: None, a tensor (for a layer of one
// input) or a list with a tensor or None per input. The tensors are the
// node's references after its nIn inputs.
func nodeMasks(v any, nIn int) ([]int, error) {
	masks := make([]int, nIn)
	for i := range masks {
		masks[i] = -1
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case layers.OpTensor:
		if nIn != 1 {
			return nil, fmt.Errorf("mask: one mask for a call of %d inputs", nIn)
		}
		masks[0] = int(x)
		return masks, nil
	case []any:
		if len(x) != nIn {
			return nil, fmt.Errorf("mask: %d masks for a call of %d inputs", len(x), nIn)
		}
		for i, e := range x {
			switch m := e.(type) {
			case nil:
			case layers.OpTensor:
				masks[i] = int(m)
			default:
				return nil, fmt.Errorf("mask %d: %s is not a tensor", i, describeNodeArg(e))
			}
		}
		return masks, nil
	}
	return nil, fmt.Errorf("mask: %s is not a tensor", describeNodeArg(v))
}

// hasTensor reports whether an argument tree holds a tensor.
func hasTensor(v any) bool {
	switch x := v.(type) {
	case layers.OpTensor:
		return true
	case []any:
		return slices.ContainsFunc(x, hasTensor)
	case map[string]any:
		return slices.ContainsFunc(slices.Collect(maps.Values(x)), hasTensor)
	}
	return false
}

// describeNodeArg prints a parsed argument briefly.
func describeNodeArg(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case layers.OpSlice:
		return "a slice"
	case layers.OpEllipsis:
		return "..."
	case layers.OpArray:
		return "an array of shape " + shapeStr(x.Shape)
	case string:
		return fmt.Sprintf("%q", x)
	}
	return compactJSON(v)
}

// isOperationEntry reports whether a layer entry of a functional config
// is a Keras operation rather than a layer: its module is one of
// keras.src.ops (Keras writes the Add operation of `x + y` with module
// keras.src.ops.numpy, the Add layer with keras.layers). A legacy .h5's
// config names no modules: there an entry of an operation class whose
// config has no "trainable" (every layer's has; no operation takes it)
// is the operation. (Keras itself refuses such files: "Unknown layer:
// 'NotEqual'".)
func isOperationEntry(entry map[string]any) bool {
	module, ok := entry["module"].(string)
	if ok {
		return strings.HasPrefix(module, "keras.src.ops.") || strings.HasPrefix(module, "keras.ops")
	}
	if _, has := entry["module"]; has {
		return false
	}
	class, _ := entry["class_name"].(string)
	cfg, _ := entry["config"].(map[string]any)
	_, trainable := cfg["trainable"]
	return layers.OperationModule(class) != "" && !trainable
}

// operationFromEntry makes the operation of a config entry from its
// config and its nodes: each a call with the same constants.
func operationFromEntry(class, name string, cfg map[string]any, nodes []parsedNode) (*layers.Operation, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("operation %q (%s) has no inbound node", name, class)
	}
	if layers.OperationModule(class) == "" {
		return nil, fmt.Errorf("operation %q: Keras operation class %q is not one gokeras computes (it computes %s)", name, class, strings.Join(layers.OperationClasses(), ", "))
	}
	c := maps.Clone(cfg)
	if c == nil {
		c = map[string]any{}
	}
	c["name"] = name
	op := layers.NewOperation(class, c, nodes[0].args, nodes[0].kwargs)
	if err := op.Err(); err != nil {
		return nil, err
	}
	for i, n := range nodes[1:] {
		if !op.SameCall(n.args, n.kwargs) {
			return nil, fmt.Errorf("operation %q: node %d calls it with other constants than node 0", name, i+1)
		}
	}
	return op, nil
}

// maskNodeName is the name of the MaskAttach node that gives input i of
// call node of layer its mask; "__" keeps it apart from Keras' own names
// ("lstm_1"), and it has no "/", which HDF5 paths of legacy .h5 files
// cannot hold.
func maskNodeName(layer string, node, input int) string {
	return fmt.Sprintf("%s__mask_%d_%d", layer, node, input)
}

// setCausalMask gives an attention layer the use_causal_mask=True of its
// calls; every call must have it (gokeras keeps it on the layer).
func setCausalMask(l layers.Layer, name string, all bool) error {
	if !all {
		return fmt.Errorf("layer %q: some of its calls have use_causal_mask=True and others not (gokeras keeps it on the layer)", name)
	}
	switch x := l.(type) {
	case *layers.MultiHeadAttention:
		x.UseCausalMask = true
	case *layers.GroupQueryAttention:
		x.UseCausalMask = true
	case *layers.Attention:
		x.UseCausalMask = true
	default:
		return fmt.Errorf("layer %q (%s): use_causal_mask is not an argument of its calls", name, l.ClassName())
	}
	return nil
}

// unmaskInputs is a call's inputs with each MaskAttach node replaced by
// the tensor it gives a mask to, and those masks (nil: none).
func unmaskInputs(ins []*layers.KerasTensor) (inputs, masks []*layers.KerasTensor) {
	inputs = slices.Clone(ins)
	for i, in := range ins {
		n := in.Node()
		if _, ok := n.Layer.(*layers.MaskAttach); ok && len(n.Inputs) == 2 {
			if masks == nil {
				masks = make([]*layers.KerasTensor, len(ins))
			}
			inputs[i], masks[i] = n.Inputs[0], n.Inputs[1]
		}
	}
	return inputs, masks
}

// maskArg is the mask argument of a call: the mask itself for a call of
// one input, else a list with None where an input has none.
func maskArg(masks []*layers.KerasTensor, tensorArg func(*layers.KerasTensor) map[string]any) any {
	if len(masks) == 1 {
		return tensorArg(masks[0])
	}
	out := make([]any, len(masks))
	for i, m := range masks {
		if m != nil {
			out[i] = tensorArg(m)
		}
	}
	return out
}

// causalMask reports whether an attention layer's calls apply the causal
// mask (Keras' use_causal_mask=True call argument).
func causalMask(l layers.Layer) bool {
	switch x := l.(type) {
	case *layers.MultiHeadAttention:
		return x.UseCausalMask
	case *layers.GroupQueryAttention:
		return x.UseCausalMask
	case *layers.Attention:
		return x.UseCausalMask
	}
	return false
}

// operationEntry is the config entry of an operation and its calls, as
// Keras 3 writes it: module keras.src.ops.*, registered under its class
// name, no build config; each node's arguments with its tensors in the
// places of the call's placeholders.
func operationEntry(op *layers.Operation, ns []*layers.CallNode, tensorArg func(*layers.KerasTensor) map[string]any) map[string]any {
	inbound := make([]any, len(ns))
	for i, n := range ns {
		inputs, _ := unmaskInputs(n.Inputs) // an operation reads no mask
		args, kwargs := op.CallArguments()
		ser := func(v any) any { return serializeOpArg(v, inputs, tensorArg) }
		kw := map[string]any{}
		for k, v := range kwargs {
			kw[k] = ser(v)
		}
		inbound[i] = map[string]any{"args": ser(args), "kwargs": kw}
	}
	return map[string]any{"module": op.Module(), "class_name": op.ClassName(), "config": op.GetConfig(),
		"registered_name": op.ClassName(), "name": op.Name(), "inbound_nodes": inbound}
}

// serializeOpArg writes an argument tree as Keras' serialize_keras_object
// does.
func serializeOpArg(v any, inputs []*layers.KerasTensor, tensorArg func(*layers.KerasTensor) map[string]any) any {
	switch x := v.(type) {
	case layers.OpTensor:
		return tensorArg(inputs[int(x)])
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = serializeOpArg(e, inputs, tensorArg)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = serializeOpArg(e, inputs, tensorArg)
		}
		return out
	case layers.OpSlice:
		bound := func(p *int) any {
			if p == nil {
				return nil
			}
			return *p
		}
		return map[string]any{"class_name": "__slice__", "config": map[string]any{"start": bound(x.Start), "stop": bound(x.Stop), "step": bound(x.Step)}}
	case layers.OpEllipsis:
		return map[string]any{"class_name": "__ellipsis__", "config": map[string]any{}}
	case layers.OpArray:
		return map[string]any{"class_name": "__numpy__", "config": map[string]any{"value": nestArray(x.Shape, x.Values), "dtype": cmp.Or(x.Dtype, "float32")}}
	}
	return v
}

// nestArray is a row-major array as nested lists.
func nestArray(shape []int, values []float64) any {
	if len(shape) == 0 {
		if len(values) == 0 {
			return 0.0
		}
		return values[0]
	}
	step := len(values) / max(shape[0], 1)
	out := make([]any, shape[0])
	for i := range out {
		out[i] = nestArray(shape[1:], values[i*step:(i+1)*step])
	}
	return out
}
