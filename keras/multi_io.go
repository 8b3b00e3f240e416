package keras

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Several inputs and outputs follow Keras 3: Fit, Evaluate and Predict
// take the inputs, the labels and the sample weights each as one
// *tensor.Dense (a model with one input or output), as a
// []*tensor.Dense in the order of the model's inputs or outputs, or as a
// map[string]*tensor.Dense keyed by input name (the Input's name) or
// output name (the name of the layer that makes the output), as
// model.fit({"a": xa, "b": xb}, {"out_a": ya, "out_b": yb}). A dataset
// yields flat elements (inputs, labels, sample weights in model order);
// [NamedDataset] names its components instead. Inside a step the data is
// always flat: the model's inputs, one label per output, then no sample
// weights, one array for every output, or one per output.

// InputNames returns the names of the model's inputs, in order (Keras'
// model.input_names): the names of their InputLayers.
func (m *Model) InputNames() []string {
	if m == nil {
		return nil
	}
	out := make([]string, len(m.inputs))
	for i, in := range m.inputs {
		out[i] = in.Node().Layer.Name()
	}
	return out
}

// OutputNames returns the names of the model's outputs, in order (Keras'
// model.output_names): the names of the layers that produce them. An
// unbuilt Sequential model names its last layer.
func (m *Model) OutputNames() []string {
	if m == nil {
		return nil
	}
	if m.outputs == nil && len(m.pending) > 0 {
		return []string{m.pending[len(m.pending)-1].Name()}
	}
	out := make([]string, len(m.outputs))
	for i, o := range m.outputs {
		out[i] = o.Node().Layer.Name()
	}
	return out
}

func (m *Model) nOutputs() int { return max(len(m.outputs), 1) }

// isNil reports whether v is nil or a nil *tensor.Dense, slice or map
// (a typed nil passed as an any).
func isNil(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case *tensor.Dense:
		return v == nil
	case []*tensor.Dense:
		return v == nil
	case map[string]*tensor.Dense:
		return v == nil
	case *datasets.Dataset:
		return v == nil
	}
	return false
}

