package tfevents

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

func TestCRC32C(t *testing.T) {
	// The CRC-32C check value.
	if got := crc32.Checksum([]byte("123456789"), castagnoli); got != 0xe3069283 {
		t.Fatalf("crc32c = %#x", got)
	}
	// Unmasking the masked CRC gives the CRC back.
	for _, s := range []string{"", "a", "123456789", "brain.Event:2"} {
		m := MaskedCRC([]byte(s))
		rot := m - 0xa282ead8
		if c := (rot >> 17) | (rot << 15); c != crc32.Checksum([]byte(s), castagnoli) {
			t.Errorf("unmask(%q) = %#x", s, c)
		}
	}
}

func TestRecordFraming(t *testing.T) {
	var buf bytes.Buffer
	recs := [][]byte{[]byte("hello"), {}, bytes.Repeat([]byte{0xab}, 1000)}
	for _, r := range recs {
		if err := WriteRecord(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	raw := buf.Bytes()
	// First record by hand: length, masked CRC of the length, data, masked CRC.
	if n := binary.LittleEndian.Uint64(raw); n != 5 {
		t.Errorf("length %d", n)
	}
	if c := binary.LittleEndian.Uint32(raw[8:]); c != MaskedCRC(raw[:8]) {
		t.Errorf("length crc %#x", c)
	}
	if string(raw[12:17]) != "hello" || binary.LittleEndian.Uint32(raw[17:]) != MaskedCRC([]byte("hello")) {
		t.Errorf("first record % x", raw[:21])
	}
	rr := NewRecordReader(bytes.NewReader(raw))
	for i, want := range recs {
		got, err := rr.Next()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("record %d: %q %v", i, got, err)
		}
	}
	if _, err := rr.Next(); err != io.EOF {
		t.Errorf("at end: %v", err)
	}
	// A flipped data byte, a flipped length byte, a truncated file.
	bad := bytes.Clone(raw)
	bad[13] ^= 1
	if _, err := NewRecordReader(bytes.NewReader(bad)).Next(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt data: %v", err)
	}
	bad = bytes.Clone(raw)
	bad[0] ^= 1
	if _, err := NewRecordReader(bytes.NewReader(bad)).Next(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt length: %v", err)
	}
	if _, err := NewRecordReader(bytes.NewReader(raw[:15])).Next(); err != io.ErrUnexpectedEOF {
		t.Errorf("truncated: %v", err)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	events := []*Event{
		{WallTime: 1.5, FileVersion: FileVersion},
		{WallTime: 2.25, Step: 7, Summary: []Value{{Tag: "epoch_loss", SimpleValue: 0.5}, {Tag: "zero", SimpleValue: 0}}},
		{WallTime: 3, Step: -1, Summary: []Value{{Tag: "dense/kernel", Histo: NewHistogram([]float64{1, 2, 2, 3, 10}, 4)}}},
	}
	for _, e := range events {
		got, err := Unmarshal(Marshal(e))
		if err != nil {
			t.Fatal(err)
		}
		for i := range got.Summary {
			if e.Summary[i].Histo == nil && !got.Summary[i].HasSimpleValue {
				t.Errorf("%s: simple_value not written", e.Summary[i].Tag)
			}
			got.Summary[i].HasSimpleValue = false
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, e)
		}
	}
}

func TestNewHistogram(t *testing.T) {
	h := NewHistogram([]float64{0, 1, 2, 3, 4, math.NaN(), math.Inf(1)}, 4)
	want := &Histogram{Min: 0, Max: 4, Num: 5, Sum: 10, SumSquares: 30,
		BucketLimit: []float64{1, 2, 3, 4}, Bucket: []float64{2, 1, 1, 1}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("histogram %+v, want %+v", h, want)
	}
	if h := NewHistogram([]float64{2, 2}, 0); !reflect.DeepEqual(h.Bucket, []float64{2}) || !reflect.DeepEqual(h.BucketLimit, []float64{2}) {
		t.Errorf("constant values: %+v", h)
	}
	if NewHistogram([]float64{math.NaN()}, 0) != nil {
		t.Error("histogram of no finite value")
	}
	h = NewHistogram([]float64{-1, 0.5, 7}, 0)
	if len(h.Bucket) != 30 || h.Bucket[0] != 1 || h.Bucket[29] != 1 {
		t.Errorf("default buckets: %v", h.Bucket)
	}
}

func TestWriterFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs", "train")
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Unix(1700000000, 250_000_000) }
	w, err := NewWriter(dir) // creates the directories
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if want := "events.out.tfevents.1700000000." + regexp.QuoteMeta(host) + `\.\d+\.v2$`; !regexp.MustCompile(want).MatchString(w.Path()) {
		t.Errorf("file name %s", w.Path())
	}
	w2, err := NewWriter(dir) // same second, same process: another name
	if err != nil || w2.Path() == w.Path() {
		t.Fatalf("second writer %v %v", w2, err)
	}
	w2.Close()
	w.Scalar("epoch_loss", 0, 0.75)
	w.Scalar("epoch_loss", 1, 0.5)
	w.Histogram("dense/kernel", 1, []float64{-1, 0, 1})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if err := w.Scalar("late", 2, 1); err == nil {
		t.Error("write after close succeeded")
	}
	evs, err := ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 4 || evs[0].FileVersion != "brain.Event:2" || evs[0].WallTime != 1700000000.25 {
		t.Fatalf("events %+v", evs)
	}
	if v := evs[2].Summary[0]; evs[2].Step != 1 || v.Tag != "epoch_loss" || v.SimpleValue != 0.5 {
		t.Errorf("scalar event %+v", evs[2])
	}
	if h := evs[3].Summary[0].Histo; h == nil || h.Num != 3 || h.Min != -1 || h.Max != 1 {
		t.Errorf("histogram event %+v", evs[3])
	}
	files, _ := Files(dir)
	if len(files) != 2 {
		t.Errorf("files %v", files)
	}
}

