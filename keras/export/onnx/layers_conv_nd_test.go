package onnx

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestConv1DGraph: a Conv1D stack transposes once to (batch, channels,
// steps) at its input and once back at the output; causal padding pads
// the dilated kernel's reach less one before the steps; the kernel (k,
// in/groups, filters) is ONNX's (filters, in/groups, k).
func TestConv1DGraph(t *testing.T) {
	x := layers.Input([]int{9, 4})
	causal := layers.NewConv1D(6, 3, layers.WithPadding("causal"), layers.WithDilationRate(2))
	grouped := layers.NewConv1D(4, 2, layers.WithGroups(2), layers.WithPadding("same"), layers.WithStrides(2))
	h := layers.Apply(grouped, layers.Apply(causal, x))
	h = layers.Apply(layers.NewMaxPooling1D(layers.WithPoolSize(2), layers.WithPadding("same")), h)
	y := layers.Apply(layers.NewAveragePooling1D(layers.WithPoolSize(2), layers.WithStrides(1)), h)
	d := export(t, ins(x), ins(y))
	want := []string{"Transpose", "Conv", "Conv", "MaxPool", "AveragePool", "Transpose"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	if p := d.nodes[0].ints["perm"]; !slices.Equal(p, []int64{0, 2, 1}) {
		t.Errorf("input transpose perm %v", p)
	}
	if p := d.nodes[5].ints["perm"]; !slices.Equal(p, []int64{0, 2, 1}) {
		t.Errorf("output transpose perm %v", p)
	}
	c := d.nodes[1]
	if !slices.Equal(c.ints["pads"], []int64{4, 0}) || !slices.Equal(c.ints["dilations"], []int64{2}) || !slices.Equal(c.ints["kernel_shape"], []int64{3}) {
		t.Errorf("causal Conv attributes %v", c.ints)
	}
	w := d.inits[c.inputs[1]]
	k := causal.Kernel.Numpy()
	if !slices.Equal(w.dims, []int64{6, 4, 3}) {
		t.Fatalf("kernel dims %v", w.dims)
	}
	for _, idx := range [][3]int{{0, 0, 0}, {5, 3, 2}, {2, 1, 1}} {
		o, i, s := idx[0], idx[1], idx[2]
		if got, want := w.float((o*4+i)*3+s), k[(s*4+i)*6+o]; got != want {
			t.Errorf("W[%d][%d][%d] = %v, Keras kernel[%d][%d][%d] = %v", o, i, s, got, s, i, o, want)
		}
	}
	// 9 steps, stride 2, kernel 2, "same": 5 out, 1 step of padding after.
	g := d.nodes[2]
	if g.ints["group"][0] != 2 || !slices.Equal(g.ints["pads"], []int64{0, 1}) || !slices.Equal(d.inits[g.inputs[1]].dims, []int64{4, 3, 2}) {
		t.Errorf("grouped Conv %v, kernel %v", g.ints, d.inits[g.inputs[1]].dims)
	}
	if p := d.nodes[3].ints["pads"]; !slices.Equal(p, []int64{0, 1}) {
		t.Errorf("MaxPool pads %v", p)
	}
	if out := d.outputs[0]; !slices.Equal(out.dims[1:], []int64{2, 4}) { // 9 -> 9 -> 5 -> 3 -> 2 steps
		t.Errorf("output %+v", out)
	}
}

// TestConv3DGraph: a volume is transposed to NCDHW once; the kernel
// (kd, kh, kw, in, filters) is ONNX's (filters, in, kd, kh, kw); the 3-D
// poolings pad per axis; the global pooling flattens to (batch, channels).
func TestConv3DGraph(t *testing.T) {
	x := layers.Input([]int{4, 5, 3, 2})
	conv := layers.NewConv3D(3, 0, layers.WithKernelSize(2, 3, 1), layers.WithPadding("same"))
	h := layers.Apply(conv, x)
	h = layers.Apply(layers.NewMaxPooling3D(layers.WithPoolSize(2), layers.WithPadding("same")), h)
	h = layers.Apply(layers.NewAveragePooling3D(layers.WithPoolSize(1, 2, 1)), h)
	y := layers.Apply(layers.NewGlobalAveragePooling3D(), h)
	d := export(t, ins(x), ins(y))
	want := []string{"Transpose", "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "Flatten"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	if p := d.nodes[0].ints["perm"]; !slices.Equal(p, []int64{0, 4, 1, 2, 3}) {
		t.Errorf("input transpose perm %v", p)
	}
	c := d.nodes[1]
	// "same" of kernel (2, 3, 1) at stride 1: (0, 1, 0) before, (1, 1, 0) after.
	if !slices.Equal(c.ints["pads"], []int64{0, 1, 0, 1, 1, 0}) || !slices.Equal(c.ints["kernel_shape"], []int64{2, 3, 1}) {
		t.Errorf("Conv attributes %v", c.ints)
	}
	w := d.inits[c.inputs[1]]
	k := conv.Kernel.Numpy()
	if !slices.Equal(w.dims, []int64{3, 2, 2, 3, 1}) {
		t.Fatalf("kernel dims %v", w.dims)
	}
	for _, idx := range [][5]int{{0, 0, 0, 0, 0}, {2, 1, 1, 2, 0}, {1, 0, 1, 1, 0}} {
		o, i, z, yy, xx := idx[0], idx[1], idx[2], idx[3], idx[4]
		if got, want := w.float((((o*2+i)*2+z)*3+yy)*1+xx), k[(((z*3+yy)*1+xx)*2+i)*3+o]; got != want {
			t.Errorf("W%v = %v, Keras kernel = %v", idx, got, want)
		}
	}
	// 4x5x3 pooled by 2 "same": 2x3x2, one pixel after on height and width.
	if p := d.nodes[2].ints["pads"]; !slices.Equal(p, []int64{0, 0, 0, 0, 1, 1}) {
		t.Errorf("MaxPool pads %v", p)
	}
	if p := d.nodes[3].ints["strides"]; !slices.Equal(p, []int64{1, 2, 1}) {
		t.Errorf("AveragePool strides %v (Keras' default: the pool size)", p)
	}
}

// TestConvNDRefusals: the settings the 1-D and 3-D converters cannot
// write are refused by name; inputs of the wrong rank are errors.
func TestConvNDRefusals(t *testing.T) {
	for _, c := range []struct {
		class       string
		shape       []int
		cfg         map[string]any
		unsupported bool
		msg         string
	}{
		{"Conv1D", []int{6, 2}, map[string]any{"filters": 2, "kernel_size": []any{3}, "data_format": "channels_first"}, true, "channels_first"},
		{"Conv3D", []int{4, 4, 4, 2}, map[string]any{"filters": 2, "kernel_size": []any{3, 3, 3}, "padding": "causal"}, true, `padding "causal"`},
		{"MaxPooling1D", []int{6, 2}, map[string]any{"pool_size": []any{2}, "padding": "causal"}, true, `padding "causal"`},
		{"AveragePooling3D", []int{4, 4, 4, 2}, map[string]any{"pool_size": []any{2, 2, 2}, "data_format": "channels_first"}, true, "channels_first"},
		{"GlobalMaxPooling3D", []int{4, 4, 4, 2}, map[string]any{"data_format": "channels_first"}, true, "channels_first"},
		{"Conv1D", []int{4, 4, 2}, map[string]any{"filters": 2, "kernel_size": []any{3}}, false, "rank-3"},
		{"Conv3D", []int{4, 4, 2}, map[string]any{"filters": 2, "kernel_size": []any{3, 3, 3}}, false, "rank-5"},
		{"Conv1D", []int{6, 2}, map[string]any{"filters": 2, "kernel_size": []any{3, 3}}, false, "want 1 integers"},
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
