package layers_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func randValue(rng *rand.Rand, s ops.Shape) ops.Value {
	d := make([]float32, s.Size())
	for i := range d {
		d[i] = float32(rng.NormFloat64())
	}
	return ops.Value{Shape: s, Data: d}
}

// Shapes, parameter counts (hand-computed from Keras' formulas), configs
// and finite-difference gradients of every recurrent class.
func TestRecurrentLayersConformance(t *testing.T) {
	const u, f, steps = 4, 3, 5
	lstm := 4 * (u*(f+u) + u)
	gruAfter := 3 * (u*(f+u) + 2*u)
	gruBefore := 3 * (u*(f+u) + u)
	simple := u*(f+u) + u
	in := ops.Shape{2, steps, f}
	layertest.Run(t, layers.NewSimpleRNN(u), in, ops.Shape{2, u}, simple)
	layertest.Run(t, layers.NewSimpleRNN(u, layers.WithReturnSequences(true), layers.WithGoBackwards(true)), in, ops.Shape{2, steps, u}, simple)
	layertest.Run(t, layers.NewLSTM(u), in, ops.Shape{2, u}, lstm)
	layertest.Run(t, layers.NewLSTM(u, layers.WithReturnSequences(true), layers.WithGoBackwards(true)), in, ops.Shape{2, steps, u}, lstm)
	layertest.Run(t, layers.NewLSTM(u, layers.WithUseBias(false)), in, ops.Shape{2, u}, lstm-4*u)
	layertest.Run(t, layers.NewLSTM(u, layers.WithInputDropout(0.3), layers.WithRecurrentDropout(0.2)), in, ops.Shape{2, u}, lstm)
	layertest.Run(t, layers.NewGRU(u), in, ops.Shape{2, u}, gruAfter)
	layertest.Run(t, layers.NewGRU(u, layers.WithResetAfter(false), layers.WithReturnSequences(true)), in, ops.Shape{2, steps, u}, gruBefore)
	layertest.Run(t, layers.NewRNN(layers.NewLSTMCell(u)), in, ops.Shape{2, u}, lstm)
	layertest.Run(t, layers.NewRNN(newMinimalCell(u)), in, ops.Shape{2, u}, u*(f+u))
	layertest.Run(t, layers.NewBidirectional(layers.NewLSTM(u)), in, ops.Shape{2, 2 * u}, 2*lstm)
	layertest.Run(t, layers.NewBidirectional(layers.NewGRU(u, layers.WithReturnSequences(true)), layers.WithMergeMode("ave")), in, ops.Shape{2, steps, u}, 2*gruAfter)
	layertest.Run(t, layers.NewTimeDistributed(layers.NewDense(6)), in, ops.Shape{2, steps, 6}, f*6+6)
	layertest.Run(t, layers.NewRepeatVector(3), ops.Shape{2, f}, ops.Shape{2, 3, f}, 0)
	layertest.Run(t, layers.NewMasking(layers.WithMaskValue(0.5)), in, in, 0)
}

