package psrpc

import (
	"math"
	"testing"

	"google.golang.org/protobuf/proto"
)

func TestFloat32sRoundTrip(t *testing.T) {
	for _, fast := range []bool{littleEndian, false} {
		saved := littleEndian
		littleEndian = fast
		testFloat32sRoundTrip(t)
		littleEndian = saved
	}
}

func testFloat32sRoundTrip(t *testing.T) {
	x := []float32{0, -1.5, float32(math.Inf(1)), 3e-39, math.MaxFloat32}
	b := EncodeFloat32s(x)
	if len(b) != 20 || b[4] != 0 || b[7] != 0xbf {
		t.Fatalf("bytes %x are not little-endian float32", b)
	}
	y, err := DecodeFloat32s(b, "t")
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
			t.Fatalf("value %d: %v, want %v", i, y[i], x[i])
		}
	}
	if _, err := DecodeFloat32s(b[:5], "dense/kernel"); err == nil {
		t.Fatal("5 bytes decoded")
	}
	if err := DecodeFloat32sInto(make([]float32, 4), b, "dense/kernel"); err == nil {
		t.Fatal("5 values decoded into 4")
	}
}

// FuzzDecode: any bytes decode as a tensor or a clear error, and any bytes
// given to the messages' decoder and then to ShapeSize do not panic.
func FuzzDecode(f *testing.F) {
	v, _ := proto.Marshal(&VarSpec{Id: 1, Name: "dense/kernel", Shape: []int64{2, 3}, Value: EncodeFloat32s(make([]float32, 6))})
	f.Add(v)
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		if x, err := DecodeFloat32s(b, "t"); err == nil && len(x)*4 != len(b) {
			t.Fatalf("%d bytes gave %d values", len(b), len(x))
		}
		var s VarSpec
		if proto.Unmarshal(b, &s) != nil {
			return
		}
		n, err := ShapeSize(s.Shape, 1<<28, s.Name)
		if err == nil && n < 0 {
			t.Fatalf("shape %v: size %d", s.Shape, n)
		}
		var r RunRequest
		_ = proto.Unmarshal(b, &r)
	})
}
