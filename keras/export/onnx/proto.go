package onnx

import (
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The ONNX messages are described here, in Go, with the field numbers,
// types and labels of the public onnx/onnx.proto (package onnx, proto2),
// limited to the messages and fields an exported inference graph uses.
// A model is built as dynamicpb messages of these descriptors and
// marshalled by google.golang.org/protobuf: the wire format is the
// protobuf library's, and the schema a few dozen lines instead of a copy
// of onnx.proto and its generated code. Fields left out of the subset are
// never written; a reader with the full schema sees the same messages.

// field describes one field of a message of the subset.
type field struct {
	name     string
	number   int32
	typ      descriptorpb.FieldDescriptorProto_Type
	repeated bool
	typeName string // messages and enums: ".onnx.X"
	oneof    *int32 // index of the message's oneof
}

const (
	tString  = descriptorpb.FieldDescriptorProto_TYPE_STRING
	tBytes   = descriptorpb.FieldDescriptorProto_TYPE_BYTES
	tInt64   = descriptorpb.FieldDescriptorProto_TYPE_INT64
	tInt32   = descriptorpb.FieldDescriptorProto_TYPE_INT32
	tFloat   = descriptorpb.FieldDescriptorProto_TYPE_FLOAT
	tMessage = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	tEnum    = descriptorpb.FieldDescriptorProto_TYPE_ENUM
)

func oneofIndex(i int32) *int32 { return &i }

func message(name string, fields []field, nested ...*descriptorpb.DescriptorProto) *descriptorpb.DescriptorProto {
	m := &descriptorpb.DescriptorProto{Name: proto.String(name), NestedType: nested}
	for _, f := range fields {
		label := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
		if f.repeated {
			label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
		}
		fd := &descriptorpb.FieldDescriptorProto{
			Name:       proto.String(f.name),
			Number:     proto.Int32(f.number),
			Label:      label.Enum(),
			Type:       f.typ.Enum(),
			OneofIndex: f.oneof,
		}
		if f.typeName != "" {
			fd.TypeName = proto.String(f.typeName)
		}
		m.Field = append(m.Field, fd)
	}
	return m
}

// onnxFile is the descriptor of the subset of onnx.proto that gokeras
// writes. Field numbers are onnx.proto's (IR version 8 and later keep them).
func onnxFile() *descriptorpb.FileDescriptorProto {
	attrType := &descriptorpb.EnumDescriptorProto{Name: proto.String("AttributeType")}
	for _, v := range []struct {
		name string
		n    int32
	}{{"UNDEFINED", 0}, {"FLOAT", 1}, {"INT", 2}, {"STRING", 3}, {"TENSOR", 4}, {"GRAPH", 5}, {"FLOATS", 6}, {"INTS", 7}, {"STRINGS", 8}} {
		attrType.Value = append(attrType.Value, &descriptorpb.EnumValueDescriptorProto{Name: proto.String(v.name), Number: proto.Int32(v.n)})
	}
	attribute := message("AttributeProto", []field{
		{name: "name", number: 1, typ: tString},
		{name: "f", number: 2, typ: tFloat},
		{name: "i", number: 3, typ: tInt64},
		{name: "s", number: 4, typ: tBytes},
		{name: "t", number: 5, typ: tMessage, typeName: ".onnx.TensorProto"},
		{name: "floats", number: 7, typ: tFloat, repeated: true},
		{name: "ints", number: 8, typ: tInt64, repeated: true},
		{name: "strings", number: 9, typ: tBytes, repeated: true},
		{name: "doc_string", number: 13, typ: tString},
		{name: "type", number: 20, typ: tEnum, typeName: ".onnx.AttributeProto.AttributeType"},
	})
	attribute.EnumType = []*descriptorpb.EnumDescriptorProto{attrType}

	dimension := message("Dimension", []field{
		{name: "dim_value", number: 1, typ: tInt64, oneof: oneofIndex(0)},
		{name: "dim_param", number: 2, typ: tString, oneof: oneofIndex(0)},
		{name: "denotation", number: 3, typ: tString},
	})
	dimension.OneofDecl = []*descriptorpb.OneofDescriptorProto{{Name: proto.String("value")}}
	tensorType := message("Tensor", []field{
		{name: "elem_type", number: 1, typ: tInt32},
		{name: "shape", number: 2, typ: tMessage, typeName: ".onnx.TensorShapeProto"},
	})
	typ := message("TypeProto", []field{
		{name: "tensor_type", number: 1, typ: tMessage, typeName: ".onnx.TypeProto.Tensor", oneof: oneofIndex(0)},
		{name: "denotation", number: 6, typ: tString},
	}, tensorType)
	typ.OneofDecl = []*descriptorpb.OneofDescriptorProto{{Name: proto.String("value")}}

	return &descriptorpb.FileDescriptorProto{
		Name:    proto.String("gokeras/onnx_subset.proto"),
		Package: proto.String("onnx"),
		Syntax:  proto.String("proto2"),
		MessageType: []*descriptorpb.DescriptorProto{
			attribute,
			message("ValueInfoProto", []field{
				{name: "name", number: 1, typ: tString},
				{name: "type", number: 2, typ: tMessage, typeName: ".onnx.TypeProto"},
				{name: "doc_string", number: 3, typ: tString},
			}),
			message("NodeProto", []field{
				{name: "input", number: 1, typ: tString, repeated: true},
				{name: "output", number: 2, typ: tString, repeated: true},
				{name: "name", number: 3, typ: tString},
				{name: "op_type", number: 4, typ: tString},
				{name: "attribute", number: 5, typ: tMessage, repeated: true, typeName: ".onnx.AttributeProto"},
				{name: "doc_string", number: 6, typ: tString},
				{name: "domain", number: 7, typ: tString},
			}),
			message("ModelProto", []field{
				{name: "ir_version", number: 1, typ: tInt64},
				{name: "producer_name", number: 2, typ: tString},
				{name: "producer_version", number: 3, typ: tString},
				{name: "domain", number: 4, typ: tString},
				{name: "model_version", number: 5, typ: tInt64},
				{name: "doc_string", number: 6, typ: tString},
				{name: "graph", number: 7, typ: tMessage, typeName: ".onnx.GraphProto"},
				{name: "opset_import", number: 8, typ: tMessage, repeated: true, typeName: ".onnx.OperatorSetIdProto"},
				{name: "metadata_props", number: 14, typ: tMessage, repeated: true, typeName: ".onnx.StringStringEntryProto"},
			}),
			message("StringStringEntryProto", []field{
				{name: "key", number: 1, typ: tString},
				{name: "value", number: 2, typ: tString},
			}),
			message("GraphProto", []field{
				{name: "node", number: 1, typ: tMessage, repeated: true, typeName: ".onnx.NodeProto"},
				{name: "name", number: 2, typ: tString},
				{name: "initializer", number: 5, typ: tMessage, repeated: true, typeName: ".onnx.TensorProto"},
				{name: "doc_string", number: 10, typ: tString},
				{name: "input", number: 11, typ: tMessage, repeated: true, typeName: ".onnx.ValueInfoProto"},
				{name: "output", number: 12, typ: tMessage, repeated: true, typeName: ".onnx.ValueInfoProto"},
				{name: "value_info", number: 13, typ: tMessage, repeated: true, typeName: ".onnx.ValueInfoProto"},
			}),
			message("TensorProto", []field{
				{name: "dims", number: 1, typ: tInt64, repeated: true},
				{name: "data_type", number: 2, typ: tInt32},
				{name: "name", number: 8, typ: tString},
				{name: "raw_data", number: 9, typ: tBytes},
				{name: "doc_string", number: 12, typ: tString},
			}),
			message("TensorShapeProto", []field{
				{name: "dim", number: 1, typ: tMessage, repeated: true, typeName: ".onnx.TensorShapeProto.Dimension"},
			}, dimension),
			typ,
			message("OperatorSetIdProto", []field{
				{name: "domain", number: 1, typ: tString},
				{name: "version", number: 2, typ: tInt64},
			}),
		},
	}
}

// schema holds the message descriptors of [onnxFile], built once.
type schema struct {
	file protoreflect.FileDescriptor
}

var (
	schemaOnce sync.Once
	schemaVal  *schema
	schemaErr  error
)

// loadSchema returns the ONNX subset's descriptors.
func loadSchema() (*schema, error) {
	schemaOnce.Do(func() {
		fd, err := protodesc.NewFile(onnxFile(), nil)
		if err != nil {
			schemaErr = fmt.Errorf("onnx: building the ONNX message descriptors: %w", err)
			return
		}
		schemaVal = &schema{file: fd}
	})
	return schemaVal, schemaErr
}

// desc returns the descriptor of a top-level or nested message ("TypeProto.Tensor").
func (s *schema) desc(name string) protoreflect.MessageDescriptor {
	d := s.file.FullName() + "." + protoreflect.FullName(name)
	var find func(ms protoreflect.MessageDescriptors) protoreflect.MessageDescriptor
	find = func(ms protoreflect.MessageDescriptors) protoreflect.MessageDescriptor {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			if m.FullName() == d {
				return m
			}
			if r := find(m.Messages()); r != nil {
				return r
			}
		}
		return nil
	}
	m := find(s.file.Messages())
	if m == nil {
		panic("onnx: no message " + name + " in the schema") // a typo in this package
	}
	return m
}

// msg is a dynamic message of the subset with setters by field name.
type msg struct{ m *dynamicpb.Message }

func (s *schema) newMsg(name string) msg { return msg{dynamicpb.NewMessage(s.desc(name))} }

func (m msg) fd(name string) protoreflect.FieldDescriptor {
	f := m.m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if f == nil {
		panic(fmt.Sprintf("onnx: message %s has no field %q", m.m.Descriptor().Name(), name)) // a typo in this package
	}
	return f
}

// set sets a singular field: string, []byte, int64, int32, float32, an
// enum number or a msg.
func (m msg) set(name string, v any) msg {
	m.m.Set(m.fd(name), value(v))
	return m
}

// add appends to a repeated field.
func (m msg) add(name string, vs ...any) msg {
	l := m.m.Mutable(m.fd(name)).List()
	for _, v := range vs {
		l.Append(value(v))
	}
	return m
}

func value(v any) protoreflect.Value {
	switch v := v.(type) {
	case msg:
		return protoreflect.ValueOfMessage(v.m)
	case protoreflect.EnumNumber:
		return protoreflect.ValueOfEnum(v)
	}
	return protoreflect.ValueOf(v)
}