// arrange returns the arrays of one structure (inputs, labels or sample
// weights) in model order: a single array for a single slot, a slice of
// exactly one array per slot, or a map by name with every name known and
// (unless partial) every slot given; a slot a partial map leaves out is
// nil.
func arrange(what, kind string, v any, names []string, partial bool) ([]*tensor.Dense, error) {
	switch v := v.(type) {
	case *tensor.Dense:
		if len(names) != 1 {
			return nil, fmt.Errorf("%s: the model has %d %ss %v; give a []*tensor.Dense in that order or a map[string]*tensor.Dense by name, not one array", what, len(names), kind, names)
		}
		return []*tensor.Dense{v}, nil
	case []*tensor.Dense:
		if len(v) != len(names) {
			return nil, fmt.Errorf("%s: %d arrays for the model's %d %ss %v", what, len(v), len(names), kind, names)
		}
		for i, d := range v {
			if d == nil {
				return nil, fmt.Errorf("%s: %s %d (%q) is nil", what, kind, i, names[i])
			}
		}
		return v, nil
	case map[string]*tensor.Dense:
		out := make([]*tensor.Dense, len(names))
		for k, d := range v {
			i := slices.Index(names, k)
			if i < 0 {
				return nil, fmt.Errorf("%s: no %s named %q; the model's %ss are %v", what, kind, k, kind, names)
			}
			out[i] = d
		}
		for i, d := range out {
			if d == nil && !partial {
				return nil, fmt.Errorf("%s: the map has no array for %s %q (keys %v; the model's %ss are %v)", what, kind, names[i], sortedKeys(v), kind, names)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: %ss must be a *tensor.Dense, a []*tensor.Dense in model order or a map[string]*tensor.Dense by name; got %T", what, kind, v)
}

// inputNamesOrDefault names the inputs of a built model, or the single
// input of an unbuilt Sequential model ("input").
func (m *Model) inputNamesOrDefault() []string {
	if m.inputs == nil {
		return []string{"input"}
	}
	return m.InputNames()
}

// arrays turns Fit's, Evaluate's or Predict's x, y and sample weights into
// flat arrays: the inputs, the labels (y nil: none), then the sample
// weights (nil: none; one array: one for every output; several: one per
// output, ones for an output a map leaves out).
func (m *Model) arrays(what string, x, y, sw any) ([]*tensor.Dense, error) {
	xs, err := arrange(what, "input", x, m.inputNamesOrDefault(), false)
	if err != nil {
		return nil, err
	}
	out := append([]*tensor.Dense(nil), xs...)
	if isNil(y) {
		if !isNil(sw) {
			return nil, fmt.Errorf("%s: SampleWeight needs labels y", what)
		}
		return out, nil
	}
	ys, err := arrange(what, "output", y, m.OutputNames(), false)
	if err != nil {
		return nil, err
	}
	out = append(out, ys...)
	if isNil(sw) {
		return out, nil
	}
	n := rowsOf(xs[0])
	if d, ok := sw.(*tensor.Dense); ok {
		// One array weighs every output, as Keras.
		if err := checkSampleWeight(what, d, n); err != nil {
			return nil, err
		}
		return append(out, d), nil
	}
	sws, err := arrange(what, "output", sw, m.OutputNames(), true)
	if err != nil {
		return nil, fmt.Errorf("%w (SampleWeight)", err)
	}
	for i, d := range sws {
		if d == nil {
			ones := make([]float32, n)
			for j := range ones {
				ones[j] = 1
			}
			sws[i] = tensor.New(tensor.WithShape(n), tensor.WithBacking(ones))
			continue
		}
		if err := checkSampleWeight(fmt.Sprintf("%s: output %q", what, m.OutputNames()[i]), d, n); err != nil {
			return nil, err
		}
	}
	if len(sws) == 1 {
		return append(out, sws[0]), nil
	}
	return append(out, sws...), nil
}

// NamedDataset is a dataset whose elements carry named components, as a
// tf.data dataset of ({"a": xa, "b": xb}, {"out_a": ya, "out_b": yb})
// dicts: each element of Dataset is X's arrays, then Y's, then
// SampleWeight's, in the order of the names given, and Fit, Evaluate and
// Predict put them in the model's order by name. X names model inputs; Y
// and SampleWeight name model outputs (a SampleWeight left out weighs 1).
// Y may be empty for Predict.
type NamedDataset struct {
	Dataset      *datasets.Dataset
	X            []string
	Y            []string
	SampleWeight []string
}

// namedSource reorders a NamedDataset's components into the model's flat
// order: inputs, labels, sample weights (one per output, when any).
type namedSource struct {
	src      datasetSource
	order    []int // component of the element for each flat slot; -1: ones
	nWeights int
}

func (m *Model) namedSource(what string, nd NamedDataset) (source, error) {
	if nd.Dataset == nil {
		return nil, fmt.Errorf("%s: NamedDataset with a nil Dataset", what)
	}
	inNames, outNames := m.inputNamesOrDefault(), m.OutputNames()
	pos := func(kind string, given, names []string, base int, partial bool) ([]int, error) {
		at := make([]int, len(names))
		for i := range at {
			at[i] = -1
		}
		for j, g := range given {
			i := slices.Index(names, g)
			if i < 0 {
				return nil, fmt.Errorf("%s: NamedDataset names %s %q; the model's %ss are %v", what, kind, g, kind, names)
			}
			if at[i] >= 0 {
				return nil, fmt.Errorf("%s: NamedDataset names %s %q twice", what, kind, g)
			}
			at[i] = base + j
		}
		if !partial {
			for i, a := range at {
				if a < 0 {
					return nil, fmt.Errorf("%s: NamedDataset has no %s %q (it names %s)", what, kind, names[i], strings.Join(given, ", "))
				}
			}
		}
		return at, nil
	}
	xs, err := pos("input", nd.X, inNames, 0, false)
	if err != nil {
		return nil, err
	}
	order := xs
	if len(nd.Y) > 0 {
		ys, err := pos("output", nd.Y, outNames, len(nd.X), false)
		if err != nil {
			return nil, err
		}
		order = append(order, ys...)
	} else if len(nd.SampleWeight) > 0 {
		return nil, fmt.Errorf("%s: NamedDataset has SampleWeight without Y", what)
	}
	n := 0
	if len(nd.SampleWeight) > 0 {
		sws, err := pos("output", nd.SampleWeight, outNames, len(nd.X)+len(nd.Y), true)
		if err != nil {
			return nil, err
		}
		order = append(order, sws...)
		n = len(sws)
	}
	return namedSource{src: datasetSource{nd.Dataset}, order: order, nWeights: n}, nil
}

func (s namedSource) Steps() int   { return s.src.Steps() }
func (s namedSource) Samples() int { return 0 }
func (s namedSource) Pass(ctx context.Context, epoch int) batches {
	return &namedPass{batches: s.src.Pass(ctx, epoch), s: s}
}

type namedPass struct {
	batches
	s   namedSource
	err error
}

func (p *namedPass) Next() ([]ops.Value, bool) {
	el, ok := p.batches.Next()
	if !ok || p.err != nil {
		return nil, false
	}
	want := 0
	for _, o := range p.s.order {
		want = max(want, o+1)
	}
	if len(el) < want {
		p.err = fmt.Errorf("NamedDataset: the element has %d components; its names need %d", len(el), want)
		return nil, false
	}
	out := make([]ops.Value, len(p.s.order))
	for i, o := range p.s.order {
		if o >= 0 {
			out[i] = el[o]
			continue
		}
		// An output without sample weights weighs 1.
		rows := 0
		if len(el) > 0 && len(el[0].Shape) > 0 {
			rows = el[0].Shape[0]
		}
		ones := make([]float32, rows)
		for j := range ones {
			ones[j] = 1
		}
		out[i] = ops.Value{Shape: ops.Shape{rows}, Data: ones}
	}
	return out, true
}

func (p *namedPass) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.batches.Err()
}

// sampleWeightsOf returns the sample weights of a step's data after the
// model's at inputs and labels, one per output (none: unweighted): the
// data holds none, one array for every output, or one per output.
func sampleWeightsOf(in []ops.Tensor, at, k int) ([]ops.Tensor, error) {
	out := make([]ops.Tensor, k)
	switch extra := len(in) - at; {
	case extra <= 0:
		return out, nil
	case extra == 1:
		sw, err := sampleWeightOf(in, at)
		for i := range out {
			out[i] = sw
		}
		return out, err
	case extra == k:
		for i := range out {
			sw, err := sampleWeightOf(in, at+i)
			if err != nil {
				return nil, fmt.Errorf("output %d: %w", i, err)
			}
			out[i] = sw
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%d arrays after the inputs and labels; want none, one sample-weight array for every output or one per output (%d)", extra, k)
	}
}

// PredictByName returns the model's outputs for x by output name, as
// Keras' predict returns a dict for a model whose outputs are a dict.
func (m *Model) PredictByName(x any, cfg PredictConfig) (map[string]*tensor.Dense, error) {
	outs, err := m.PredictAll(x, cfg)
	if err != nil {
		return nil, err
	}
	names := m.OutputNames()
	res := make(map[string]*tensor.Dense, len(outs))
	for i, o := range outs {
		if i < len(names) {
			res[names[i]] = o
		}
	}
	return res, nil
}
