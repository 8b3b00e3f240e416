package onnx

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// nodeOf returns the one node of op in d.
func nodeOf(t *testing.T, d *decoded, op string) decodedNode {
	t.Helper()
	i := slices.IndexFunc(d.nodes, func(n decodedNode) bool { return n.op == op })
	if i < 0 || d.count(op) != 1 {
		t.Fatalf("want one %s node, ops %v", op, d.ops())
	}
	return d.nodes[i]
}

// TestLSTMGates: the LSTM node reads the sequence time-major, its
// weights per gate transposed and in ONNX's gate order i, o, f, c (Keras'
// are i, f, c, o), the bias as the input bias (the recurrent one zero),
// Keras' activations by ONNX's names; the last output is Y_h squeezed.
func TestLSTMGates(t *testing.T) {
	const u, feat = 3, 2
	x := layers.Input([]int{5, feat})
	lstm := layers.NewLSTM(u, layers.WithActivation("softsign"))
	y := layers.Apply(lstm, x)
	d := export(t, ins(x), ins(y))
	if want := []string{"Transpose", "LSTM", "Squeeze"}; !slices.Equal(d.ops(), want) {
		t.Fatalf("ops %v, want %v", d.ops(), want)
	}
	if p := d.nodes[0].ints["perm"]; !slices.Equal(p, []int64{1, 0, 2}) {
		t.Errorf("time-major transpose perm %v", p)
	}
	n := nodeOf(t, d, "LSTM")
	if n.ints["hidden_size"][0] != u || n.strs["direction"] != "forward" || !slices.Equal(n.strings["activations"], []string{"Sigmoid", "Softsign", "Softsign"}) {
		t.Errorf("LSTM attributes %v %v %v", n.ints, n.strs, n.strings)
	}
	if len(n.outputs) != 2 || n.outputs[0] != "" || d.nodes[2].inputs[0] != n.outputs[1] {
		t.Errorf("LSTM outputs %q; want Y left out and Y_h squeezed", n.outputs)
	}
	cell := lstm.Cell
	k, r, b := cell.Kernel.Numpy(), cell.RecurrentKernel.Numpy(), cell.Bias.Numpy()
	w, rw, bw := d.inits[n.inputs[1]], d.inits[n.inputs[2]], d.inits[n.inputs[3]]
	if !slices.Equal(w.dims, []int64{1, 4 * u, feat}) || !slices.Equal(rw.dims, []int64{1, 4 * u, u}) || !slices.Equal(bw.dims, []int64{1, 8 * u}) {
		t.Fatalf("W %v, R %v, B %v", w.dims, rw.dims, bw.dims)
	}
	for og, kg := range []int{0, 3, 1, 2} { // ONNX i, o, f, c from Keras' i, f, c, o
		for j := range u {
			for f := range feat {
				if got, want := w.float((og*u+j)*feat+f), k[f*4*u+kg*u+j]; got != want {
					t.Errorf("W[%d][%d] = %v, Keras kernel[%d][%d] = %v", og*u+j, f, got, f, kg*u+j, want)
				}
			}
			if got, want := rw.float((og*u+j)*u+1), r[1*4*u+kg*u+j]; got != want {
				t.Errorf("R[%d][1] = %v, Keras recurrent_kernel[1][%d] = %v", og*u+j, got, kg*u+j, want)
			}
			if got, want := bw.float(og*u+j), b[kg*u+j]; got != want || bw.float(4*u+og*u+j) != 0 {
				t.Errorf("B[%d] = %v, Keras bias[%d] = %v; recurrent bias %v", og*u+j, got, kg*u+j, want, bw.float(4*u+og*u+j))
			}
		}
	}
}