// The config keys Keras writes for each class.
func TestRecurrentConfigKeys(t *testing.T) {
	rnn := []string{"return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask"}
	cell := []string{"units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
		"kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "dropout", "recurrent_dropout", "seed"}
	for _, tc := range []struct {
		l    layers.Layer
		keys []string
	}{
		{layers.NewSimpleRNN(2), append(rnn, cell...)},
		{layers.NewLSTM(2), append(append(rnn, cell...), "recurrent_activation", "unit_forget_bias")},
		{layers.NewGRU(2), append(append(rnn, cell...), "recurrent_activation", "reset_after")},
		{layers.NewRNN(layers.NewGRUCell(2)), append(rnn, "cell")},
		{layers.NewBidirectional(layers.NewLSTM(2)), []string{"merge_mode", "layer", "backward_layer"}},
		{layers.NewTimeDistributed(layers.NewDense(2)), []string{"layer"}},
		{layers.NewRepeatVector(2), []string{"n"}},
		{layers.NewMasking(), []string{"mask_value"}},
		{layers.NewEmbedding(5, 2, layers.WithMaskZero(true)), []string{"mask_zero"}},
	} {
		if err := tc.l.Err(); err != nil {
			t.Fatal(err)
		}
		cfg := tc.l.GetConfig()
		for _, k := range tc.keys {
			if _, ok := cfg[k]; !ok {
				t.Errorf("%s: config lacks %q", tc.l.ClassName(), k)
			}
		}
	}
	if c := layers.NewLSTM(2).GetConfig(); c["unit_forget_bias"] != true || c["recurrent_activation"] != "sigmoid" || c["activation"] != "tanh" {
		t.Errorf("LSTM defaults: %v", c)
	}
	if c := layers.NewGRU(2).GetConfig(); c["reset_after"] != true {
		t.Errorf("GRU reset_after default: %v", c["reset_after"])
	}
	if c := layers.NewEmbedding(5, 2, layers.WithMaskZero(true)).GetConfig(); c["mask_zero"] != true {
		t.Errorf("Embedding mask_zero: %v", c["mask_zero"])
	}
}

// Keras' unit_forget_bias: the LSTM bias starts at 0 but 1 on the forget
// gate's units.
func TestLSTMUnitForgetBias(t *testing.T) {
	l := layers.NewLSTM(3)
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 2, 4}}); err != nil {
		t.Fatal(err)
	}
	want := []float32{0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0}
	got := l.Cell.Bias.Numpy()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bias %v, want %v", got, want)
		}
	}
}

// Orthogonal makes orthonormal columns (tall) or rows (wide), times gain.
func TestOrthogonalInitializer(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []ops.Shape{{6, 4}, {4, 6}, {5, 5}, {2, 3, 4}} {
		w := layers.Orthogonal(2).Init(s, rng)
		cols := s[len(s)-1]
		rows := s.Size() / cols
		tall := rows >= cols
		n, m := cols, rows // Gram matrix of columns (tall) or rows (wide)
		if !tall {
			n, m = rows, cols
		}
		at := func(i, k int) float64 { // element k of vector i
			if tall {
				return float64(w[k*cols+i])
			}
			return float64(w[i*cols+k])
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var d float64
				for k := 0; k < m; k++ {
					d += at(i, k) * at(j, k)
				}
				want := 0.0
				if i == j {
					want = 4 // gain²
				}
				if math.Abs(d-want) > 1e-5 {
					t.Fatalf("shape %v: gram[%d][%d] = %v, want %v", s, i, j, d, want)
				}
			}
		}
	}
}

