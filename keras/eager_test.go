package keras_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

func eagerCNN(t testing.TB, seed uint64) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(seed)
	m, err := keras.NewSequential(
		layers.NewConv2D(4, 3, layers.WithActivation("relu")),
		layers.NewBatchNormalization(), // moving statistics: a hook
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(16, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Build(8, 8, 1); err != nil {
		t.Fatal(err)
	}
	return m
}

func eagerBatch(seed uint64, n int) (x, y *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 1))
	xs := make([]float32, n*8*8)
	for i := range xs {
		xs[i] = r.Float32()
	}
	ys := make([]float32, n)
	for i := range ys {
		ys[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(n, 8, 8, 1), tensor.WithBacking(xs)), tensor.New(tensor.WithShape(n), tensor.WithBacking(ys))
}

// TestEagerStepEqualsFunction: a CNN's forward pass, loss, gradients and
// Adam update computed eagerly under a GradientTape equal, bit for bit,
// those of the same step traced by keras.NewFunction, over three steps;
// so do the batch normalization's moving statistics (every weight is
// compared after each step).
func TestEagerStepEqualsFunction(t *testing.T) {
	eagerModel, tracedModel := eagerCNN(t, 7), eagerCNN(t, 7)
	lossFn := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))
	eagerOpt := optimizers.NewAdam(optimizers.LearningRate(0.01))
	tracedOpt := optimizers.NewAdam(optimizers.LearningRate(0.01))
	step := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		tape := keras.NewGradientTape()
		logits := tracedModel.Forward(in[0], true)
		loss := lossFn.Call(in[1], logits)
		grads, err := tape.Gradient(loss, tracedModel.TrainableVariables())
		if err != nil {
			return nil, err
		}
		if err := tracedOpt.ApplyGradients(grads, tracedModel.TrainableVariables()); err != nil {
			return nil, err
		}
		return append([]ops.Tensor{logits, loss}, grads...), nil
	})
	for s := range 3 {
		x, y := eagerBatch(uint64(s), 6)
		want, err := step.Call(x, y)
		if err != nil {
			t.Fatal(err)
		}

		tape := keras.NewGradientTape()
		logits, err := eagerModel.CallEager(x, true)
		if err != nil {
			t.Fatal(err)
		}
		loss := lossFn.Call(ops.ConvertToTensor(y), logits)
		grads, err := tape.Gradient(loss, eagerModel.TrainableVariables())
		if err != nil {
			t.Fatal(err)
		}
		if err := eagerOpt.ApplyGradients(grads, eagerModel.TrainableVariables()); err != nil {
			t.Fatal(err)
		}
		got := append([]ops.Tensor{logits, loss}, grads...)
		for i := range got {
			if g := got[i].Float32s(); !slices.Equal(g, want[i].Data) {
				t.Fatalf("step %d: output %d: eager %v != traced %v", s, i, g[:min(4, len(g))], want[i].Data[:min(4, len(want[i].Data))])
			}
		}
		if math.IsNaN(float64(loss.Float32())) {
			t.Fatal("NaN loss")
		}
		for i, v := range eagerModel.Weights() {
			if !slices.Equal(v.Numpy(), tracedModel.Weights()[i].Numpy()) {
				t.Fatalf("step %d: weight %s differs after the update", s, v.Name())
			}
		}
	}
	if step.Traces() != 1 {
		t.Errorf("the traced step was traced %d times, want 1", step.Traces())
	}
}

// TestCallLayerEager: a Dense layer called on an array builds itself and
// computes x·W + b, checked against a loop over its weights.
func TestCallLayerEager(t *testing.T) {
	d := layers.NewDense(3)
	x := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking([]float32{1, 2, 3, 4, -1, 0.5, 0, 2}))
	y, err := keras.CallLayer(d, false, x)
	if err != nil {
		t.Fatal(err)
	}
	w, b := d.Weights()[0].Numpy(), d.Weights()[1].Numpy()
	xs := x.Data().([]float32)
	got := y.Float32s()
	for i := range 2 {
		for j := range 3 {
			want := b[j]
			for k := range 4 {
				want += xs[i*4+k] * w[k*3+j]
			}
			if math.Abs(float64(got[i*3+j]-want)) > 1e-5 {
				t.Fatalf("y[%d,%d] = %v, want %v", i, j, got[i*3+j], want)
			}
		}
	}
	if !y.Shape().Equal(ops.Shape{2, 3}) {
		t.Errorf("shape %v, want (2, 3)", y.Shape())
	}
	if _, err := keras.CallLayer(d, false, tensor.New(tensor.WithShape(2, 5), tensor.WithBacking(make([]float32, 10)))); err == nil ||
		!strings.Contains(err.Error(), "dense") {
		t.Errorf("a wrong input width gave %v, want an error naming the layer", err)
	}
}

