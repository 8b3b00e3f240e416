package onnx

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestWireBytes encodes small messages of the schema and compares them
// with their encoding worked out by hand from onnx.proto (field number
// << 3 | wire type, then the value), so a wrong field number or type in
// the Go descriptor fails here, not only in tools/onnx_reference.
func TestWireBytes(t *testing.T) {
	s, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		m    msg
		want []byte
	}{
		{"OperatorSetIdProto{domain: \"\", version: 17}", s.newMsg("OperatorSetIdProto").set("domain", "").set("version", int64(17)),
			[]byte{0x0a, 0x00, 0x10, 17}},
		{"Dimension{dim_param: \"batch\"}", s.newMsg("TensorShapeProto.Dimension").set("dim_param", "batch"),
			[]byte{0x12, 5, 'b', 'a', 't', 'c', 'h'}},
		{"Dimension{dim_value: 28}", s.newMsg("TensorShapeProto.Dimension").set("dim_value", int64(28)), []byte{0x08, 28}},
		{"AttributeProto{name: \"axis\", i: 1, type: INT}", s.newMsg("AttributeProto").set("name", "axis").set("i", int64(1)).set("type", protoreflect.EnumNumber(2)),
			// type is field 20: tag 160 is the varint a0 01.
			[]byte{0x0a, 4, 'a', 'x', 'i', 's', 0x18, 1, 0xa0, 0x01, 2}},
		{"AttributeProto{ints: [1, 300]}", s.newMsg("AttributeProto").add("ints", int64(1), int64(300)),
			// proto2 repeated scalars, unpacked as onnx.proto declares them.
			[]byte{0x40, 1, 0x40, 0xac, 0x02}},
		{"AttributeProto{strings: [\"Tanh\", \"\"]}", s.newMsg("AttributeProto").add("strings", []byte("Tanh"), []byte{}),
			[]byte{0x4a, 4, 'T', 'a', 'n', 'h', 0x4a, 0}},
		{"AttributeProto{f: 0.5}", s.newMsg("AttributeProto").set("f", float32(0.5)), []byte{0x15, 0, 0, 0, 0x3f}},
		{"TensorProto{dims: [2], data_type: FLOAT, name: \"w\", raw_data}", s.newMsg("TensorProto").add("dims", int64(2)).set("data_type", int32(1)).set("name", "w").set("raw_data", []byte{1, 2}),
			[]byte{0x08, 2, 0x10, 1, 0x42, 1, 'w', 0x4a, 2, 1, 2}},
		{"NodeProto{input, output, name, op_type}", s.newMsg("NodeProto").add("input", "x").add("output", "y").set("name", "n").set("op_type", "Relu"),
			[]byte{0x0a, 1, 'x', 0x12, 1, 'y', 0x1a, 1, 'n', 0x22, 4, 'R', 'e', 'l', 'u'}},
		{"TypeProto{tensor_type{elem_type: 1}}", s.newMsg("TypeProto").set("tensor_type", s.newMsg("TypeProto.Tensor").set("elem_type", int32(1))),
			[]byte{0x0a, 2, 0x08, 1}},
		{"ModelProto{ir_version: 8, graph{name: \"g\"}, opset_import}", s.newMsg("ModelProto").set("ir_version", int64(8)).set("graph", s.newMsg("GraphProto").set("name", "g")).add("opset_import", s.newMsg("OperatorSetIdProto").set("version", int64(17))),
			[]byte{0x08, 8, 0x3a, 3, 0x12, 1, 'g', 0x42, 2, 0x10, 17}},
		{"GraphProto{initializer, input, output}", s.newMsg("GraphProto").add("initializer", s.newMsg("TensorProto")).add("input", s.newMsg("ValueInfoProto")).add("output", s.newMsg("ValueInfoProto").set("name", "o")),
			[]byte{0x2a, 0, 0x5a, 0, 0x62, 3, 0x0a, 1, 'o'}},
	} {
		got, err := proto.MarshalOptions{Deterministic: true}.Marshal(c.m.m)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s: % x, want % x", c.what, got, c.want)
		}
	}
}

// TestSchemaBuilds: the descriptor set is valid protobuf (protodesc
// checks names, numbers and references) and every message the exporter
// writes is in it.
func TestSchemaBuilds(t *testing.T) {
	s, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ModelProto", "GraphProto", "NodeProto", "AttributeProto", "TensorProto", "ValueInfoProto",
		"TypeProto", "TypeProto.Tensor", "TensorShapeProto", "TensorShapeProto.Dimension", "OperatorSetIdProto", "StringStringEntryProto"} {
		if d := s.desc(name); string(d.FullName()) != "onnx."+name {
			t.Errorf("%s: descriptor %s", name, d.FullName())
		}
	}
	if s.file.Syntax() != protoreflect.Proto2 {
		t.Errorf("syntax %v; onnx.proto is proto2", s.file.Syntax())
	}
}