// A masked timestep keeps the previous state and output: a batch padded
// at the end (ids 0 with Embedding mask_zero, zero steps with Masking)
// gives each row what the layer gives on its unpadded prefix alone, read
// forwards or backwards, in every recurrent class.
func TestMaskedPaddingEqualsPrefix(t *testing.T) {
	ids := [][]float32{{3, 1, 4, 1, 5}, {2, 6, 0, 0, 0}, {7, 0, 0, 0, 0}}
	lengths := []int{5, 2, 1}
	mk := []func() layers.Layer{
		func() layers.Layer { return layers.NewLSTM(3) },
		func() layers.Layer { return layers.NewGRU(3, layers.WithGoBackwards(true)) },
		func() layers.Layer { return layers.NewSimpleRNN(3) },
		func() layers.Layer { return layers.NewBidirectional(layers.NewLSTM(2)) },
	}
	for _, newLayer := range mk {
		emb := layers.NewEmbedding(8, 4, layers.WithMaskZero(true))
		rl := newLayer()
		masking := layers.NewMasking()
		if _, err := layers.OutputShape(emb, []ops.Shape{{-1, 5}}); err != nil {
			t.Fatal(err)
		}
		if _, err := layers.OutputShape(rl, []ops.Shape{{-1, 5, 4}}); err != nil {
			t.Fatal(err)
		}
		table := emb.Embeddings.Numpy()
		run := func(rows [][]float32, viaMasking bool) ops.Value {
			b, steps := len(rows), len(rows[0])
			tr := ops.NewTrace(false, 0, 1)
			flat := make([]float32, 0, b*steps)
			for _, r := range rows {
				flat = append(flat, r...)
			}
			x := tr.Constant(ops.Shape{b, steps}, flat)
			var seq ops.Tensor
			if viaMasking {
				// Masking sees the embedded rows with padding zeroed.
				vals := make([]float32, 0, b*steps*4)
				for _, r := range rows {
					for _, id := range r {
						if id == 0 {
							vals = append(vals, 0, 0, 0, 0)
						} else {
							vals = append(vals, table[int(id)*4:int(id)*4+4]...)
						}
					}
				}
				seq = masking.Call([]ops.Tensor{tr.Constant(ops.Shape{b, steps, 4}, vals)}, false)
			} else {
				seq = emb.Call([]ops.Tensor{x}, false)
			}
			if layers.Mask(seq).IsNone() && (viaMasking || steps > 1) && flat[len(flat)-1] == 0 {
				t.Fatalf("no mask on %s's output", map[bool]string{true: "Masking", false: "Embedding"}[viaMasking])
			}
			p, err := engine.Compile(tr, []ops.Tensor{rl.Call([]ops.Tensor{seq}, false)})
			if err != nil {
				t.Fatal(err)
			}
			out, err := p.Run(engine.Single{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return out[0]
		}
		for _, viaMasking := range []bool{false, true} {
			full := run(ids, viaMasking)
			width := full.Shape[1]
			for i, n := range lengths {
				alone := run([][]float32{ids[i][:n]}, viaMasking)
				for j := 0; j < width; j++ {
					if d := math.Abs(float64(full.Data[i*width+j] - alone.Data[j])); d > 1e-6 {
						t.Errorf("%s (masking layer %v): row %d output %d = %v in the padded batch, %v alone", rl.ClassName(), viaMasking, i, j, full.Data[i*width+j], alone.Data[j])
					}
				}
			}
		}
	}
}

// A stateful layer continues where the previous batch ended, until
// ResetStates: two halves of a sequence give the whole sequence's output,
// unrolled and through the fused op.
func TestStatefulLSTM(t *testing.T) {
	for _, mode := range []string{"off", "on"} {
		old := layers.SetFused(mode)
		testStatefulLSTM(t)
		layers.SetFused(old)
	}
}

func testStatefulLSTM(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randValue(rng, ops.Shape{2, 6, 3})
	whole := layers.NewLSTM(4)
	st := layers.NewLSTM(4, layers.WithStateful(true))
	for _, l := range []*layers.LSTM{whole, st} {
		if _, err := layers.OutputShape(l, []ops.Shape{{-1, 6, 3}}); err != nil {
			t.Fatal(err)
		}
	}
	for i, w := range whole.Weights() {
		st.Weights()[i].Assign(w.Numpy())
	}
	half := func(k int) ops.Value {
		d := make([]float32, 0, 2*3*3)
		for b := 0; b < 2; b++ {
			d = append(d, x.Data[(b*6+3*k)*3:(b*6+3*k+3)*3]...)
		}
		return ops.Value{Shape: ops.Shape{2, 3, 3}, Data: d}
	}
	want := layertest.Forward(t, whole, false, x)
	run := func() ops.Value {
		layertest.Forward(t, st, false, half(0))
		return layertest.Forward(t, st, false, half(1))
	}
	got := run()
	for i := range want.Data {
		if math.Abs(float64(got.Data[i]-want.Data[i])) > 1e-6 {
			t.Fatalf("stateful halves give %v, the whole sequence %v", got.Data, want.Data)
		}
	}
	st.ResetStates()
	again := run()
	for i := range want.Data {
		if again.Data[i] != got.Data[i] {
			t.Fatalf("after ResetStates: %v, first run %v", again.Data, got.Data)
		}
	}
	if s := st.States(2); len(s) != 2 || !s[0].Shape().Equal(ops.Shape{2, 4}) {
		t.Errorf("kept states %v", s)
	}
}

// minimalCell is the user's cell of Keras' RNN guide:
// h' = tanh(x·kernel + h·recurrent_kernel).
type minimalCell struct {
	layers.Base
	units int
	k, r  *ops.Variable
}

func newMinimalCell(units int) *minimalCell {
	return &minimalCell{Base: layers.NewBase("MinimalRNNCell"), units: units}
}

func (c *minimalCell) StateSize() []int { return []int{c.units} }

func (c *minimalCell) Build(in []ops.Shape) error {
	c.k = c.AddWeight("kernel", ops.Shape{in[0][1], c.units}, layers.GlorotUniform(), true, nil)
	c.r = c.AddWeight("recurrent_kernel", ops.Shape{c.units, c.units}, layers.Orthogonal(1), true, nil)
	return nil
}

func (c *minimalCell) Step(x ops.Tensor, s []ops.Tensor, _ bool) (ops.Tensor, []ops.Tensor) {
	tr := x.Trace()
	h := ops.Tanh(ops.Add(ops.MatMul(x, tr.Read(c.k), false, false), ops.MatMul(s[0], tr.Read(c.r), false, false)))
	return h, []ops.Tensor{h}
}

// An RNN over a user's cell runs its Step per timestep: the minimal cell
// equals SimpleRNN without bias, with the same weights, both ways.
func TestRNNUserCellEqualsSimpleRNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randValue(rng, ops.Shape{3, 4, 2})
	for _, back := range []bool{false, true} {
		user := layers.NewRNN(newMinimalCell(5), layers.WithReturnSequences(true), layers.WithGoBackwards(back))
		ref := layers.NewSimpleRNN(5, layers.WithUseBias(false), layers.WithReturnSequences(true), layers.WithGoBackwards(back))
		got := layertest.Forward(t, user, false, x)
		layertest.Forward(t, ref, false, x)
		for i, w := range user.Weights() {
			ref.Weights()[i].Assign(w.Numpy())
		}
		want := layertest.Forward(t, ref, false, x)
		for i := range want.Data {
			if math.Abs(float64(got.Data[i]-want.Data[i])) > 1e-6 {
				t.Fatalf("go_backwards %v: user cell %v, SimpleRNN %v", back, got.Data, want.Data)
			}
		}
	}
}

// Dropout is drawn in training only: in inference a layer with dropout
// equals the same layer without, and in training its output differs.
func TestRecurrentDropoutInferenceOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := randValue(rng, ops.Shape{4, 5, 3})
	drop := layers.NewGRU(4, layers.WithInputDropout(0.5), layers.WithRecurrentDropout(0.5))
	plain := layers.NewGRU(4)
	a := layertest.Forward(t, drop, false, x)
	layertest.Forward(t, plain, false, x)
	for i, w := range drop.Weights() {
		plain.Weights()[i].Assign(w.Numpy())
	}
	b := layertest.Forward(t, plain, false, x)
	c := layertest.Forward(t, drop, true, x)
	same := true
	for i := range a.Data {
		if a.Data[i] != b.Data[i] {
			t.Fatalf("inference with dropout %v, without %v", a.Data, b.Data)
		}
		same = same && c.Data[i] == a.Data[i]
	}
	if same {
		t.Error("training with dropout 0.5 gave the inference output")
	}
}