// TestGRUResetAfter: reset_after (Keras' default, bias (2, 3u)) is
// linear_before_reset=1 with the second bias row as the recurrent bias;
// without it the one bias is the input bias. GRU's gates z, r, h are in
// the same order in both.
func TestGRUResetAfter(t *testing.T) {
	const u = 2
	x := layers.Input([]int{4, 3})
	after := layers.NewGRU(u, layers.WithReturnSequences(true))
	before := layers.NewGRU(u, layers.WithResetAfter(false))
	y := layers.Apply(before, layers.Apply(after, x))
	d := export(t, ins(x), ins(y))
	var grus []decodedNode
	for _, n := range d.nodes {
		if n.op == "GRU" {
			grus = append(grus, n)
		}
	}
	if len(grus) != 2 {
		t.Fatalf("ops %v", d.ops())
	}
	if grus[0].ints["linear_before_reset"][0] != 1 || grus[1].ints["linear_before_reset"] != nil {
		t.Errorf("linear_before_reset %v and %v", grus[0].ints["linear_before_reset"], grus[1].ints["linear_before_reset"])
	}
	// return_sequences: Y (steps, 1, batch, u) squeezed and made batch-major.
	if grus[0].outputs[0] == "" || len(grus[0].outputs) != 1 {
		t.Errorf("first GRU outputs %q, want Y", grus[0].outputs)
	}
	b0, b1 := after.Cell.Bias.Numpy(), before.Cell.Bias.Numpy()
	bw0, bw1 := d.inits[grus[0].inputs[3]], d.inits[grus[1].inputs[3]]
	for i := range 3 * u {
		if bw0.float(i) != b0[i] || bw0.float(3*u+i) != b0[3*u+i] {
			t.Errorf("reset_after B[%d], B[%d] = %v, %v; Keras bias[0][%d], bias[1][%d] = %v, %v", i, 3*u+i, bw0.float(i), bw0.float(3*u+i), i, i, b0[i], b0[3*u+i])
		}
		if bw1.float(i) != b1[i] || bw1.float(3*u+i) != 0 {
			t.Errorf("reset_after=false B[%d] = %v, Keras bias[%d] = %v; recurrent %v", i, bw1.float(i), i, b1[i], bw1.float(3*u+i))
		}
	}
	if w := d.inits[grus[0].inputs[1]]; w.float(1*3+2) != after.Cell.Kernel.Numpy()[2*3*u+1] {
		t.Errorf("W[1][2] = %v, Keras kernel[2][1] = %v", w.float(1*3+2), after.Cell.Kernel.Numpy()[2*3*u+1])
	}
}

// TestGoBackwardsAndBidirectional: go_backwards is direction reverse,
// whose time-ordered Y is reversed back into the order Keras read the
// steps in (a Slice of step -1); Bidirectional with Keras' default
// backward layer is one bidirectional node, its two directions' W
// stacked, split and concatenated forward first.
func TestGoBackwardsAndBidirectional(t *testing.T) {
	x := layers.Input([]int{6, 2})
	h := layers.Apply(layers.NewSimpleRNN(3, layers.WithGoBackwards(true), layers.WithReturnSequences(true), layers.WithActivation("relu")), x)
	bi := layers.NewBidirectional(layers.NewLSTM(2, layers.WithReturnSequences(true)))
	y := layers.Apply(bi, h)
	d := export(t, ins(x), ins(y))
	rnn := nodeOf(t, d, "RNN")
	if rnn.strs["direction"] != "reverse" || !slices.Equal(rnn.strings["activations"], []string{"Relu"}) {
		t.Errorf("RNN attributes %v %v", rnn.strs, rnn.strings)
	}
	s := nodeOf(t, d, "Slice")
	if st := d.inits[s.inputs[4]]; st.dims[0] != 1 || int64(st.raw[0]) != 0xff {
		t.Errorf("the reversing Slice's steps %v", st.raw)
	}
	l := nodeOf(t, d, "LSTM")
	if l.strs["direction"] != "bidirectional" || len(l.strings["activations"]) != 6 || !slices.Equal(d.inits[l.inputs[1]].dims, []int64{2, 8, 3}) {
		t.Errorf("bidirectional LSTM %v %v, W %v", l.strs, l.strings, d.inits[l.inputs[1]].dims)
	}
	fw, bw := bi.Forward.Weights()[0].Numpy(), bi.Backward.Weights()[0].Numpy()
	if w := d.inits[l.inputs[1]]; w.float(0) != fw[0] || w.float(8*3) != bw[0] {
		t.Errorf("W[0][0][0] = %v, W[1][0][0] = %v; forward kernel %v, backward %v", w.float(0), w.float(8*3), fw[0], bw[0])
	}
	sp := nodeOf(t, d, "Split")
	cat := nodeOf(t, d, "Concat")
	if sp.ints["axis"][0] != 1 || len(sp.outputs) != 2 || cat.ints["axis"][0] != -1 {
		t.Errorf("Split %v, Concat %v", sp.ints, cat.ints)
	}
	if out := d.outputs[0]; !slices.Equal(out.dims[1:], []int64{6, 4}) {
		t.Errorf("output %+v", out)
	}
}

