package layers

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestNoneSizeLargeWindow: a layer whose window does not fit the
// smallest stand-in sizes of a None dimension (a 7x7 "valid" convolution,
// ResNet's stem, on an image of unknown size) is traced with larger
// ones: its output dimensions still follow the None input; a window
// larger than every stand-in size is still an error naming the layer.
func TestNoneSizeLargeWindow(t *testing.T) {
	in := Input([]int{None, None, 3})
	x := Apply(NewConv2D(4, 7, WithStrides(2), WithName("stem")), in)
	x = Apply(NewMaxPooling2D(WithPoolSize(3), WithStrides(2)), x)
	x = Apply(NewConv2D(2, 9), x) // 9 > (37-7)/2+1 pooled: only the largest sizes fit
	if err := x.Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := x.Shape(), (ops.Shape{-1, -1, -1, 2}); !got.Equal(want) {
		t.Errorf("shape %v, want %v", got, want)
	}
	fixed := Apply(NewConv2D(3, 5, WithName("fixed_width")), Input([]int{None, 6, 1}))
	if got, want := fixed.Shape(), (ops.Shape{-1, -1, 2, 3}); fixed.Err() != nil || !got.Equal(want) {
		t.Errorf("shape %v (%v), want %v", got, fixed.Err(), want)
	}
	// ConvNeXt's stem: a stride of 4 turns both 5 and 7 into 1, and
	// ViT's patches of 16 fold 37 and 45 alike: the sizes still follow None.
	for _, k := range []int{4, 16} {
		p := Apply(NewConv2D(8, k, WithStrides(k)), Input([]int{None, None, 3}))
		if got, want := p.Shape(), (ops.Shape{-1, -1, -1, 8}); p.Err() != nil || !got.Equal(want) {
			t.Errorf("stride %d: shape %v (%v), want %v", k, got, p.Err(), want)
		}
	}
	big := Apply(NewConv2D(1, 400, WithName("too_big")), Input([]int{None, None, 1}))
	if err := big.Err(); err == nil || !strings.Contains(err.Error(), "too_big") {
		t.Errorf("a 400x400 window: err = %v, want an error naming the layer", err)
	}
}