// CallWithStates returns Keras' return_state states: [h, c] for LSTM,
// h equal to the last output.
func TestLSTMReturnState(t *testing.T) {
	l := layers.NewLSTM(3, layers.WithReturnState(true))
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 4, 2}}); err != nil {
		t.Fatal(err)
	}
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Constant(ops.Shape{2, 4, 2}, randValue(rand.New(rand.NewPCG(1, 1)), ops.Shape{2, 4, 2}).Data)
	y, st := l.CallWithStates(x, nil, false)
	if len(st) != 2 {
		t.Fatalf("%d states", len(st))
	}
	p, err := engine.Compile(tr, []ops.Tensor{y, st[0], st[1]})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out[0].Data {
		if out[0].Data[i] != out[1].Data[i] {
			t.Fatalf("output %v, h %v", out[0].Data, out[1].Data)
		}
	}
}

// Misuse is an error naming the layer, never a panic.
func TestRecurrentErrors(t *testing.T) {
	for _, tc := range []struct {
		l    layers.Layer
		want string
	}{
		{layers.NewLSTM(0), "units must be positive"},
		{layers.NewGRU(3, layers.WithInputDropout(1.5)), "dropout"},
		{layers.NewLSTM(3, layers.WithActivation("nope")), "nope"},
		{layers.NewSimpleRNN(3, layers.WithResetAfter(true)), "reset_after"},
		{layers.NewBidirectional(layers.NewDense(3)), "recurrent layer"},
		{layers.NewBidirectional(layers.NewLSTM(3), layers.WithMergeMode("max")), "merge_mode"},
		{layers.NewBidirectional(layers.NewRNN(newMinimalCell(2))), "backward"},
		{layers.NewRNN(nil), "nil cell"},
		{layers.NewRepeatVector(0), "positive"},
		{layers.NewTimeDistributed(nil), "nil layer"},
	} {
		err := tc.l.Err()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.l.ClassName(), err, tc.want)
		}
	}
	if _, err := layers.OutputShape(layers.NewLSTM(3), []ops.Shape{{-1, 4}}); err == nil || !strings.Contains(err.Error(), "timesteps") {
		t.Errorf("LSTM on a rank-2 input: %v", err)
	}
	if _, err := layers.OutputShape(layers.NewRepeatVector(2), []ops.Shape{{-1, 4, 3}}); err == nil {
		t.Error("RepeatVector on a rank-3 input: no error")
	}
}

