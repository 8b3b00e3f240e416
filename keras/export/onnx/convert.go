package onnx

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// val is a Keras tensor as the graph holds it: an ONNX value name, and
// for the tensors of convolutions (rank 3 sequences, rank 4 images,
// rank 5 volumes) whether it is held channels-first (NCL, NCHW, NCDHW, as
// ONNX's convolutions and poolings take them) or in Keras' channels-last
// order. The other layout is made at most once, when a layer needs it.
type val struct {
	name  string
	nchw  bool      // channels-first (any of ranks 3 to 5, not only NCHW)
	shape ops.Shape // Keras' (channels-last) shape, batch -1
	dtype int32
	alt   string // the value in the other layout, once made
	mask  string // a Keras timestep mask the value carries (Embedding mask_zero): float (batch, steps)
	input bool   // a graph input
}

// call is one layer call being converted.
type call struct {
	layer layers.Layer
	name  string
	cfg   map[string]any
	in    []*val
	out   ops.Shape // Keras shape of the output
}

// converter turns a Graph's layer calls into ONNX nodes.
type converter struct {
	builder
	vals map[int]*val
}

// convertFn writes one layer call's nodes and returns its output.
type convertFn func(c *converter, k *call) (*val, error)

// converters are the layer classes the exporter writes, by Keras class
// name (layers_*.go register theirs).
var converters = map[string]convertFn{}

// SupportedClasses lists the Keras layer classes [Marshal] converts
// (besides InputLayer and nested models, which a [Graph] inlines).
func SupportedClasses() []string { return sortedKeys(converters) }

// SupportedOperations lists the classes of Keras 3 operation nodes
// ([layers.Operation]: keras.ops calls in a functional graph, such as
// `x + 3.0`) that [Marshal] converts.
func SupportedOperations() []string { return sortedKeys(opConverters) }

func sortedKeys(m map[string]convertFn) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unsupported is the error of a setting the exporter cannot write.
func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

func convert(g Graph) (*converter, error) {
	c := &converter{vals: map[int]*val{}}
	if len(g.Inputs) == 0 || len(g.Outputs) == 0 {
		return nil, errors.New("onnx: the graph needs at least one input and one output")
	}
	tensor := func(i int, what string) (Tensor, error) {
		if i < 0 || i >= len(g.Tensors) {
			return Tensor{}, fmt.Errorf("onnx: %s refers to tensor %d of %d", what, i, len(g.Tensors))
		}
		return g.Tensors[i], nil
	}
	// Output names are reserved first, so that the values renamed to
	// them at the end cannot collide with a value named on the way.
	for _, p := range g.Outputs {
		p.Name = sanitize(p.Name)
		if c.names[p.Name] {
			return nil, fmt.Errorf("onnx: two outputs named %q", p.Name)
		}
		c.fresh(p.Name)
	}
	for _, p := range g.Inputs {
		t, err := tensor(p.Tensor, "input "+p.Name)
		if err != nil {
			return nil, err
		}
		dtype, err := elemType(t.Dtype)
		if err != nil {
			return nil, fmt.Errorf("onnx: input %q: %w", p.Name, err)
		}
		name := c.fresh(sanitize(p.Name))
		if name != sanitize(p.Name) {
			return nil, fmt.Errorf("onnx: input name %q is used twice (or by an output)", p.Name)
		}
		if len(t.Shape) == 0 || t.Shape[0] != -1 {
			return nil, fmt.Errorf("onnx: input %q has shape %v; want a batch dimension first (-1)", p.Name, t.Shape)
		}
		c.inputs = append(c.inputs, info(name, dtype, t.Shape))
		if c.graphIns == nil {
			c.graphIns = map[string]bool{}
		}
		c.graphIns[name] = true
		if _, dup := c.vals[p.Tensor]; dup {
			return nil, fmt.Errorf("onnx: input %q: tensor %d is already an input", p.Name, p.Tensor)
		}
		c.vals[p.Tensor] = &val{name: name, shape: t.Shape.Clone(), dtype: dtype, input: true}
	}
	for _, n := range g.Nodes {
		if n.Layer == nil {
			return nil, fmt.Errorf("onnx: node %q has no layer", n.Name)
		}
		k := &call{layer: n.Layer, name: n.Name}
		if k.name == "" {
			k.name = n.Layer.Name()
		}
		lerr := func(err error) error {
			return &LayerError{Layer: k.name, Class: n.Layer.ClassName(), Err: err}
		}
		for _, i := range n.Inputs {
			v, ok := c.vals[i]
			if !ok {
				return nil, lerr(fmt.Errorf("input tensor %d is not computed before it (the nodes are not in topological order)", i))
			}
			k.in = append(k.in, v)
		}
		t, err := tensor(n.Output, "node "+k.name)
		if err != nil {
			return nil, err
		}
		k.out = t.Shape
		fn, ok := converters[n.Layer.ClassName()]
		if _, isOp := n.Layer.(*layers.Operation); isOp {
			if fn, ok = opConverters[n.Layer.ClassName()]; !ok {
				return nil, lerr(fmt.Errorf("operation node: %w (the exporter writes the operations %s)", ErrUnsupported, strings.Join(sortedKeys(opConverters), ", ")))
			}
		} else if !ok {
			return nil, lerr(fmt.Errorf("%w (the exporter writes %s)", ErrUnsupported, strings.Join(SupportedClasses(), ", ")))
		}
		if len(k.in) == 0 {
			return nil, lerr(errors.New("the call has no inputs"))
		}
		k.cfg = n.Layer.GetConfig()
		c.scope = sanitize(k.name)
		v, err := fn(c, k)
		if err != nil {
			return nil, lerr(err)
		}
		v.shape = t.Shape.Clone()
		c.carryMask(n.Layer, k, v) // mask_propagation.go
		if v.nchw && (len(v.shape) < 3 || len(v.shape) > 5) {
			return nil, lerr(fmt.Errorf("internal: a channels-first value of Keras shape %v", v.shape))
		}
		if _, dup := c.vals[n.Output]; dup {
			return nil, lerr(fmt.Errorf("output tensor %d is computed twice", n.Output))
		}
		c.vals[n.Output] = v
	}
	c.scope = "output"
	for _, p := range g.Outputs {
		v, ok := c.vals[p.Tensor]
		if !ok {
			return nil, fmt.Errorf("onnx: output %q (tensor %d) is not computed by the graph", p.Name, p.Tensor)
		}
		name := sanitize(p.Name)
		src := c.keras(v)
		taken := c.graphIns[src] || slices.ContainsFunc(c.outputs, func(o valueInfo) bool { return o.name == src })
		if !taken && c.produced(src) && src != name {
			c.rename(src, name)
			if v.name == src {
				v.name = name
			} else {
				v.alt = name
			}
		} else if src != name {
			c.op("Identity", []string{src}, name)
		}
		c.outputs = append(c.outputs, info(name, v.dtype, v.shape))
	}
	return c, nil
}

