package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Producer is the producer_name of the models gokeras writes.
const Producer = "gokeras"

func putFloat32(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }
func putUint64(b []byte, v uint64)   { binary.LittleEndian.PutUint64(b, v) }

// Marshal converts g to an ONNX model (opset [Opset], IR [IRVersion]) and
// returns its protobuf encoding. Keras' channels-last images are
// transposed to ONNX's channels-first layout once after each image
// input, and back only where a layer depends on the layout (Flatten,
// Reshape, Dense, the outputs), so graph inputs and outputs keep the
// Keras model's shapes with a symbolic batch dimension. A layer the
// exporter cannot write is an error wrapping [ErrUnsupported] that names
// it and its class.
func Marshal(g Graph) ([]byte, error) {
	b, err := convert(g)
	if err != nil {
		return nil, err
	}
	return b.marshal(g.Name)
}

// Write is [Marshal] into a file: a temporary file in path's directory,
// renamed to path once complete, so a failed export leaves no partial
// model.
func Write(path string, g Graph) error {
	data, err := Marshal(g)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".onnx-*")
	if err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("onnx: writing %s: %w", path, err)
	}
	return nil
}

// marshal encodes the built graph as a ModelProto.
func (b *builder) marshal(name string) ([]byte, error) {
	s, err := loadSchema()
	if err != nil {
		return nil, err
	}
	g := s.newMsg("GraphProto").set("name", sanitize(name))
	for _, n := range b.nodes {
		nm := s.newMsg("NodeProto").set("name", n.name).set("op_type", n.op)
		for _, in := range n.inputs {
			nm.add("input", in)
		}
		for _, out := range n.outputs {
			nm.add("output", out)
		}
		for _, a := range n.attrs {
			am := s.newMsg("AttributeProto").set("name", a.name).set("type", protoreflect.EnumNumber(a.kind))
			switch a.kind {
			case 1:
				am.set("f", a.f)
			case 2:
				am.set("i", a.i)
			case 3:
				am.set("s", []byte(a.s))
			case 6:
				for _, f := range a.floats {
					am.add("floats", f)
				}
			case 7:
				for _, i := range a.ints {
					am.add("ints", i)
				}
			case 8:
				for _, s := range a.strings {
					am.add("strings", []byte(s))
				}
			default:
				return nil, fmt.Errorf("onnx: attribute %q of node %q has no known type %d", a.name, n.name, a.kind)
			}
			nm.add("attribute", am)
		}
		g.add("node", nm)
	}
	for _, t := range b.inits {
		tm := s.newMsg("TensorProto").set("name", t.name).set("data_type", t.dtype).set("raw_data", t.raw)
		for _, d := range t.dims {
			tm.add("dims", d)
		}
		g.add("initializer", tm)
	}
	for _, v := range b.inputs {
		g.add("input", s.valueInfo(v))
	}
	for _, v := range b.outputs {
		g.add("output", s.valueInfo(v))
	}
	m := s.newMsg("ModelProto").
		set("ir_version", int64(IRVersion)).
		set("producer_name", Producer).
		set("graph", g)
	m.add("opset_import", s.newMsg("OperatorSetIdProto").set("domain", "").set("version", int64(Opset)))
	out, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.m)
	if err != nil {
		return nil, fmt.Errorf("onnx: encoding the model: %w", err)
	}
	return out, nil
}

func (s *schema) valueInfo(v valueInfo) msg {
	shape := s.newMsg("TensorShapeProto")
	for i, d := range v.dims {
		dm := s.newMsg("TensorShapeProto.Dimension")
		if v.param[i] != "" {
			dm.set("dim_param", v.param[i])
		} else {
			dm.set("dim_value", d)
		}
		shape.add("dim", dm)
	}
	tt := s.newMsg("TypeProto.Tensor").set("elem_type", v.dtype).set("shape", shape)
	return s.newMsg("ValueInfoProto").set("name", v.name).set("type", s.newMsg("TypeProto").set("tensor_type", tt))
}