// Bidirectional over a user's cell takes its backward layer
// (WithBackwardLayer); the forward RNN is the layer itself, and the
// output concatenates the forward output with the backward one: each
// equals the layer run alone.
func TestBidirectionalBackwardLayer(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x := randValue(rng, ops.Shape{2, 4, 3})
	fwd := layers.NewRNN(newMinimalCell(3))
	bwd := layers.NewRNN(newMinimalCell(2), layers.WithGoBackwards(true))
	bi := layers.NewBidirectional(fwd, layers.WithBackwardLayer(bwd))
	if err := bi.Err(); err != nil {
		t.Fatal(err)
	}
	got := layertest.Forward(t, bi, false, x)
	if !got.Shape.Equal(ops.Shape{2, 5}) || len(bi.Weights()) != 4 {
		t.Fatalf("output %v, %d weights", got.Shape, len(bi.Weights()))
	}
	f := layertest.Forward(t, fwd, false, x)
	b := layertest.Forward(t, bwd, false, x)
	for r := 0; r < 2; r++ {
		want := append(append([]float32(nil), f.Data[r*3:r*3+3]...), b.Data[r*2:r*2+2]...)
		for j, w := range want {
			if got.Data[r*5+j] != w {
				t.Fatalf("row %d: %v, want %v", r, got.Data[r*5:r*5+5], want)
			}
		}
	}
	if err := layers.NewBidirectional(fwd, layers.WithBackwardLayer(layers.NewRNN(newMinimalCell(2)))).Err(); err == nil || !strings.Contains(err.Error(), "other direction") {
		t.Errorf("a backward layer reading forwards: %v", err)
	}
}

// Bidirectional's CallWithStates returns the forward states, then the
// backward ones ([h, c] each for LSTM).
func TestBidirectionalStates(t *testing.T) {
	bi := layers.NewBidirectional(layers.NewLSTM(3))
	if _, err := layers.OutputShape(bi, []ops.Shape{{-1, 4, 2}}); err != nil {
		t.Fatal(err)
	}
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Constant(ops.Shape{2, 4, 2}, randValue(rand.New(rand.NewPCG(2, 2)), ops.Shape{2, 4, 2}).Data)
	y, st := bi.CallWithStates(x, nil, false)
	if len(st) != 4 || !y.Shape().Equal(ops.Shape{2, 6}) {
		t.Fatalf("output %v, %d states", y.Shape(), len(st))
	}
	p, err := engine.Compile(tr, []ops.Tensor{y, st[0], st[2]})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		for j := 0; j < 3; j++ {
			if out[0].Data[r*6+j] != out[1].Data[r*3+j] || out[0].Data[r*6+3+j] != out[2].Data[r*3+j] {
				t.Fatalf("output %v, forward h %v, backward h %v", out[0].Data, out[1].Data, out[2].Data)
			}
		}
	}
}
