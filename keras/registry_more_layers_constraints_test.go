package keras

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// roundTrip checks that l comes back from its config (through JSON, as
// from a .keras file) with the same config and weights, built on in.
func roundTrip(t *testing.T, l layers.Layer, in ...*layers.KerasTensor) layers.Layer {
	t.Helper()
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	if out := layers.Apply(l, in...); out.Err() != nil {
		t.Fatalf("%s: %v", l.ClassName(), out.Err())
	}
	want := l.GetConfig()
	got, err := LayerFromConfig(l.ClassName(), svJSONRoundTrip(t, want))
	if err != nil {
		t.Fatalf("%s: %v", l.ClassName(), err)
	}
	if out := layers.Apply(got, in...); out.Err() != nil {
		t.Fatalf("%s rebuilt: %v", l.ClassName(), out.Err())
	}
	if !svJSONEqual(t, got.GetConfig(), want) {
		t.Errorf("%s config:\n got %v\nwant %v", l.ClassName(), got.GetConfig(), want)
	}
	if len(got.Weights()) != len(l.Weights()) {
		t.Fatalf("%s: %d weights, want %d", l.ClassName(), len(got.Weights()), len(l.Weights()))
	}
	for i, w := range got.Weights() {
		orig := l.Weights()[i]
		if !w.Shape().Equal(orig.Shape()) {
			t.Errorf("%s weight %s %v, want %v", l.ClassName(), w.Name(), w.Shape(), orig.Shape())
		}
		if (ops.VariableConstraint(w) == nil) != (ops.VariableConstraint(orig) == nil) {
			t.Errorf("%s weight %s: constraint %v, want %v", l.ClassName(), w.Name(), ops.VariableConstraint(w), ops.VariableConstraint(orig))
		}
	}
	return got
}

// TestWeightOptionsRoundTrip: the constraints, gamma/beta regularizers and
// activity regularizers of the layers that take them come back from their
// configs (they were refused before issue 31), attached to the right
// weights.
func TestWeightOptionsRoundTrip(t *testing.T) {
	layers.ClearSession()
	vec := func() *layers.KerasTensor { return layers.Input([]int{5}) }
	seq := func() *layers.KerasTensor { return layers.Input([]int{6, 3}) }
	img := func() *layers.KerasTensor { return layers.Input([]int{6, 6, 2}) }
	ids := func() *layers.KerasTensor { return layers.Input([]int{4}) }
	cases := []struct {
		l           layers.Layer
		in          *layers.KerasTensor
		constrained []string
	}{
		{layers.NewDense(3, layers.WithKernelConstraint(layers.MaxNorm(2, 0)), layers.WithBiasConstraint(layers.NonNeg()),
			layers.WithActivityRegularizer(layers.L2(0.1))), vec(), []string{"kernel", "bias"}},
		{layers.NewConv1D(2, 3, layers.WithKernelConstraint(layers.UnitNorm(0, 1))), seq(), []string{"kernel"}},
		{layers.NewConv2D(2, 3, layers.WithKernelConstraint(layers.MinMaxNorm(0.5, 1, 0.5, 0, 1, 2)),
			layers.WithActivityRegularizer(layers.L1L2(0.1, 0.2))), img(), []string{"kernel"}},
		{layers.NewConv2DTranspose(2, 3, layers.WithBiasConstraint(layers.MaxNorm(1))), img(), []string{"bias"}},
		{layers.NewDepthwiseConv2D(3, layers.WithDepthwiseConstraint(layers.NonNeg()), layers.WithBiasConstraint(layers.UnitNorm())), img(),
			[]string{"kernel", "bias"}}, // Keras 3 names it "kernel"; it takes the depthwise_constraint
		{layers.NewSeparableConv2D(3, 3, layers.WithDepthwiseConstraint(layers.MaxNorm(1, 0, 1)),
			layers.WithPointwiseConstraint(layers.NonNeg())), img(), []string{"depthwise_kernel", "pointwise_kernel"}},
		{layers.NewEmbedding(7, 3, layers.WithEmbeddingsConstraint(layers.UnitNorm(1))), ids(), []string{"embeddings"}},
		{layers.NewBatchNormalization(layers.WithGammaRegularizer(layers.L2(0.1)), layers.WithBetaRegularizer(layers.L1(0.1)),
			layers.WithGammaConstraint(layers.NonNeg()), layers.WithBetaConstraint(layers.MaxNorm(1))), vec(), []string{"gamma", "beta"}},
		{layers.NewLayerNormalization(layers.WithGammaRegularizer(layers.L2(0.1)), layers.WithBetaConstraint(layers.MaxNorm(1))),
			seq(), []string{"beta"}},
		{layers.NewFlatten(layers.WithActivityRegularizer(layers.L1(0.5))), seq(), nil},
		{layers.NewLSTM(2, layers.WithKernelConstraint(layers.MaxNorm(1)), layers.WithRecurrentConstraint(layers.UnitNorm()),
			layers.WithBiasConstraint(layers.NonNeg())), seq(), []string{"kernel", "recurrent_kernel", "bias"}},
		{layers.NewGRU(2, layers.WithRecurrentConstraint(layers.MaxNorm(2, 0, 1))), seq(), []string{"recurrent_kernel"}},
		{layers.NewSimpleRNN(2, layers.WithKernelConstraint(layers.NonNeg()), layers.WithActivityRegularizer(layers.L2(0.1))),
			seq(), []string{"kernel"}},
		{layers.NewPReLU(layers.WithAlphaConstraint(layers.NonNeg())), seq(), []string{"alpha"}},
	}
	for _, c := range cases {
		got := roundTrip(t, c.l, c.in)
		var names []string
		for _, w := range got.Weights() {
			if ops.VariableConstraint(w) != nil {
				names = append(names, w.Name()[strings.LastIndex(w.Name(), "/")+1:])
			}
		}
		if strings.Join(names, ",") != strings.Join(c.constrained, ",") {
			t.Errorf("%s: constrained weights %v, want %v", c.l.ClassName(), names, c.constrained)
		}
	}
	// A constraint whose axis does not fit the weight is an error naming
	// the layer, not a panic at the first update.
	l := layers.NewDense(3, layers.WithName("bad_axis"), layers.WithKernelConstraint(layers.MaxNorm(1, 3)))
	if out := layers.Apply(l, vec()); out.Err() == nil || !strings.Contains(out.Err().Error(), "bad_axis") ||
		!strings.Contains(out.Err().Error(), "axis 3") {
		t.Errorf("MaxNorm over axis 3 of a Dense kernel: %v", out.Err())
	}
	// Unknown constraints and malformed ones are refused with the key.
	for _, bad := range []any{"no_such", map[string]any{"class_name": "MaxNorm", "config": map[string]any{"axis": "x"}}, 7.0} {
		_, err := LayerFromConfig("Dense", map[string]any{"units": 2.0, "kernel_constraint": bad})
		if err == nil || !strings.Contains(err.Error(), "kernel_constraint") {
			t.Errorf("kernel_constraint %v: %v", bad, err)
		}
	}
	// A class whose constraints are not supported yet refuses the key
	// rather than dropping it.
	_, err := LayerFromConfig("MultiHeadAttention", map[string]any{"num_heads": 2.0, "key_dim": 2.0, "kernel_constraint": "non_neg"})
	if err == nil || !strings.Contains(err.Error(), "kernel_constraint") {
		t.Errorf("MultiHeadAttention with kernel_constraint: %v", err)
	}
}