// eventDescriptor builds event.proto's Event, Summary and HistogramProto
// from a FileDescriptorProto written here, independently of the encoder.
func eventDescriptor(t *testing.T) protoreflect.FileDescriptor {
	t.Helper()
	field := func(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label, typeName string, oneof *int32) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(num), Type: typ.Enum(), Label: label.Enum(), JsonName: proto.String(name)}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		f.OneofIndex = oneof
		return f
	}
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
	rep := descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	dbl := descriptorpb.FieldDescriptorProto_TYPE_DOUBLE
	msg := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
	zero := proto.Int32(0)
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("tfevents_test/event.proto"),
		Package: proto.String("tensorboard"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{
				Name: proto.String("HistogramProto"),
				Field: []*descriptorpb.FieldDescriptorProto{
					field("min", 1, dbl, opt, "", nil),
					field("max", 2, dbl, opt, "", nil),
					field("num", 3, dbl, opt, "", nil),
					field("sum", 4, dbl, opt, "", nil),
					field("sum_squares", 5, dbl, opt, "", nil),
					field("bucket_limit", 6, dbl, rep, "", nil),
					field("bucket", 7, dbl, rep, "", nil),
				},
			},
			{
				Name:  proto.String("Summary"),
				Field: []*descriptorpb.FieldDescriptorProto{field("value", 1, msg, rep, ".tensorboard.Summary.Value", nil)},
				NestedType: []*descriptorpb.DescriptorProto{{
					Name: proto.String("Value"),
					Field: []*descriptorpb.FieldDescriptorProto{
						field("tag", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, "", nil),
						field("simple_value", 2, descriptorpb.FieldDescriptorProto_TYPE_FLOAT, opt, "", zero),
						field("histo", 5, msg, opt, ".tensorboard.HistogramProto", zero),
					},
					OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("value")}},
				}},
			},
			{
				Name: proto.String("Event"),
				Field: []*descriptorpb.FieldDescriptorProto{
					field("wall_time", 1, dbl, opt, "", nil),
					field("step", 2, descriptorpb.FieldDescriptorProto_TYPE_INT64, opt, "", nil),
					field("file_version", 3, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, "", zero),
					field("summary", 5, msg, opt, ".tensorboard.Summary", zero),
				},
				OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("what")}},
			},
		},
	}
	fd, err := protodesc.NewFile(fdp, new(protoregistry.Files))
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