// TestRecurrentRefusals: what ONNX's recurrent nodes cannot express is
// refused by name: a timestep mask over steps of unknown number,
// return_state, stateful, activations
// outside ONNX's list, a call with initial states.
func TestRecurrentRefusals(t *testing.T) {
	check := func(what string, err error, class, msg string) {
		t.Helper()
		var le *LayerError
		if !errors.As(err, &le) || le.Class != class || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v; want an unsupported %s saying %q", what, err, class, msg)
		}
	}
	// A mask over steps of unknown number cannot be unrolled (gokeras'
	// layers need the steps known; a Graph may still say -1).
	ids := layers.Input([]int{5})
	masked := layers.Apply(layers.NewLSTM(2), layers.Apply(layers.NewEmbedding(9, 3, layers.WithMaskZero(true)), ids))
	g := graphOf(t, ins(ids), ins(masked))
	for i := range g.Tensors {
		if len(g.Tensors[i].Shape) >= 2 {
			g.Tensors[i].Shape[1] = -1
		}
	}
	_, err := Marshal(g)
	check("masked LSTM of unknown steps", err, "LSTM", "unknown length")

	for _, c := range []struct {
		l   layers.Layer
		msg string
	}{
		{layers.NewGRU(2, layers.WithStateful(true)), "stateful"},
		{layers.NewSimpleRNN(2, layers.WithActivation("linear")), `activation "linear"`},
		{layers.NewLSTM(2, layers.WithRecurrentActivation("relu6")), `activation "relu6"`},
		{layers.NewBidirectional(layers.NewGRU(2, layers.WithActivation("gelu"))), `activation "gelu"`},
	} {
		x := layers.Input([]int{4, 3})
		y := layers.Apply(c.l, x)
		_, err := Marshal(graphOf(t, ins(x), ins(y)))
		check(c.l.Name(), err, c.l.ClassName(), c.msg)
	}
	// return_state, and a call with more inputs, given as configs.
	x := layers.Input([]int{4, 3})
	for _, c := range []struct {
		cfg map[string]any
		n   int
		msg string
	}{
		{map[string]any{"units": 2, "return_state": true}, 1, "return_state"},
		{map[string]any{"units": 2}, 2, "2 inputs"},
	} {
		l := &stubLayer{Base: layers.NewBase("GRU"), class: "GRU", cfg: c.cfg}
		args := []*layers.KerasTensor{x, x}[:c.n]
		y := layers.Apply(l, args...)
		_, err := Marshal(graphOf(t, ins(x), ins(y)))
		check(c.msg, err, "GRU", c.msg)
	}
}

// TestHardSigmoidRecurrentActivation: Keras' hard_sigmoid, gokeras'
// clip(x/6 + 1/2, 0, 1), is ONNX's HardSigmoid with alpha 1/6 and beta
// 1/2, one of each per HardSigmoid in the activations, in order (the
// bidirectional node has two).
func TestHardSigmoidRecurrentActivation(t *testing.T) {
	x := layers.Input([]int{4, 3})
	y := layers.Apply(layers.NewBidirectional(layers.NewLSTM(2, layers.WithRecurrentActivation("hard_sigmoid"))), x)
	d := export(t, ins(x), ins(y))
	n := nodeOf(t, d, "LSTM")
	if want := []string{"HardSigmoid", "Tanh", "Tanh", "HardSigmoid", "Tanh", "Tanh"}; !slices.Equal(n.strings["activations"], want) {
		t.Errorf("activations %v, want %v", n.strings["activations"], want)
	}
	if a, b := n.floatLists["activation_alpha"], n.floatLists["activation_beta"]; !slices.Equal(a, []float32{1.0 / 6, 1.0 / 6}) || !slices.Equal(b, []float32{0.5, 0.5}) {
		t.Errorf("activation_alpha %v, activation_beta %v; want 1/6 and 1/2 twice", a, b)
	}
	plain := export(t, ins(x), ins(layers.Apply(layers.NewGRU(2), x)))
	if g := nodeOf(t, plain, "GRU"); g.floatLists["activation_alpha"] != nil {
		t.Errorf("a GRU without HardSigmoid has activation_alpha %v", g.floatLists["activation_alpha"])
	}
}
