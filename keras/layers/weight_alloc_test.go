package layers

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestHugeWeightsAreErrors: layers built in Go with weights beyond the
// memory the process can take (NewDense(1<<40), an input of 2^40
// features, and 2^31 units under a 1 GiB runtime limit) return an error
// naming the layer and the weight's shape when built, where they were a
// fatal out of memory.
func TestHugeWeightsAreErrors(t *testing.T) {
	cases := []struct {
		name string
		l    Layer
		in   ops.Shape
	}{
		{"units 2^40", NewDense(1 << 40), ops.Shape{-1, 4}},
		{"input 2^40", NewDense(8), ops.Shape{-1, 1 << 40}},
		{"embedding 2^40", NewEmbedding(1<<40, 8), ops.Shape{-1, 3}},
		{"units 2^31 under 1 GiB", NewDense(1 << 31), ops.Shape{-1, 4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if strings.HasSuffix(c.name, "1 GiB") {
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
			}
			_, err := OutputShape(c.l, []ops.Shape{c.in})
			if err == nil || !strings.Contains(err.Error(), c.l.Name()) || !strings.Contains(err.Error(), "weight of shape") {
				t.Errorf("error %v; want one naming layer %q and the weight", err, c.l.Name())
			}
		})
	}
}

// TestHugeTraceConstantsAreErrors: constants layers trace from their
// config and input shapes (a Resizing matrix of 65536 x 2^31 values, the
// token ids of a CategoryEncoding of 2^40 tokens) are errors naming the
// layer, not a fatal out of memory.
func TestHugeTraceConstantsAreErrors(t *testing.T) {
	for _, c := range []struct {
		l  Layer
		in ops.Shape
	}{
		{NewResizing(65536, 1, ResizingSettings{}), ops.Shape{-1, 1 << 31, 1, 1}},
		{NewCategoryEncoding(CategoryEncodingSettings{NumTokens: 1 << 40}), ops.Shape{-1, 3}},
	} {
		_, err := OutputShape(c.l, []ops.Shape{c.in})
		if err == nil || !strings.Contains(err.Error(), c.l.Name()) || !strings.Contains(err.Error(), "allocate") {
			t.Errorf("%s: error %v; want one naming the layer and the memory", c.l.ClassName(), err)
		}
	}
}
