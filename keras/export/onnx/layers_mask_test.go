package onnx

import (
	"slices"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestMaskedRecurrentUnrolled: an LSTM reading Masking's mask is one
// LSTM node per step (4 here), the first from zero states (X, W, R, B
// only), each later one from the blended states of the step before
// (initial_h, initial_c after an empty sequence_lens), all sharing one
// W, R and B; every state blended as s + m*(new - s) (Add, Mul, Sub);
// the sequence and the mask split into steps once. Masking is x times
// any(x != mask_value) over the features, and the LSTM's output carries
// the mask on to GlobalAveragePooling1D's masked mean.
func TestMaskedRecurrentUnrolled(t *testing.T) {
	const steps = 4
	x := layers.Input([]int{steps, 3})
	m := layers.Apply(layers.NewMasking(layers.WithMaskValue(0.5)), x)
	h := layers.Apply(layers.NewLSTM(2, layers.WithReturnSequences(true)), m)
	y := layers.Apply(layers.NewGlobalAveragePooling1D(), h)
	d := export(t, ins(x), ins(y))
	var lstms []decodedNode
	for _, n := range d.nodes {
		if n.op == "LSTM" {
			lstms = append(lstms, n)
		}
	}
	if len(lstms) != steps {
		t.Fatalf("%d LSTM nodes, want one per step (%d): %v", len(lstms), steps, d.ops())
	}
	for i, n := range lstms {
		wantIns := 7
		if i == 0 {
			wantIns = 4
		}
		if len(n.inputs) != wantIns || (i > 0 && n.inputs[4] != "") {
			t.Errorf("step %d LSTM inputs %q; want %d (no sequence_lens)", i, n.inputs, wantIns)
		}
		if !slices.Equal(n.inputs[1:4], lstms[0].inputs[1:4]) {
			t.Errorf("step %d reads W, R, B %v, step 0 %v", i, n.inputs[1:4], lstms[0].inputs[1:4])
		}
		if len(n.outputs) != 3 || n.outputs[0] != "" || n.ints["hidden_size"][0] != 2 || n.strs["direction"] != "forward" {
			t.Errorf("step %d LSTM outputs %q, attributes %v %v", i, n.outputs, n.ints, n.strs)
		}
		// The blended states feed the next step: Add(s, Mul(m, Sub(new, s))).
		if i > 0 {
			for j, st := range n.inputs[5:] {
				p := d.producerOf(st)
				if p.op != "Add" && !(i == 1 && p.op == "Mul") {
					t.Errorf("step %d initial state %d comes from %s, want the blend", i, j, p.op)
				}
			}
		}
	}
	if got := d.count("Split"); got != 2 {
		t.Errorf("%d Splits, want 2 (the steps of the sequence and of the mask)", got)
	}
	if w := d.inits[lstms[0].inputs[1]]; !slices.Equal(w.dims, []int64{1, 8, 3}) {
		t.Errorf("W %v", w.dims)
	}
	rm := nodeOf(t, d, "ReduceMax")
	if !slices.Equal(rm.ints["axes"], []int64{2}) || rm.ints["keepdims"][0] != 1 {
		t.Errorf("Masking's any over the features: ReduceMax %v", rm.ints)
	}
	if nodeOf(t, d, "Equal"); d.count("Div") != 1 || d.count("ReduceMean") != 0 {
		t.Errorf("GlobalAveragePooling1D of the masked LSTM is not the masked mean: %v", d.ops())
	}
	if out := d.outputs[0]; !slices.Equal(out.dims[1:], []int64{2}) {
		t.Errorf("output %+v", out)
	}
}

// TestMaskedBidirectionalAndLast: Bidirectional over a masked input
// unrolls both directions (a node per step each), the backward one from
// the last step; the sequence it returns carries the mask to the next
// recurrent layer; an unmasked layer is still one node.
func TestMaskedBidirectionalAndLast(t *testing.T) {
	ids := layers.Input([]int{3})
	e := layers.Apply(layers.NewEmbedding(9, 2, layers.WithMaskZero(true)), ids)
	bi := layers.Apply(layers.NewBidirectional(layers.NewGRU(2, layers.WithReturnSequences(true))), e)
	last := layers.Apply(layers.NewSimpleRNN(2), bi)                                       // reads the mask Bidirectional passes on
	plain := layers.Apply(layers.NewSimpleRNN(2), layers.Apply(layers.NewConv1D(2, 1), e)) // Conv1D drops the mask, as in Keras
	d := export(t, ins(ids), ins(last, plain))
	if n := d.count("GRU"); n != 6 {
		t.Errorf("%d GRU nodes, want 3 steps by 2 directions", n)
	}
	if n := d.count("RNN"); n != 4 {
		t.Errorf("%d RNN nodes, want 3 for the masked SimpleRNN, 1 for the unmasked one (Conv1D's output has no mask)", n)
	}
	// The backward direction's first node reads the last step.
	var grus []decodedNode
	for _, n := range d.nodes {
		if n.op == "GRU" {
			grus = append(grus, n)
		}
	}
	split := nodeOf2(t, d, "Split", grus[0].inputs[0])
	if grus[0].inputs[0] != split.outputs[0] || grus[3].inputs[0] != split.outputs[2] {
		t.Errorf("forward starts at %q, backward at %q; the steps are %q", grus[0].inputs[0], grus[3].inputs[0], split.outputs)
	}
}

// nodeOf2 returns the node of op that writes value out.
func nodeOf2(t *testing.T, d *decoded, op, out string) decodedNode {
	t.Helper()
	for _, n := range d.nodes {
		if n.op == op && slices.Contains(n.outputs, out) {
			return n
		}
	}
	t.Fatalf("no %s node writes %q", op, out)
	return decodedNode{}
}

// TestEmbeddingMaskOfFloatIds: float ids are masked where they are 0
// before they are truncated to rows, as gokeras' mask (ids != 0) reads
// them: the Equal reads the input itself, not its cast.
func TestEmbeddingMaskOfFloatIds(t *testing.T) {
	x := layers.Input([]int{4})
	y := layers.Apply(layers.NewLSTM(2), layers.Apply(layers.NewEmbedding(9, 3, layers.WithMaskZero(true)), x))
	d := export(t, ins(x), ins(y))
	eq := nodeOf(t, d, "Equal")
	if eq.inputs[0] != d.inputs[0].name {
		t.Errorf("the mask compares %q, want the float ids %q", eq.inputs[0], d.inputs[0].name)
	}
}
