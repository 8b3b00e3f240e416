package keras_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// mnistCNN is the tutorial's model.
func mnistCNN(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(128, layers.WithActivation("relu")),
		layers.NewDense(10),
	)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSummarySequentialCNN(t *testing.T) {
	layers.ClearSession()
	m := mnistCNN(t)
	got, err := m.SummaryString()
	if err != nil {
		t.Fatal(err)
	}
	// Keras 2's layout, line by line (trailing spaces included).
	want := strings.Join([]string{
		`Model: "sequential"`,
		`_________________________________________________________________`,
		` Layer (type)                Output Shape              Param #   `,
		`=================================================================`,
		` conv2d (Conv2D)             (None, 26, 26, 32)        320       `,
		`                                                                 `,
		` max_pooling2d (MaxPooling2D  (None, 13, 13, 32)       0         `,
		` )                                                               `,
		`                                                                 `,
		` conv2d_1 (Conv2D)           (None, 11, 11, 64)        18496     `,
		`                                                                 `,
		` max_pooling2d_1 (MaxPooling  (None, 5, 5, 64)         0         `,
		` 2D)                                                             `,
		`                                                                 `,
		` flatten (Flatten)           (None, 1600)              0         `,
		`                                                                 `,
		` dense (Dense)               (None, 128)               204928    `,
		`                                                                 `,
		` dense_1 (Dense)             (None, 10)                1290      `,
		`                                                                 `,
		`=================================================================`,
		`Total params: 225,034`,
		`Trainable params: 225,034`,
		`Non-trainable params: 0`,
		`_________________________________________________________________`,
		``}, "\n")
	if got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

func TestSummaryFunctional(t *testing.T) {
	layers.ClearSession()
	in := layers.Input([]int{8})
	a := layers.Apply(layers.NewDense(4, layers.WithActivation("relu")), in)
	b := layers.Apply(layers.NewDense(4), in)
	sum := layers.Apply(layers.NewAdd(), a, b)
	out := layers.Apply(layers.NewDense(2), sum)
	m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.SummaryString()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		`Model: "model"`,
		` Layer (type)                   Output Shape         Param #     Connected to                     `,
		` input_1 (InputLayer)           [(None, 8)]          0           []                               `,
		` dense (Dense)                  (None, 4)            36          ['input_1[0][0]']                `,
		` add (Add)                      (None, 4)            0           ['dense[0][0]',                  `,
		`                                                                  'dense_1[0][0]']                `,
		`Total params: 82`,
	} {
		if !strings.Contains(got, w+"\n") {
			t.Errorf("summary lacks line %q:\n%s", w, got)
		}
	}
}

// synthetic makes a linearly separable 3-class problem.
func synthetic(n int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n*4)
	y := make([]float32, n)
	for i := 0; i < n; i++ {
		c := r.IntN(3)
		y[i] = float32(c)
		for j := 0; j < 4; j++ {
			x[i*4+j] = float32(r.NormFloat64()) * 0.3
		}
		x[i*4+c] += 2
	}
	return tensor.New(tensor.WithShape(n, 4), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

func TestFitLearns(t *testing.T) {
	layers.ClearSession()
	layers.SetRandomSeed(1)
	m, err := keras.NewSequential(
		layers.NewDense(16, layers.WithActivation("relu"), layers.WithInputShape(4)),
		layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.02)), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)), Metrics: []any{"accuracy"}}); err != nil {
		t.Fatal(err)
	}
	x, y := synthetic(300, 2)
	var out strings.Builder
	hist, err := m.Fit(x, y, keras.FitConfig{Epochs: 8, BatchSize: 32, ValidationSplit: 0.2, Out: &out, Verbose: keras.VerboseEpoch})
	if err != nil {
		t.Fatal(err)
	}
	loss := hist.History["loss"]
	if len(loss) != 8 || loss[7] >= loss[0]*0.5 {
		t.Errorf("loss did not fall: %v", loss)
	}
	if acc := hist.History["val_accuracy"]; acc[len(acc)-1] < 0.9 {
		t.Errorf("val_accuracy %v, want >= 0.9", acc)
	}
	if !strings.Contains(out.String(), "Epoch 8/8\n8/8 - ") {
		t.Errorf("progress output:\n%s", out.String())
	}
	logs, err := m.Evaluate(x, y, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := logs.Get("accuracy"); a < 0.9 {
		t.Errorf("evaluate accuracy %v", a)
	}
	pred, err := m.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if s := pred.Shape(); s[0] != 300 || s[1] != 3 {
		t.Errorf("predict shape %v", s)
	}
}

