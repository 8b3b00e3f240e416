package utils

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// PlotOptions are plot_model's keyword arguments. The zero value draws
// each layer's name and class, top to bottom, as Keras' defaults do
// (show_layer_names=True, rankdir="TB", dpi=200 for a PNG).
type PlotOptions struct {
	ShowShapes           bool   // input and output shapes of each layer
	ShowDtype            bool   // the layer's dtype
	HideLayerNames       bool   // Keras' show_layer_names=False: the class only
	ShowLayerActivations bool   // the activation of layers that have one
	ShowTrainable        bool   // whether the layer is trainable
	ExpandNested         bool   // draw nested models' layers inside a frame
	RankDir              string // "TB" (default) or "LR": top to bottom or left to right
	DPI                  int    // PNG resolution (default 200); an SVG is in points
}

// PlotModel is keras.utils.plot_model: it draws model's graph to path, a
// PNG or an SVG chosen by the extension, with one box per layer and an
// arrow per connection of the functional graph. The drawing is laid out
// and written in pure Go (no Graphviz needed). The model must be built
// (an Input, a WithInputShape, Build or a first Fit).
func PlotModel(model *keras.Model, path string, opts PlotOptions) error {
	if model == nil {
		return errors.New("utils: PlotModel: nil model")
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("utils: PlotModel: %q: want a .png or .svg file", path)
	}
	if opts.RankDir == "" {
		opts.RankDir = "TB"
	}
	if opts.RankDir != "TB" && opts.RankDir != "LR" {
		return fmt.Errorf("utils: PlotModel: RankDir %q, want \"TB\" or \"LR\"", opts.RankDir)
	}
	if opts.DPI == 0 {
		opts.DPI = 200
	}
	if opts.DPI < 1 || opts.DPI > 2400 {
		return fmt.Errorf("utils: PlotModel: DPI %d, want 1 to 2400", opts.DPI)
	}
	g, err := modelGraph(model, opts)
	if err != nil {
		return fmt.Errorf("utils: PlotModel: %w", err)
	}
	lay := g.layout(opts.RankDir == "LR")
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("utils: PlotModel: %w", err)
	}
	if ext == ".svg" {
		err = writeSVG(f, lay)
	} else {
		err = writePNG(f, lay, opts.DPI)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("utils: PlotModel: %s: %w", path, err)
	}
	return nil
}

// plotNode is one box: a layer (of the model or of a nested model).
type plotNode struct {
	layer   layers.Layer
	lines   []string // the first is "name (Class)"
	cluster *plotCluster
}

// plotCluster is a nested model drawn expanded, inside a frame.
type plotCluster struct {
	name   string
	parent *plotCluster
}

// plotGraph is what is drawn: boxes and arrows (from, to), by index.
type plotGraph struct {
	nodes    []*plotNode
	edges    [][2]int
	clusters []*plotCluster
	byLayer  map[layers.Layer]int
}

// modelGraph collects the boxes and arrows of model's functional graph.
func modelGraph(model *keras.Model, opts PlotOptions) (*plotGraph, error) {
	if !model.Built() {
		return nil, fmt.Errorf("model %q is not built yet: give it an input shape, Build it or Fit it first", model.Name())
	}
	g := &plotGraph{byLayer: map[layers.Layer]int{}}
	producers := map[*layers.KerasTensor][]int{}
	if err := g.addModel(model, opts, nil, producers, 0); err != nil {
		return nil, err
	}
	return g, nil
}

// addModel adds m's layer calls in topological order. producers maps
// each symbolic tensor to the boxes its value comes from (for the inputs
// of an expanded nested model: the outer boxes feeding it).
func (g *plotGraph) addModel(m *keras.Model, opts PlotOptions, cl *plotCluster, producers map[*layers.KerasTensor][]int, depth int) error {
	if depth > 64 {
		return errors.New("models nested more than 64 deep")
	}
	for _, call := range callOrder(m.Outputs()) {
		if call.IsInput {
			if _, bound := producers[call.Output]; bound {
				continue // the input of an expanded nested model
			}
		}
		if ml, ok := call.Layer.(*keras.ModelLayer); ok && opts.ExpandNested {
			inner := ml.Model()
			if len(inner.Inputs()) != len(call.Inputs) || len(inner.Outputs()) != 1 {
				return fmt.Errorf("nested model %q: %d inputs for %d, %d outputs", inner.Name(), len(call.Inputs), len(inner.Inputs()), len(inner.Outputs()))
			}
			for i, t := range inner.Inputs() {
				producers[t] = producers[call.Inputs[i]]
			}
			sub := &plotCluster{name: inner.Name(), parent: cl}
			g.clusters = append(g.clusters, sub)
			if err := g.addModel(inner, opts, sub, producers, depth+1); err != nil {
				return err
			}
			producers[call.Output] = producers[inner.Outputs()[0]]
			continue
		}
		id, seen := g.byLayer[call.Layer]
		if !seen {
			id = len(g.nodes)
			g.byLayer[call.Layer] = id
			g.nodes = append(g.nodes, &plotNode{layer: call.Layer, lines: nodeLines(call, opts), cluster: cl})
		}
		for _, in := range call.Inputs {
			for _, p := range producers[in] {
				g.addEdge(p, id)
			}
		}
		producers[call.Output] = []int{id}
	}
	return nil
}

func (g *plotGraph) addEdge(from, to int) {
	for _, e := range g.edges {
		if e == [2]int{from, to} {
			return
		}
	}
	g.edges = append(g.edges, [2]int{from, to})
}

// callOrder returns the layer calls producing outputs, inputs first.
func callOrder(outputs []*layers.KerasTensor) []*layers.CallNode {
	var order []*layers.CallNode
	seen := map[*layers.CallNode]bool{}
	var visit func(*layers.CallNode)
	visit = func(n *layers.CallNode) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		for _, in := range n.Inputs {
			visit(in.Node())
		}
		order = append(order, n)
	}
	for _, o := range outputs {
		visit(o.Node())
	}
	return order
}

// nodeLines is the text of a layer's box, as Keras' plot_model labels it.
func nodeLines(call *layers.CallNode, opts PlotOptions) []string {
	l := call.Layer
	title := l.ClassName()
	if !opts.HideLayerNames {
		title = fmt.Sprintf("%s (%s)", l.Name(), l.ClassName())
	}
	lines := []string{title}
	if opts.ShowShapes {
		var ins []string
		for _, t := range call.Inputs {
			ins = append(ins, t.Shape().String())
		}
		in := strings.Join(ins, ", ")
		if call.IsInput {
			in = call.Output.Shape().String()
		}
		lines = append(lines, "Input shape: "+in, "Output shape: "+call.Output.Shape().String())
	}
	if opts.ShowDtype {
		dtype := "float32"
		if call.Output != nil {
			dtype = call.Output.Dtype()
		}
		lines = append(lines, "Dtype: "+dtype)
	}
	if opts.ShowLayerActivations {
		if a, ok := l.GetConfig()["activation"].(string); ok {
			lines = append(lines, "Activation: "+a)
		}
	}
	if opts.ShowTrainable {
		t := "False"
		if l.Trainable() {
			t = "True"
		}
		lines = append(lines, "Trainable: "+t)
	}
	return lines
}