// TestEagerMetricAndErrors: metrics update at once on eager tensors, and
// bad inputs are errors.
func TestEagerMetricAndErrors(t *testing.T) {
	acc := metrics.NewSparseCategoricalAccuracy()
	logits := ops.ConvertToTensor(tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float32{1, 0, 0, 1, 2, 3})))
	labels := ops.ConvertToTensor(tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{0, 0, 1})))
	acc.UpdateState(labels, logits)
	if got := acc.Result(); math.Abs(got-2.0/3) > 1e-6 {
		t.Errorf("accuracy %v, want 2/3", got)
	}
	m := eagerCNN(t, 1)
	if _, err := m.CallEager(tensor.New(tensor.WithShape(2, 9, 9, 1), tensor.WithBacking(make([]float32, 162))), false); err == nil {
		t.Error("CallEager on a wrong shape: no error")
	}
	if _, err := m.CallEager("x", false); err == nil {
		t.Error("CallEager on a string: no error")
	}
	tr := ops.NewTrace(false, 0, 0)
	if _, err := m.CallEager(tr.Input("x", ops.Shape{1, 8, 8, 1}), false); err == nil || !strings.Contains(err.Error(), "symbolic") {
		t.Errorf("CallEager on a symbolic tensor: %v", err)
	}
	tape := keras.NewGradientTape()
	out, err := m.CallEager(tensor.New(tensor.WithShape(1, 8, 8, 1), tensor.WithBacking(make([]float32, 64))), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tape.Gradient(ops.Sum(out, false), m.TrainableVariables()); err != nil {
		t.Fatal(err)
	}
	if _, err := tape.Gradient(ops.Sum(out, false), m.TrainableVariables()); err == nil {
		t.Error("a second Gradient on a tape: no error")
	}
}

// actReg is the guide's ActivityRegularizationLayer: it adds 1e-2·sum(x)
// to the step's losses and returns x.
type actReg struct{ layers.Base }

func (l *actReg) Call(in []ops.Tensor, _ bool) ops.Tensor {
	ops.AddLoss(ops.Scale(ops.Sum(in[0], false), 1e-2))
	return in[0]
}

// TestEagerModelLosses: model.Losses after an eager call holds the weight
// regularizer's penalty and the loss a layer added, with the values
// computed by hand, and the tape differentiates through them.
func TestEagerModelLosses(t *testing.T) {
	layers.SetRandomSeed(3)
	dense := layers.NewDense(3, layers.WithKernelRegularizer(layers.L2(0.5)))
	m, err := keras.NewSequential(dense, &actReg{Base: layers.NewBase("ActReg")})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{1, -1, 0.5, 2}))
	tape := keras.NewGradientTape()
	y, err := m.CallEager(x, true)
	if err != nil {
		t.Fatal(err)
	}
	ls := m.Losses(y.Trace())
	if len(ls) != 2 {
		t.Fatalf("%d losses, want the L2 penalty and the added loss", len(ls))
	}
	w := dense.Weights()[0].Numpy()
	var l2, sum float64
	for _, v := range w {
		l2 += 0.5 * float64(v) * float64(v)
	}
	for _, v := range y.Float32s() {
		sum += float64(v)
	}
	if got := float64(ls[0].Float32()); math.Abs(got-l2) > 1e-5 {
		t.Errorf("L2 penalty %v, want %v", got, l2)
	}
	if got := float64(ls[1].Float32()); math.Abs(got-1e-2*sum) > 1e-5 {
		t.Errorf("added loss %v, want %v", got, 1e-2*sum)
	}
	grads, err := tape.Gradient(ops.AddN(ls...), m.TrainableVariables())
	if err != nil {
		t.Fatal(err)
	}
	// d/db of 1e-2·sum(x·W + b) is 1e-2 per example: 0.02.
	for _, g := range grads[1].Float32s() {
		if math.Abs(float64(g)-0.02) > 1e-6 {
			t.Fatalf("d/db = %v, want 0.02 each", grads[1].Float32s())
		}
	}
	if len(m.Losses(nil)) != 0 {
		t.Error("Losses(nil) is not empty")
	}
}

// TestCallEagerMirroredTraining: a model under a 2-replica strategy may be
// called eagerly for inference, not for training (its updates would reach
// one copy of the mirrored weights).
func TestCallEagerMirroredTraining(t *testing.T) {
	prev := len(distribute.ListLogicalDevices("CPU"))
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = distribute.SetLogicalCPUs(max(prev, 1)) })
	s, err := distribute.NewMirroredStrategy("/cpu:0", "/cpu:1")
	if err != nil {
		t.Fatal(err)
	}
	exit := s.Scope()
	m := eagerCNN(t, 2)
	exit()
	x, _ := eagerBatch(1, 2)
	if _, err := m.CallEager(x, false); err != nil {
		t.Fatalf("inference: %v", err)
	}
	if _, err := m.CallEager(x, true); err == nil || !strings.Contains(err.Error(), "strategy.Run") {
		t.Fatalf("training call under 2 replicas: %v", err)
	}
}
