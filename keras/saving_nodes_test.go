package keras

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// nodeTensor is a __keras_tensor__ argument of a node.
func nodeTensor(layer string, node int) map[string]any {
	return map[string]any{"class_name": "__keras_tensor__", "config": map[string]any{"shape": []any{nil, 4.0}, "dtype": "float32",
		"keras_history": []any{layer, float64(node), 0.0}}}
}

// nodeConfig is a functional config.json of an input "x" (batch, 4) and
// the given entries, the last one's output the model's.
func nodeConfig(entries ...map[string]any) map[string]any {
	ls := []any{map[string]any{"module": "keras.layers", "class_name": "InputLayer", "name": "x",
		"config": map[string]any{"batch_shape": []any{nil, 4.0}, "name": "x"}, "inbound_nodes": []any{}}}
	for _, e := range entries {
		ls = append(ls, e)
	}
	last := entries[len(entries)-1]["name"]
	return map[string]any{"module": "keras.src.models.functional", "class_name": "Functional", "config": map[string]any{
		"name": "m", "layers": ls, "input_layers": []any{[]any{"x", 0.0, 0.0}}, "output_layers": []any{[]any{last, 0.0, 0.0}}}}
}

func opEntry(class, name string, cfg map[string]any, nodes ...map[string]any) map[string]any {
	c := map[string]any{"name": name}
	for k, v := range cfg {
		c[k] = v
	}
	ns := make([]any, len(nodes))
	for i, n := range nodes {
		ns[i] = n
	}
	return map[string]any{"module": "keras.src.ops.numpy", "class_name": class, "registered_name": class, "name": name, "config": c, "inbound_nodes": ns}
}

func layerEntryOf(class, name string, cfg map[string]any, nodes ...map[string]any) map[string]any {
	e := opEntry(class, name, cfg, nodes...)
	e["module"], e["registered_name"] = "keras.layers", nil
	e["config"].(map[string]any)["trainable"] = true
	return e
}

func node(args []any, kwargs map[string]any) map[string]any {
	if kwargs == nil {
		kwargs = map[string]any{}
	}
	return map[string]any{"args": args, "kwargs": kwargs}
}

func loadNodes(t *testing.T, top map[string]any) (*Model, error) {
	t.Helper()
	layers.ClearSession()
	return loadFuzzConfig(deepCopy(top))
}