// info describes a graph input or output of Keras shape s: the batch is
// the symbol "batch" (shared by every input and output, as Keras' batch
// is), other unknown sizes symbols of their own.
func info(name string, dtype int32, s ops.Shape) valueInfo {
	v := valueInfo{name: name, dtype: dtype, dims: make([]int64, len(s)), param: make([]string, len(s))}
	for i, d := range s {
		switch {
		case i == 0:
			v.param[i] = "batch"
		case d < 0:
			v.param[i] = fmt.Sprintf("%s_dim%d", name, i)
		default:
			v.dims[i] = int64(d)
		}
	}
	return v
}

func elemType(dtype string) (int32, error) {
	switch dtype {
	case "", "float32", "float16", "bfloat16", "float64", "mixed_float16", "mixed_bfloat16":
		// Values travel as float32 in gokeras; mixed-precision models
		// export in float32.
		return typeFloat, nil
	case "int32":
		return typeInt32, nil
	case "int64":
		return typeInt64, nil
	}
	return 0, unsupported("input dtype %q", dtype)
}

// Layout conversions. ONNX's convolution ops take NCHW (NCL, NCDHW);
// Keras' tensors are NHWC (NLC, NDHWC). perm NHWC->NCHW is [0 3 1 2],
// and back [0 2 3 1]; likewise for the other ranks (toFirst, toLast).

// toFirst is the Transpose perm from channels-last to channels-first at rank r.
func toFirst(r int) []int {
	p := []int{0, r - 1}
	for d := 1; d < r-1; d++ {
		p = append(p, d)
	}
	return p
}

// toLast is the Transpose perm from channels-first to channels-last at rank r.
func toLast(r int) []int {
	p := []int{0}
	for d := 2; d < r; d++ {
		p = append(p, d)
	}
	return append(p, 1)
}

// keras returns v's name in Keras' channels-last layout.
func (c *converter) keras(v *val) string {
	if !v.nchw {
		return v.name
	}
	if v.alt == "" {
		v.alt = c.op("Transpose", []string{v.name}, c.fresh(v.name+"/"+lastName(len(v.shape))), attrInts("perm", toLast(len(v.shape))...))
	}
	return v.alt
}