// TestActivityRegularizerInLoss: a model whose layers carry an activity
// regularizer and a gamma regularizer reports them in Losses, and saves
// and loads them back through a .keras file.
func TestActivityRegularizerInLoss(t *testing.T) {
	layers.ClearSession()
	m, err := NewSequential(
		layers.NewDense(3, layers.WithInputShape(4), layers.WithKernelInitializer(layers.Ones()),
			layers.WithActivityRegularizer(layers.L1(0.5))),
		layers.NewLayerNormalization(layers.WithGammaRegularizer(layers.L2(0.25))),
	)
	if err != nil {
		t.Fatal(err)
	}
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Constant(ops.Shape{2, 4}, []float32{1, 1, 1, 1, -1, 0, 0, 0})
	m.Call([]ops.Tensor{x}, false)
	ls := m.Losses(tr)
	if len(ls) != 2 {
		t.Fatalf("%d losses, want the gamma penalty and the activity penalty", len(ls))
	}
	// gamma: 0.25 * 3 ones; activity: 0.5 * (3*4 + 3*1) / batch 2.
	p, err := compileValues(tr, ls)
	if err != nil {
		t.Fatal(err)
	}
	if p[0] != 0.75 || p[1] != 3.75 {
		t.Errorf("losses %v, want [0.75 3.75]", p)
	}
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewSGD(), Loss: losses.NewMeanSquaredError()}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(back.Layers()[0].GetConfig()["activity_regularizer"])
	if !strings.Contains(string(b), `"L1"`) {
		t.Errorf("loaded activity_regularizer %s", b)
	}
	b, _ = json.Marshal(back.Layers()[1].GetConfig()["gamma_regularizer"])
	if !strings.Contains(string(b), `"L2"`) {
		t.Errorf("loaded gamma_regularizer %s", b)
	}
}

// compileValues runs the scalars ts of trace tr.
func compileValues(tr *ops.Trace, ts []ops.Tensor) ([]float32, error) {
	prog, err := engine.Compile(tr, ts)
	if err != nil {
		return nil, err
	}
	vals, err := prog.Run(engine.Single{}, nil)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(vals))
	for i, v := range vals {
		out[i] = v.Data[0]
	}
	return out, nil
}
