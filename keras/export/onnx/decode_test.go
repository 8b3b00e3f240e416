package onnx

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The tests read the exported bytes back through the schema and check
// what they hold; decoded is the part of a ModelProto they look at.

type decodedNode struct {
	op, name        string
	inputs, outputs []string
	ints            map[string][]int64
	floats          map[string]float32
	floatLists      map[string][]float32
	strs            map[string]string
	strings         map[string][]string
}

type decodedTensor struct {
	dtype int32
	dims  []int64
	raw   []byte
}

func (t decodedTensor) float(i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(t.raw[4*i:]))
}

type decodedPort struct {
	name  string
	dtype int32
	dims  []int64
	param []string
}

type decoded struct {
	irVersion, opset int64
	producer         string
	nodes            []decodedNode
	inits            map[string]decodedTensor
	initOrder        []string
	inputs, outputs  []decodedPort
}

func (d *decoded) ops() []string {
	var out []string
	for _, n := range d.nodes {
		out = append(out, n.op)
	}
	return out
}

// count is the number of nodes of op.
func (d *decoded) count(op string) int {
	n := 0
	for _, nd := range d.nodes {
		if nd.op == op {
			n++
		}
	}
	return n
}

// producer returns the node that makes value name.
func (d *decoded) producerOf(name string) *decodedNode {
	for i := range d.nodes {
		for _, o := range d.nodes[i].outputs {
			if o == name {
				return &d.nodes[i]
			}
		}
	}
	return nil
}

func get(m protoreflect.Message, name string) protoreflect.Value {
	return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name)))
}

func list(m protoreflect.Message, name string) protoreflect.List { return get(m, name).List() }

func strs(l protoreflect.List) []string {
	out := make([]string, l.Len())
	for i := range out {
		out[i] = l.Get(i).String()
	}
	return out
}

func int64List(l protoreflect.List) []int64 {
	out := make([]int64, l.Len())
	for i := range out {
		out[i] = l.Get(i).Int()
	}
	return out
}

func port(m protoreflect.Message) decodedPort {
	p := decodedPort{name: get(m, "name").String()}
	tt := get(get(m, "type").Message(), "tensor_type").Message()
	p.dtype = int32(get(tt, "elem_type").Int())
	dims := list(get(tt, "shape").Message(), "dim")
	for i := 0; i < dims.Len(); i++ {
		d := dims.Get(i).Message()
		p.dims = append(p.dims, get(d, "dim_value").Int())
		p.param = append(p.param, get(d, "dim_param").String())
	}
	return p
}

// decode parses data as a ModelProto of the subset; unknown fields fail.
func decode(t *testing.T, data []byte) *decoded {
	t.Helper()
	s, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	mm := dynamicpb.NewMessage(s.desc("ModelProto"))
	if err := proto.Unmarshal(data, mm); err != nil {
		t.Fatalf("the exported bytes do not parse: %v", err)
	}
	var unknown func(m protoreflect.Message)
	unknown = func(m protoreflect.Message) {
		if len(m.GetUnknown()) > 0 {
			t.Errorf("message %s has unknown fields", m.Descriptor().FullName())
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Kind() != protoreflect.MessageKind:
			case fd.IsList():
				for i := 0; i < v.List().Len(); i++ {
					unknown(v.List().Get(i).Message())
				}
			default:
				unknown(v.Message())
			}
			return true
		})
	}
	unknown(mm)
	d := &decoded{
		irVersion: get(mm, "ir_version").Int(),
		producer:  get(mm, "producer_name").String(),
		inits:     map[string]decodedTensor{},
	}
	ops := list(mm, "opset_import")
	if ops.Len() != 1 || get(ops.Get(0).Message(), "domain").String() != "" {
		t.Fatalf("opset_import has %d entries; want the default domain alone", ops.Len())
	}
	d.opset = get(ops.Get(0).Message(), "version").Int()
	g := get(mm, "graph").Message()
	nodes := list(g, "node")
	for i := 0; i < nodes.Len(); i++ {
		n := nodes.Get(i).Message()
		dn := decodedNode{op: get(n, "op_type").String(), name: get(n, "name").String(),
			inputs: strs(list(n, "input")), outputs: strs(list(n, "output")),
			ints: map[string][]int64{}, floats: map[string]float32{}, floatLists: map[string][]float32{}, strs: map[string]string{}, strings: map[string][]string{}}
		as := list(n, "attribute")
		for j := 0; j < as.Len(); j++ {
			a := as.Get(j).Message()
			name := get(a, "name").String()
			switch get(a, "type").Enum() {
			case 1:
				dn.floats[name] = float32(get(a, "f").Float())
			case 2:
				dn.ints[name] = []int64{get(a, "i").Int()}
			case 3:
				dn.strs[name] = string(get(a, "s").Bytes())
			case 6:
				for k := 0; k < list(a, "floats").Len(); k++ {
					dn.floatLists[name] = append(dn.floatLists[name], float32(list(a, "floats").Get(k).Float()))
				}
			case 7:
				dn.ints[name] = int64List(list(a, "ints"))
			case 8:
				for k := 0; k < list(a, "strings").Len(); k++ {
					dn.strings[name] = append(dn.strings[name], string(list(a, "strings").Get(k).Bytes()))
				}
			default:
				t.Fatalf("node %s: attribute %s of type %v", dn.name, name, get(a, "type").Enum())
			}
		}
		d.nodes = append(d.nodes, dn)
	}
	inits := list(g, "initializer")
	for i := 0; i < inits.Len(); i++ {
		m := inits.Get(i).Message()
		name := get(m, "name").String()
		d.inits[name] = decodedTensor{dtype: int32(get(m, "data_type").Int()), dims: int64List(list(m, "dims")), raw: get(m, "raw_data").Bytes()}
		d.initOrder = append(d.initOrder, name)
	}
	for i := 0; i < list(g, "input").Len(); i++ {
		d.inputs = append(d.inputs, port(list(g, "input").Get(i).Message()))
	}
	for i := 0; i < list(g, "output").Len(); i++ {
		d.outputs = append(d.outputs, port(list(g, "output").Get(i).Message()))
	}
	validate(t, d)
	return d
}

