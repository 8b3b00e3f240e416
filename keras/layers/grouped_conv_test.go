package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// TestConvGroups: a grouped Conv2D/Conv1D has a kernel of in/groups input
// channels, reports its groups, computes what the matching ungrouped
// convolutions compute on each group's channels, and refuses groups that
// do not divide the channels or the filters.
func TestConvGroups(t *testing.T) {
	layertest.Run(t, layers.NewConv2D(6, 3, layers.WithGroups(3), layers.WithPadding("same")), ops.Shape{2, 5, 5, 6}, ops.Shape{2, 5, 5, 6}, 3*3*2*6+6)
	layertest.Run(t, layers.NewConv2D(8, 3, layers.WithGroups(4)), ops.Shape{1, 4, 4, 4}, ops.Shape{1, 2, 2, 8}, 3*3*1*8+8)
	layertest.Run(t, layers.NewConv1D(4, 2, layers.WithGroups(2), layers.WithPadding("causal")), ops.Shape{2, 6, 4}, ops.Shape{2, 6, 4}, 2*2*4+4)
	if g := layers.NewConv2D(6, 3, layers.WithGroups(3)).GetConfig()["groups"]; g != 3 {
		t.Errorf("groups in the config: %v", g)
	}
	if g := layers.NewConv1D(6, 3).GetConfig()["groups"]; g != 1 {
		t.Errorf("default groups: %v", g)
	}

	// Two groups of a Conv2D are the two convolutions of their halves.
	x := seq(1*4*4*4, 0.1, -0.7)
	in := ops.Value{Shape: ops.Shape{1, 4, 4, 4}, Data: x}
	g := layers.NewConv2D(4, 3, layers.WithGroups(2), layers.WithUseBias(false))
	yg := layertest.Forward(t, g, false, in)
	k := g.Kernel.Data(0) // (3, 3, 2, 4)
	for half := range 2 {
		xh := make([]float32, 0, 32)
		for i := 0; i < len(x); i += 4 {
			xh = append(xh, x[i+2*half], x[i+2*half+1])
		}
		one := layers.NewConv2D(2, 3, layers.WithUseBias(false))
		if _, err := layers.OutputShape(one, []ops.Shape{{-1, 4, 4, 2}}); err != nil {
			t.Fatal(err)
		}
		kh := make([]float32, 0, 36)
		for i := 0; i < len(k); i += 4 {
			kh = append(kh, k[i+2*half], k[i+2*half+1])
		}
		if err := one.Kernel.Assign(kh); err != nil {
			t.Fatal(err)
		}
		y := layertest.Forward(t, one, false, ops.Value{Shape: ops.Shape{1, 4, 4, 2}, Data: xh})
		for p := range 4 {
			for o := range 2 {
				if d := yg.Data[p*4+2*half+o] - y.Data[p*2+o]; d > 1e-5 || d < -1e-5 {
					t.Fatalf("group %d, pixel %d, filter %d: %v, its own convolution %v", half, p, o, yg.Data[p*4+2*half+o], y.Data[p*2+o])
				}
			}
		}
	}

	wantErr(t, layers.NewConv2D(6, 3, layers.WithGroups(4)).Err(), "Conv2D", "groups 4 must divide filters 6")
	wantErr(t, layers.NewConv1D(6, 3, layers.WithGroups(0)).Err(), "Conv1D", "groups must be positive")
	if _, err := layers.OutputShape(layers.NewConv2D(6, 3, layers.WithGroups(3)), []ops.Shape{{-1, 5, 5, 4}}); err == nil {
		t.Error("groups 3 on 4 channels: no error")
	}
}