func TestWeightsRoundTrip(t *testing.T) {
	layers.ClearSession()
	m := mnistCNN(t)
	ws := m.GetWeights()
	if len(ws) != 8 {
		t.Fatalf("%d weights, want 8", len(ws))
	}
	ws[0].Data().([]float32)[0] = 42
	if err := m.SetWeights(ws); err != nil {
		t.Fatal(err)
	}
	if got := m.Weights()[0].Numpy()[0]; got != 42 {
		t.Errorf("weight after SetWeights = %v", got)
	}
	bad := append(ws[:7:7], tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, 3})))
	if err := m.SetWeights(bad); err == nil || !strings.Contains(err.Error(), "dense_1/bias") {
		t.Errorf("SetWeights with a wrong shape: %v", err)
	}
}

func TestErrorsNameLayerAndShapes(t *testing.T) {
	layers.ClearSession()
	m := mnistCNN(t)
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
		t.Fatal(err)
	}
	quiet := keras.FitConfig{Verbose: keras.VerboseSilent}
	// Wrong input shape.
	x := tensor.New(tensor.WithShape(4, 32, 32, 3), tensor.WithBacking(make([]float32, 4*32*32*3)))
	y := tensor.New(tensor.WithShape(4), tensor.WithBacking(make([]float32, 4)))
	_, err := m.Fit(x, y, quiet)
	if err == nil || !strings.Contains(err.Error(), "(None, 28, 28, 1)") || !strings.Contains(err.Error(), "(4, 32, 32, 3)") {
		t.Errorf("wrong input shape: %v", err)
	}
	// Labels that do not match the logits.
	x = tensor.New(tensor.WithShape(4, 28, 28, 1), tensor.WithBacking(make([]float32, 4*28*28)))
	y2 := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking(make([]float32, 12)))
	_, err = m.Fit(x, y2, quiet)
	if err == nil || !strings.Contains(err.Error(), "(4, 3)") || !strings.Contains(err.Error(), "(4, 10)") {
		t.Errorf("label/logit mismatch: %v", err)
	}
	// x and y of different lengths.
	y3 := tensor.New(tensor.WithShape(5), tensor.WithBacking(make([]float32, 5)))
	if _, err = m.Fit(x, y3, quiet); err == nil || !strings.Contains(err.Error(), "5") {
		t.Errorf("length mismatch: %v", err)
	}
	// Out-of-range class ids fail at run time with the op named.
	y4 := tensor.New(tensor.WithShape(4), tensor.WithBacking([]float32{0, 1, 12, 3}))
	if _, err = m.Fit(x, y4, quiet); err == nil || !strings.Contains(err.Error(), "label 12") {
		t.Errorf("bad label: %v", err)
	}
	// Not compiled.
	m2 := mnistCNN(t)
	if _, err := m2.Fit(x, y, quiet); err == nil || !strings.Contains(err.Error(), "compile") {
		t.Errorf("uncompiled: %v", err)
	}
	// An option a layer does not take.
	if _, err := keras.NewSequential(layers.NewDense(3, layers.WithPadding("same"))); err == nil || !strings.Contains(err.Error(), "padding") {
		t.Errorf("bad option: %v", err)
	}
}
