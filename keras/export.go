package keras

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/export/onnx"
	"github.com/gokeras/gokeras/keras/layers"
)

// Export writes the model for inference in another runtime, as Keras 3's
// model.export(filepath, format=...). gokeras writes format "onnx": a
// standard ONNX model (operator set onnx.Opset) whose inputs and outputs
// have the model's Keras shapes with a symbolic batch dimension, named
// after the model's input and output layers, and whose weights are the
// model's current float32 values (see package
// github.com/gokeras/gokeras/keras/export/onnx for the layers it writes).
// A layer the exporter cannot write is an error naming the layer and its
// class, and no file is written. Keras' default format, "tf_saved_model",
// and "openvino" are not available. The model must be built.
func (m *Model) Export(path, format string) error {
	if err := m.usable("Export"); err != nil {
		return err
	}
	switch format {
	case "onnx":
	case "", "tf_saved_model", "openvino":
		return fmt.Errorf("keras: Export: format %q is not supported by gokeras; use \"onnx\"", format)
	default:
		return fmt.Errorf("keras: Export: unknown format %q; gokeras exports \"onnx\"", format)
	}
	g, err := m.exportGraph()
	if err != nil {
		return err
	}
	if err := onnx.Write(path, g); err != nil {
		return fmt.Errorf("keras: Export %s: %w", m.name, err)
	}
	return nil
}

// exportGraph lists the model's layer calls for the exporter, with the
// calls of nested models inlined under their model's name.
func (m *Model) exportGraph() (onnx.Graph, error) {
	if !m.Built() {
		return onnx.Graph{}, fmt.Errorf("keras: Export: model %q is not built; call Build, Fit or Predict first", m.name)
	}
	w := &exportWalk{g: onnx.Graph{Name: m.name}}
	ins := make([]int, len(m.inputs))
	for i, in := range m.inputs {
		ins[i] = w.tensor(in)
		w.g.Inputs = append(w.g.Inputs, onnx.Port{Name: in.Node().Layer.Name(), Tensor: ins[i]})
	}
	outs, err := w.model(m, "", ins)
	if err != nil {
		return onnx.Graph{}, err
	}
	used := map[string]int{}
	for i, o := range m.outputs {
		name := o.Node().Layer.Name()
		if used[name]++; used[name] > 1 {
			name = fmt.Sprintf("%s_%d", name, used[name]-1)
		}
		w.g.Outputs = append(w.g.Outputs, onnx.Port{Name: name, Tensor: outs[i]})
	}
	return w.g, nil
}

// exportWalk numbers the tensors of a graph as it is listed.
type exportWalk struct {
	g     onnx.Graph
	depth int
}

func (w *exportWalk) tensor(t *layers.KerasTensor) int {
	w.g.Tensors = append(w.g.Tensors, onnx.Tensor{Shape: t.Shape(), Dtype: t.Dtype()})
	return len(w.g.Tensors) - 1
}

// model lists m's calls reading tensors ins (one per input of m) and
// returns the tensors of m's outputs. A call of a shared layer after its
// first is named layer_call<k>.
func (w *exportWalk) model(m *Model, scope string, ins []int) ([]int, error) {
	if w.depth++; w.depth > 64 {
		return nil, fmt.Errorf("keras: Export: models nested more than 64 deep at %q", m.name)
	}
	defer func() { w.depth-- }()
	if len(ins) != len(m.inputs) {
		return nil, fmt.Errorf("keras: Export: model %q takes %d inputs, called with %d", m.name, len(m.inputs), len(ins))
	}
	ids := map[*layers.KerasTensor]int{}
	for i, in := range m.inputs {
		ids[in] = ins[i]
	}
	for _, n := range m.nodes {
		args := make([]int, len(n.Inputs))
		for i, in := range n.Inputs {
			id, ok := ids[in]
			if !ok {
				return nil, fmt.Errorf("keras: Export: layer %q of model %q reads a tensor computed outside the model", n.Layer.Name(), m.name)
			}
			args[i] = id
		}
		if ml, ok := n.Layer.(*ModelLayer); ok {
			outs, err := w.model(ml.m, scope+ml.m.name+"/", args)
			if err != nil {
				return nil, err
			}
			if len(outs) != 1 {
				return nil, fmt.Errorf("keras: Export: nested model %q has %d outputs; a model used as a layer has one", ml.m.name, len(outs))
			}
			ids[n.Output] = outs[0]
			continue
		}
		name := scope + n.Layer.Name()
		if n.Index > 0 {
			name = fmt.Sprintf("%s_call%d", name, n.Index)
		}
		out := w.tensor(n.Output)
		w.g.Nodes = append(w.g.Nodes, onnx.Node{Layer: n.Layer, Name: name, Inputs: args, Output: out})
		ids[n.Output] = out
	}
	outs := make([]int, len(m.outputs))
	for i, o := range m.outputs {
		id, ok := ids[o]
		if !ok {
			return nil, fmt.Errorf("keras: Export: output %d of model %q is not computed from its inputs", i, m.name)
		}
		outs[i] = id
	}
	return outs, nil
}