// validate checks what ONNX requires of any graph: unique value and
// node names, every node input defined before the node (a graph input,
// an initializer or an earlier output; "" is an omitted optional input),
// every graph output produced, every initializer used, raw data of the
// size its dims and type give, and the opset and IR version.
func validate(t *testing.T, d *decoded) {
	t.Helper()
	if d.irVersion != IRVersion || d.opset != Opset || d.producer != Producer {
		t.Errorf("ir_version %d, opset %d, producer %q", d.irVersion, d.opset, d.producer)
	}
	defined := map[string]bool{}
	used := map[string]bool{}
	define := func(name, what string) {
		if defined[name] {
			t.Errorf("value %q defined twice (%s)", name, what)
		}
		defined[name] = true
	}
	for _, p := range d.inputs {
		define(p.name, "input")
	}
	for name, in := range d.inits {
		define(name, "initializer")
		size := int64(1)
		for _, dm := range in.dims {
			size *= dm
		}
		width := map[int32]int64{typeFloat: 4, typeInt64: 8}[in.dtype]
		if width == 0 || int64(len(in.raw)) != size*width {
			t.Errorf("initializer %q: type %d, dims %v, %d raw bytes", name, in.dtype, in.dims, len(in.raw))
		}
	}
	nodeNames := map[string]bool{}
	for _, n := range d.nodes {
		if n.name == "" || nodeNames[n.name] {
			t.Errorf("node name %q empty or repeated", n.name)
		}
		nodeNames[n.name] = true
		for _, in := range n.inputs {
			if in != "" && !defined[in] {
				t.Errorf("node %s (%s) reads %q before it is defined", n.name, n.op, in)
			}
			used[in] = true
		}
		for _, o := range n.outputs {
			if o != "" { // an optional output left out
				define(o, "node "+n.name)
			}
		}
	}
	for _, p := range d.outputs {
		if !defined[p.name] {
			t.Errorf("output %q is not computed", p.name)
		}
		if len(p.param) == 0 || p.param[0] != "batch" {
			t.Errorf("output %q: first dimension %v, want the symbol batch", p.name, p.param)
		}
	}
	for _, p := range d.inputs {
		if len(p.param) == 0 || p.param[0] != "batch" {
			t.Errorf("input %q: first dimension %v, want the symbol batch", p.name, p.param)
		}
	}
	for name := range d.inits {
		if !used[name] {
			t.Errorf("initializer %q is never used", name)
		}
	}
}

// graphOf lists the layer calls between symbolic inputs and outputs (a
// functional model without keras.Model), the ports named after their
// layers.
func graphOf(t *testing.T, inputs, outputs []*layers.KerasTensor) Graph {
	t.Helper()
	var g Graph
	ids := map[*layers.KerasTensor]int{}
	tensor := func(k *layers.KerasTensor) int {
		if err := k.Err(); err != nil {
			t.Fatal(err)
		}
		ids[k] = len(g.Tensors)
		g.Tensors = append(g.Tensors, Tensor{Shape: k.Shape(), Dtype: k.Dtype()})
		return ids[k]
	}
	for _, in := range inputs {
		g.Inputs = append(g.Inputs, Port{Name: in.Node().Layer.Name(), Tensor: tensor(in)})
	}
	var visit func(k *layers.KerasTensor) int
	visit = func(k *layers.KerasTensor) int {
		if id, ok := ids[k]; ok {
			return id
		}
		n := k.Node()
		if n.IsInput {
			t.Fatalf("input %s is not among the graph's inputs", n.Layer.Name())
		}
		var args []int
		for _, in := range n.Inputs {
			args = append(args, visit(in))
		}
		out := tensor(k)
		g.Nodes = append(g.Nodes, Node{Layer: n.Layer, Name: n.Layer.Name(), Inputs: args, Output: out})
		return out
	}
	for _, o := range outputs {
		g.Outputs = append(g.Outputs, Port{Name: o.Node().Layer.Name(), Tensor: visit(o)})
	}
	return g
}

// export marshals the graph from inputs to outputs and decodes it.
func export(t *testing.T, inputs, outputs []*layers.KerasTensor) *decoded {
	t.Helper()
	data, err := Marshal(graphOf(t, inputs, outputs))
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, data)
}
