package onnx

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestMultiHeadAttentionGraph: the query, key and value projections are
// MatMuls by the kernels (features, heads*dim) in Keras' memory order,
// split into heads and transposed to (batch, heads, steps, dim), the key
// to (batch, heads, dim, steps); the query is scaled by 1/sqrt(key_dim)
// before q·kᵀ; the softmax runs over the key's steps; the output kernel
// is (heads*value_dim, features).
func TestMultiHeadAttentionGraph(t *testing.T) {
	q := layers.Input([]int{5, 3})
	v := layers.Input([]int{4, 6})
	mha := layers.NewMultiHeadAttention(2, 3, layers.WithValueDim(4))
	y := layers.Apply(mha, q, v)
	d := export(t, ins(q, v), ins(y))
	want := []string{"MatMul", "Add", "Reshape", "MatMul", "Add", "Reshape", "MatMul", "Add", "Reshape",
		"Transpose", "Mul", "Transpose", "MatMul", "Softmax", "Transpose", "MatMul", "Transpose", "Reshape", "MatMul", "Add"}
	if !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	qk := d.inits[d.nodes[0].inputs[1]]
	if !slices.Equal(qk.dims, []int64{3, 6}) || qk.float(1*6+4) != mha.QueryKernel.Numpy()[1*6+4] {
		t.Errorf("query kernel %v", qk.dims)
	}
	if vk := d.inits[d.nodes[6].inputs[1]]; !slices.Equal(vk.dims, []int64{6, 8}) || d.nodes[6].inputs[0] != d.inputs[1].name {
		t.Errorf("value kernel %v reading %q (the key is the value)", vk.dims, d.nodes[6].inputs[0])
	}
	if d.nodes[3].inputs[0] != d.inputs[1].name {
		t.Errorf("the key projection reads %q, want the value", d.nodes[3].inputs[0])
	}
	if h := d.inits[d.nodes[2].inputs[1]]; h.dims[0] != 4 {
		t.Errorf("heads reshape %v", h.dims)
	}
	if p := d.nodes[9].ints["perm"]; !slices.Equal(p, []int64{0, 2, 1, 3}) {
		t.Errorf("query transpose %v", p)
	}
	if p := d.nodes[11].ints["perm"]; !slices.Equal(p, []int64{0, 2, 3, 1}) {
		t.Errorf("key transpose %v", p)
	}
	if s := d.inits[d.nodes[10].inputs[1]]; s.float(0) != float32(1/math.Sqrt(3)) {
		t.Errorf("query scale %v", s.float(0))
	}
	if d.nodes[13].ints["axis"][0] != -1 {
		t.Errorf("softmax axis %v", d.nodes[13].ints["axis"])
	}
	if ok := d.inits[d.nodes[18].inputs[1]]; !slices.Equal(ok.dims, []int64{8, 3}) {
		t.Errorf("output kernel %v", ok.dims)
	}
	if out := d.outputs[0]; !slices.Equal(out.dims[1:], []int64{5, 3}) {
		t.Errorf("output %+v", out)
	}
}

// TestMultiHeadAttentionMasks: the causal mask is a lower-triangular
// constant (1, 1, Tq, Tv); with the value's timestep mask the logits are
// l*m - 1e9*(1-m) and the probabilities are multiplied by m.
func TestMultiHeadAttentionMasks(t *testing.T) {
	ids := layers.Input([]int{4})
	e := layers.Apply(layers.NewEmbedding(9, 4, layers.WithMaskZero(true)), ids)
	x := layers.Input([]int{4, 4})
	mha := layers.NewMultiHeadAttention(1, 2)
	mha.UseCausalMask = true
	y := layers.Apply(mha, x, e)
	d := export(t, ins(ids, x), ins(y))
	var causal decodedTensor
	for name, in := range d.inits {
		if strings.HasSuffix(name, "causal_mask") {
			causal = in
		}
	}
	if !slices.Equal(causal.dims, []int64{1, 1, 4, 4}) {
		t.Fatalf("causal mask %v (initializers %v)", causal.dims, d.initOrder)
	}
	for i := range 4 {
		for j := range 4 {
			if want := map[bool]float32{true: 1, false: 0}[j <= i]; causal.float(i*4+j) != want {
				t.Errorf("causal[%d][%d] = %v", i, j, causal.float(i*4+j))
			}
		}
	}
	if d.count("Unsqueeze") != 1 || d.count("Softmax") != 1 || d.count("Sub") != 1 {
		t.Errorf("masked softmax: ops %v", d.ops())
	}
	sm := nodeOf(t, d, "Softmax")
	after := slices.IndexFunc(d.nodes, func(n decodedNode) bool { return n.op == "Mul" && n.inputs[0] == sm.outputs[0] })
	if after < 0 {
		t.Errorf("the softmax is not multiplied by the mask: ops %v", d.ops())
	}
}

// TestMultiHeadAttentionRefusals: inputs other than sequences, an
// output_shape of several axes, and a causal mask of unknown length are
// refused by name.
func TestMultiHeadAttentionRefusals(t *testing.T) {
	img := layers.Input([]int{3, 3, 2})
	causal := layers.NewMultiHeadAttention(1, 2)
	causal.UseCausalMask = true
	seq := layers.Input([]int{layers.None, 2})
	for _, c := range []struct {
		in  *layers.KerasTensor
		l   *layers.MultiHeadAttention
		msg string
	}{
		{img, layers.NewMultiHeadAttention(1, 2, layers.WithAttentionAxes(1, 2)), "rank 3"},
		{layers.Input([]int{4, 2}), layers.NewMultiHeadAttention(1, 2, layers.WithOutputShape(2, 3)), "output_shape [2 3]"},
		{seq, causal, "unknown length"},
	} {
		y := layers.Apply(c.l, c.in, c.in)
		_, err := Marshal(graphOf(t, ins(c.in), ins(y)))
		var le *LayerError
		if !errors.As(err, &le) || le.Class != "MultiHeadAttention" || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v; want an unsupported MultiHeadAttention saying %q", c.l.Name(), err, c.msg)
		}
	}
}
