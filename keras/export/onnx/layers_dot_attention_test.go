package onnx

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestAttentionGraph: dot-product Attention with use_scale is
// MatMul(q, kᵀ) times the learned scale, softmax over the value's steps,
// MatMul by the value; with masks (Embedding mask_zero on query and
// value) the value's mask lowers the scores by 1e9·(1 - m) (Sub) and the
// query's multiplies the output, which carries it on; the causal mask is
// a (1, Tq, Tv) lower-triangular constant.
func TestAttentionGraph(t *testing.T) {
	q := layers.Input([]int{3, 4})
	v := layers.Input([]int{5, 4})
	att := layers.NewAttention(layers.WithUseScale(true))
	d := export(t, ins(q, v), ins(layers.Apply(att, q, v)))
	if want := []string{"Transpose", "MatMul", "Mul", "Softmax", "MatMul"}; !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	if p := d.nodes[0].ints["perm"]; !slices.Equal(p, []int64{0, 2, 1}) {
		t.Errorf("key transpose %v", p)
	}
	if s := d.inits[d.nodes[2].inputs[0]]; s.float(0) != att.Scale.Numpy()[0] {
		t.Errorf("scale %v, layer's %v", s.float(0), att.Scale.Numpy())
	}

	ids := layers.Input([]int{4})
	e := layers.Apply(layers.NewEmbedding(9, 3, layers.WithMaskZero(true)), ids)
	causal := layers.NewAttention()
	causal.UseCausalMask = true
	y := layers.Apply(layers.NewGlobalAveragePooling1D(), layers.Apply(causal, e, e))
	d = export(t, ins(ids), ins(y))
	var cm decodedTensor
	for name, in := range d.inits {
		if strings.HasSuffix(name, "causal_mask") {
			cm = in
		}
	}
	if !slices.Equal(cm.dims, []int64{1, 4, 4}) || cm.float(1) != 0 || cm.float(4) != 1 || cm.float(5) != 1 || cm.float(6) != 0 {
		t.Errorf("causal mask %v %v", cm.dims, cm.raw)
	}
	if d.count("Sub") != 2 || d.count("Softmax") != 1 || d.count("Div") != 1 {
		t.Errorf("masked attention ops %v; want the scores lowered (1 - m, s - ...), the masked mean after", d.ops())
	}
}

// TestAttentionRefusals: attention over other ranks than sequences is
// refused by name.
func TestAttentionRefusals(t *testing.T) {
	q := layers.Input([]int{2, 3, 4})
	y := layers.Apply(layers.NewAttention(), q, q)
	_, err := Marshal(graphOf(t, ins(q), ins(y)))
	var le *LayerError
	if !errors.As(err, &le) || le.Class != "Attention" || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "rank 3") {
		t.Errorf("rank-4 Attention: error %v", err)
	}
}
