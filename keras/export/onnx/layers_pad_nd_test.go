package onnx

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

func int64sOf(t decodedTensor) []int64 {
	out := make([]int64, len(t.raw)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.raw[8*i:]))
	}
	return out
}

// TestSequenceEdgeLayers: ZeroPadding1D, the depthwise and separable
// Conv1D, UpSampling1D and Cropping1D on the channels-first sequence:
// pads and slices on axis 2, the depthwise kernel (k, in, mult) as
// (in*mult, 1, k) in groups of one channel, the crop's end counted from
// the end.
func TestSequenceEdgeLayers(t *testing.T) {
	x := layers.Input([]int{8, 3})
	dw := layers.NewDepthwiseConv1D(3, layers.WithDepthMultiplier(2))
	h := layers.Apply(dw, layers.Apply(layers.NewZeroPadding1D(1, 2), x))
	h = layers.Apply(layers.NewSeparableConv1D(4, 2), h)
	h = layers.Apply(layers.NewUpSampling1D(3), h)
	y := layers.Apply(layers.NewCropping1D(2, 1), h)
	d := export(t, ins(x), ins(y))
	want := []string{"Transpose", "Pad", "Conv", "Conv", "Conv", "Resize", "Slice", "Transpose"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	if p := int64sOf(d.inits[d.nodes[1].inputs[1]]); !slices.Equal(p, []int64{0, 0, 1, 0, 0, 2}) {
		t.Errorf("pads %v", p)
	}
	c := d.nodes[2]
	w := d.inits[c.inputs[1]]
	k := dw.DepthwiseKernel.Numpy()
	if c.ints["group"][0] != 3 || !slices.Equal(w.dims, []int64{6, 1, 3}) {
		t.Fatalf("depthwise Conv group %v, kernel %v", c.ints["group"], w.dims)
	}
	for ch := range 3 {
		for m := range 2 {
			if got, want := w.float((ch*2+m)*3+1), k[(1*3+ch)*2+m]; got != want {
				t.Errorf("W[%d][0][1] = %v, Keras kernel[1][%d][%d] = %v", ch*2+m, got, ch, m, want)
			}
		}
	}
	if len(d.nodes[3].inputs) != 2 || d.nodes[3].ints["group"][0] != 6 || !slices.Equal(d.inits[d.nodes[4].inputs[1]].dims, []int64{4, 6, 1}) {
		t.Errorf("separable: depthwise %v, pointwise kernel %v", d.nodes[3].ints, d.inits[d.nodes[4].inputs[1]].dims)
	}
	if s := d.inits[d.nodes[5].inputs[2]]; s.float(2) != 3 || s.float(1) != 1 {
		t.Errorf("Resize scales %v", s.dims)
	}
	sl := d.nodes[6]
	if st, en, ax := int64sOf(d.inits[sl.inputs[1]]), int64sOf(d.inits[sl.inputs[2]]), int64sOf(d.inits[sl.inputs[3]]); !slices.Equal(st, []int64{2}) || !slices.Equal(en, []int64{-1}) || !slices.Equal(ax, []int64{2}) {
		t.Errorf("Slice starts %v, ends %v, axes %v", st, en, ax)
	}
}

// TestVolumeEdgeLayers: ZeroPadding3D's pads, Cropping3D's slice (an
// axis cropped by nothing at the end runs to the end), UpSampling3D's
// scales, on the channels-first volume.
func TestVolumeEdgeLayers(t *testing.T) {
	x := layers.Input([]int{3, 4, 5, 2})
	h := layers.Apply(layers.NewZeroPadding3D([3][2]int{{1, 0}, {0, 2}, {1, 1}}), x)
	h = layers.Apply(layers.NewUpSampling3D(1, 2, 3), h)
	y := layers.Apply(layers.NewCropping3D([3][2]int{{0, 1}, {1, 1}, {2, 0}}), h)
	d := export(t, ins(x), ins(y))
	if want := []string{"Transpose", "Pad", "Resize", "Slice", "Transpose"}; !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	if p := int64sOf(d.inits[d.nodes[1].inputs[1]]); !slices.Equal(p, []int64{0, 0, 1, 0, 1, 0, 0, 0, 2, 1}) {
		t.Errorf("pads %v", p)
	}
	if s := d.inits[d.nodes[2].inputs[2]]; s.float(2) != 1 || s.float(3) != 2 || s.float(4) != 3 {
		t.Errorf("Resize scales %v", s.raw)
	}
	sl := d.nodes[3]
	if st, en := int64sOf(d.inits[sl.inputs[1]]), int64sOf(d.inits[sl.inputs[2]]); !slices.Equal(st, []int64{0, 1, 2}) || !slices.Equal(en, []int64{-1, -1, 1<<63 - 1}) {
		t.Errorf("Slice starts %v, ends %v", st, en)
	}
	if out := d.outputs[0]; !slices.Equal(out.dims[1:], []int64{3, 10, 19, 2}) {
		t.Errorf("output %+v", out)
	}
}

// TestEdgeLayerRefusals: channels_first, negative amounts and causal
// depthwise padding are errors naming the layer.
func TestEdgeLayerRefusals(t *testing.T) {
	for _, c := range []struct {
		class       string
		shape       []int
		cfg         map[string]any
		unsupported bool
		msg         string
	}{
		{"ZeroPadding1D", []int{6, 2}, map[string]any{"padding": []any{1, 2}, "data_format": "channels_first"}, true, "channels_first"},
		{"Cropping3D", []int{4, 4, 4, 2}, map[string]any{"cropping": []any{[]any{1, 0}, []any{0, -1}, []any{0, 0}}}, false, "non-negative"},
		{"UpSampling3D", []int{4, 4, 4, 2}, map[string]any{"size": []any{1, 0, 2}}, false, "positive"},
		{"DepthwiseConv1D", []int{6, 2}, map[string]any{"kernel_size": []any{3}, "padding": "causal"}, true, `padding "causal"`},
		{"Cropping1D", []int{4, 4, 2}, map[string]any{"cropping": []any{1, 1}}, false, "rank-3"},
	} {
		x := layers.Input(c.shape)
		l := &stubLayer{Base: layers.NewBase(c.class), class: c.class, cfg: c.cfg}
		y := layers.Apply(l, x)
		_, err := Marshal(graphOf(t, ins(x), ins(y)))
		var le *LayerError
		if !errors.As(err, &le) || le.Class != c.class || errors.Is(err, ErrUnsupported) != c.unsupported || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s %v: error %v; want a LayerError with %q (unsupported %v)", c.class, c.cfg, err, c.msg, c.unsupported)
		}
	}
}