// lastName and firstName name a layout of rank r in a value's name.
func lastName(r int) string { return map[int]string{3: "nlc", 4: "nhwc", 5: "ndhwc"}[r] }

func firstName(r int) string { return map[int]string{3: "ncl", 4: "nchw", 5: "ncdhw"}[r] }

// kerasOrder returns a name of v whose elements are in Keras' row-major
// order, for the layers that only depend on that order (Flatten,
// Reshape): a channels-first value whose image is one pixel, or that has
// one channel, is already in that order and needs no transpose.
func (c *converter) kerasOrder(v *val) string {
	if v.nchw {
		r := len(v.shape)
		onePixel := true
		for _, d := range v.shape[1 : r-1] {
			onePixel = onePixel && d == 1
		}
		if onePixel || v.shape[r-1] == 1 {
			return v.name
		}
	}
	return c.keras(v)
}

// chw returns v's name channels-first; v must be rank 4.
func (c *converter) chw(v *val) (string, error) {
	if len(v.shape) != 4 {
		return "", fmt.Errorf("needs a rank-4 (batch, height, width, channels) input, got %v", v.shape)
	}
	return c.channelsFirst(v, 4)
}

// channelsFirst returns v's name channels-first; v must be of rank r, 3
// to 5 (a sequence, an image or a volume).
func (c *converter) channelsFirst(v *val, r int) (string, error) {
	if len(v.shape) != r || r < 3 || r > 5 {
		return "", fmt.Errorf("needs a rank-%d (batch, %s, channels) input, got %v", r, map[int]string{3: "steps", 4: "height, width", 5: "depth, height, width"}[r], v.shape)
	}
	if v.nchw {
		return v.name, nil
	}
	if v.alt == "" {
		v.alt = c.op("Transpose", []string{c.float(v)}, c.fresh(v.name+"/"+firstName(r)), attrInts("perm", toFirst(r)...))
	}
	return v.alt, nil
}

// float returns v's name in its own layout as float32 (integer inputs
// are cast, as a Keras layer casts them to its compute dtype).
func (c *converter) float(v *val) string {
	if v.dtype == typeFloat {
		return v.name
	}
	f := c.op("Cast", []string{v.name}, c.fresh(v.name+"/float"), attrInt("to", int(typeFloat)))
	v.name, v.dtype = f, typeFloat
	return f
}

// same returns the names of vs in one layout: channels-first when every
// input has the same rank (3 to 5) and one of them is held so
// (elementwise merges broadcast the same way in either layout then),
// else Keras'. axis maps a Keras axis of the inputs to that layout.
func (c *converter) same(vs []*val) (names []string, nchw bool, err error) {
	if len(vs) == 0 {
		return nil, false, nil
	}
	nchw = true
	anyCHW := false
	r := len(vs[0].shape)
	for _, v := range vs {
		nchw = nchw && len(v.shape) == r
		anyCHW = anyCHW || v.nchw
	}
	nchw = nchw && anyCHW
	for _, v := range vs {
		c.float(v)
		var n string
		if nchw {
			if n, err = c.channelsFirst(v, r); err != nil {
				return nil, false, err
			}
		} else {
			n = c.keras(v)
		}
		names = append(names, n)
	}
	return names, nchw, nil
}

// axis maps Keras axis a (negative from the end) of a rank-r tensor to
// the axis of its layout (nchw: channels-first), or an error.
func axis(a, r int, nchw bool) (int, error) {
	if a < 0 {
		a += r
	}
	if a < 0 || a >= r {
		return 0, fmt.Errorf("axis %d is out of range for rank %d", a, r)
	}
	if nchw {
		switch a {
		case 0:
			return 0, nil
		case r - 1:
			return 1, nil
		}
		return a + 1, nil
	}
	return a, nil
}

// channelDims are the dims of n per-channel values that broadcast along
// Keras' last axis of a rank-r value: [n] channels-last, [n, 1, ...]
// channels-first.
func channelDims(n, r int, nchw bool) []int {
	if !nchw || n == 1 {
		return []int{n}
	}
	d := []int{n}
	for range r - 2 {
		d = append(d, 1)
	}
	return d
}

// out is a new value of the call.
func (c *converter) out(name string, nchw bool, k *call) *val {
	return &val{name: name, nchw: nchw, dtype: typeFloat, shape: k.out}
}

// finish names the call's last node's output after the call (so that the
// Keras tensor keeps the layer's name in the ONNX graph) and returns it.
func (c *converter) finish(name string, nchw bool, k *call) *val {
	if strings.HasPrefix(name, c.scope+"/") && c.produced(name) {
		final := c.fresh(c.scope)
		c.rename(name, final)
		name = final
	}
	return c.out(name, nchw, k)
}
