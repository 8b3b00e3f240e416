package hdf5

import (
	"bytes"
	"io"
	"testing"
)

// benchTree is 16 MiB of float32 weights in 8 datasets.
func benchTree() *Group {
	g := &Group{Name: "vars"}
	for i := 0; i < 8; i++ {
		v := make([]float32, 1<<19)
		for k := range v {
			v[k] = float32(k) * 0.5
		}
		g.Datasets = append(g.Datasets, &Dataset{Name: string(rune('0' + i)), Shape: []int{512, 1024}, Value: v})
	}
	return &Group{Groups: []*Group{g}}
}

func BenchmarkEncode(b *testing.B) {
	t := benchTree()
	b.SetBytes(16 << 20)
	for i := 0; i < b.N; i++ {
		if err := Encode(io.Discard, t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	var buf bytes.Buffer
	if err := Encode(&buf, benchTree()); err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(buf.Bytes())
	b.SetBytes(16 << 20)
	for i := 0; i < b.N; i++ {
		if _, err := Decode(r, int64(buf.Len()), Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