func TestEventsDecodeWithProtobuf(t *testing.T) {
	fd := eventDescriptor(t)
	evMD := fd.Messages().ByName("Event")
	dir := t.TempDir()
	w, err := NewWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Scalar("epoch_accuracy", 3, 0.875)
	w.Scalar("zero", 0, 0)
	w.Histogram("dense/bias", 2, []float64{0.5, 1.5, 1.5, 2.5})
	w.Close()
	f, _ := os.Open(w.Path())
	defer f.Close()
	rr := NewRecordReader(f)
	var got []*dynamicpb.Message
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		m := dynamicpb.NewMessage(evMD)
		if err := proto.Unmarshal(rec, m); err != nil {
			t.Fatal(err)
		}
		if len(m.GetUnknown()) != 0 {
			t.Errorf("unknown fields in %v", m)
		}
		got = append(got, m)
	}
	if len(got) != 4 {
		t.Fatalf("%d events", len(got))
	}
	get := func(m protoreflect.Message, name string) protoreflect.Value {
		return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name)))
	}
	if get(got[0], "file_version").String() != FileVersion || get(got[0], "wall_time").Float() <= 1e9 {
		t.Errorf("first event %v", got[0])
	}
	value := func(ev protoreflect.Message) protoreflect.Message {
		return get(get(ev, "summary").Message(), "value").List().Get(0).Message()
	}
	if v := value(got[1]); get(got[1], "step").Int() != 3 || get(v, "tag").String() != "epoch_accuracy" || get(v, "simple_value").Float() != 0.875 {
		t.Errorf("scalar %v", got[1])
	}
	// A zero scalar is still a scalar: the oneof is set.
	if v := value(got[2]); !v.Has(v.Descriptor().Fields().ByName("simple_value")) {
		t.Errorf("zero scalar has no simple_value: %v", got[2])
	}
	h := get(value(got[3]), "histo").Message()
	list := func(name string) []float64 {
		l := get(h, name).List()
		out := make([]float64, l.Len())
		for i := range out {
			out[i] = l.Get(i).Float()
		}
		return out
	}
	want := NewHistogram([]float64{0.5, 1.5, 1.5, 2.5}, 0)
	if get(h, "min").Float() != 0.5 || get(h, "max").Float() != 2.5 || get(h, "num").Float() != 4 ||
		get(h, "sum").Float() != 6 || get(h, "sum_squares").Float() != 11 ||
		!reflect.DeepEqual(list("bucket_limit"), want.BucketLimit) || !reflect.DeepEqual(list("bucket"), want.Bucket) {
		t.Errorf("histogram %v", h)
	}

	// The other way: protobuf's encoding (packed or not) decodes with ours.
	m := dynamicpb.NewMessage(evMD)
	m.Set(evMD.Fields().ByName("step"), protoreflect.ValueOfInt64(42))
	m.Set(evMD.Fields().ByName("wall_time"), protoreflect.ValueOfFloat64(9.5))
	sum := m.Mutable(evMD.Fields().ByName("summary")).Message()
	vals := sum.Mutable(sum.Descriptor().Fields().ByName("value")).List()
	v := vals.NewElement().Message()
	v.Set(v.Descriptor().Fields().ByName("tag"), protoreflect.ValueOfString("t"))
	hm := v.Mutable(v.Descriptor().Fields().ByName("histo")).Message()
	hm.Set(hm.Descriptor().Fields().ByName("max"), protoreflect.ValueOfFloat64(3))
	bl := hm.Mutable(hm.Descriptor().Fields().ByName("bucket_limit")).List()
	bl.Append(protoreflect.ValueOfFloat64(1))
	bl.Append(protoreflect.ValueOfFloat64(3))
	vals.Append(protoreflect.ValueOfMessage(v))
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if e.Step != 42 || e.WallTime != 9.5 || len(e.Summary) != 1 || e.Summary[0].Tag != "t" || e.Summary[0].Histo == nil ||
		e.Summary[0].Histo.Max != 3 || !reflect.DeepEqual(e.Summary[0].Histo.BucketLimit, []float64{1, 3}) {
		t.Errorf("decoded %+v", e)
	}
}

func TestUnmarshalRejectsGarbage(t *testing.T) {
	if _, err := Unmarshal([]byte{0x0a, 0x05, 'a'}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated field: %v", err)
	}
	// Unknown fields are skipped.
	b := Marshal(&Event{Step: 3})
	b = append(b, 0x30|0, 0x01) // field 6, varint 1 (Event.log_message is 6, a message; varint here is "unknown")
	if e, err := Unmarshal(b); err != nil || e.Step != 3 {
		t.Errorf("unknown field: %+v %v", e, err)
	}
}