// TestNodeArgumentsRefused: what a node may not hold is an error naming
// the layer and the argument, never a guess.
func TestNodeArgumentsRefused(t *testing.T) {
	x := nodeTensor("x", 0)
	for _, c := range []struct {
		name string
		top  map[string]any
		want string
	}{
		{"a constant given to a layer", nodeConfig(layerEntryOf("Dense", "d", map[string]any{"units": 2.0}, node([]any{x, 3.0}, nil))),
			`layer "d": node 0: argument 3 is not a tensor`},
		{"a tensor keyword other than mask", nodeConfig(layerEntryOf("Dense", "d", map[string]any{"units": 2.0}, node([]any{x}, map[string]any{"initial_state": x}))),
			`keyword argument "initial_state" takes a tensor`},
		{"a mask per input of another count", nodeConfig(layerEntryOf("Dense", "d", map[string]any{"units": 2.0}, node([]any{x}, map[string]any{"mask": []any{x, x}}))),
			"2 masks for a call of 1 inputs"},
		{"an operation gokeras does not compute", nodeConfig(opEntry("Frobnicate", "f", nil, node([]any{x}, nil))),
			`Keras operation class "Frobnicate" is not one gokeras computes`},
		{"an operation config key", nodeConfig(opEntry("Sum", "s", map[string]any{"axes": 1.0}, node([]any{x}, nil))),
			`"axes" is not an argument of Sum`},
		{"an unknown serialized object", nodeConfig(opEntry("Add", "a", nil, node([]any{x, map[string]any{"class_name": "Zeros", "module": "keras.initializers", "config": map[string]any{}}}, nil))),
			"is not a value gokeras reads"},
		{"one operation called with two constants", nodeConfig(opEntry("Add", "a", nil, node([]any{x, 1.0}, nil), node([]any{nodeTensor("a", 0), 2.0}, nil))),
			"node 1 calls it with other constants"},
		{"a slice bound not an integer", nodeConfig(opEntry("GetItem", "g", nil, node([]any{x, []any{map[string]any{"class_name": "__slice__", "config": map[string]any{"start": "a"}}}}, nil))),
			"slice start"},
		{"a layer given no tensor", nodeConfig(layerEntryOf("Softmax", "s", nil, map[string]any{"args": nil, "kwargs": map[string]any{}})),
			"passes the layer no tensor"},
		{"return_attention_scores", nodeConfig(layerEntryOf("Dense", "d", map[string]any{"units": 2.0}, node([]any{x}, map[string]any{"return_attention_scores": true}))),
			"return_attention_scores"},
	} {
		_, err := loadNodes(t, c.top)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// TestNodeOperationsLoad: a legacy .h5 config (no modules) tells an
// operation (its config has no "trainable") from a layer of the same name;
// a shared operation's nodes with the same constants load; constants in
// kwargs and a NumPy array argument are read; use_causal_mask reaches the
// attention layer and is saved back.
func TestNodeOperationsLoad(t *testing.T) {
	x := nodeTensor("x", 0)
	legacyOp := opEntry("Multiply", "times", nil, node([]any{x, 2.0}, nil))
	delete(legacyOp, "module")
	legacyLayer := layerEntryOf("Add", "plus", nil, node([]any{[]any{nodeTensor("times", 0), x}}, nil))
	delete(legacyLayer, "module")
	arr := map[string]any{"class_name": "__numpy__", "config": map[string]any{"value": []any{1.0, 2.0, 3.0, 4.0}, "dtype": "float32"}}
	shared := opEntry("Add", "shift", nil, node(nil, map[string]any{"x1": nodeTensor("plus", 0), "x2": arr}), node(nil, map[string]any{"x1": nodeTensor("shift", 0), "x2": arr}))
	top := nodeConfig(legacyOp, legacyLayer, shared)
	top["config"].(map[string]any)["output_layers"] = []any{[]any{"shift", 1.0, 0.0}}
	m, err := loadNodes(t, top)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, l := range m.Layers() {
		kinds[l.Name()] = l.ClassName()
		if _, ok := l.(*layers.Operation); ok {
			kinds[l.Name()] += " operation"
		}
	}
	if kinds["times"] != "Multiply operation" || kinds["plus"] != "Add" || kinds["shift"] != "Add operation" {
		t.Errorf("read as %v", kinds)
	}
	ys, err := predictOne(m) // zeros: 0*2 + 0 + [1 2 3 4] twice
	if err != nil {
		t.Fatal(err)
	}
	if got := ys[0].Data().([]float32); got[0] != 2 || got[3] != 8 {
		t.Errorf("output %v, want [2 4 6 8]", got)
	}

	mha := layerEntryOf("MultiHeadAttention", "mha", map[string]any{"num_heads": 1.0, "key_dim": 2.0},
		node([]any{nodeTensor("r", 0), nodeTensor("r", 0)}, map[string]any{"use_causal_mask": true}))
	r := layerEntryOf("Reshape", "r", map[string]any{"target_shape": []any{2.0, 2.0}}, node([]any{x}, nil))
	m, err = loadNodes(t, nodeConfig(r, mha))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range m.Layers() {
		if a, ok := l.(*layers.MultiHeadAttention); ok && !a.UseCausalMask {
			t.Error("use_causal_mask=True did not reach the layer")
		}
	}
	cfg, err := m.GetConfig()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(cfg); !strings.Contains(string(b), `"use_causal_mask":true`) {
		t.Errorf("the saved config lost use_causal_mask: %s", b)
	}
}
