package keras_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// TestFitAddsAddedLosses: Fit adds the losses layers add in call
// (ops.AddLoss, Keras' add_loss) to the objective and to the logged loss,
// as Keras adds model.losses: one Fit step equals the eager step written
// by hand with model.Losses.
func TestFitAddsAddedLosses(t *testing.T) {
	build := func() *keras.Model {
		layers.SetRandomSeed(4)
		m, err := keras.NewSequential(layers.NewDense(3, layers.WithInputShape(2)), &actReg{Base: layers.NewBase("ActReg")})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	x := tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float32{1, 2, -1, 0.5, 0, 1, 2, -2}))
	y := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}))

	fitted := build()
	if err := fitted.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1)), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	hist, err := fitted.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 4, NoShuffle: true, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}

	manual := build()
	opt := optimizers.NewSGD(optimizers.LearningRate(0.1))
	tape := keras.NewGradientTape()
	pred, err := manual.CallEager(x, true)
	if err != nil {
		t.Fatal(err)
	}
	loss := losses.NewMeanSquaredError().Call(ops.ConvertToTensor(y), pred)
	extra := manual.Losses(pred.Trace())
	if len(extra) != 1 {
		t.Fatalf("%d added losses, want 1", len(extra))
	}
	loss = ops.Add(loss, extra[0])
	grads, err := tape.Gradient(loss, manual.TrainableVariables())
	if err != nil {
		t.Fatal(err)
	}
	if err := opt.ApplyGradients(grads, manual.TrainableVariables()); err != nil {
		t.Fatal(err)
	}
	if got, want := hist.History["loss"][0], float64(loss.Float32()); math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
		t.Errorf("Fit logged loss %v, want data loss + added loss %v", got, want)
	}
	for i, v := range fitted.Weights() {
		w := manual.Weights()[i].Numpy()
		for j, f := range v.Numpy() {
			if math.Abs(float64(f-w[j])) > 1e-6 {
				t.Fatalf("weight %s[%d]: Fit %v, eager step %v", v.Name(), j, f, w[j])
			}
		}
	}
}
