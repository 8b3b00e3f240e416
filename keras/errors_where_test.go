package keras_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// TestErrorsReadWhatWentWrongFirst: typical user mistakes (a Dense fed
// the wrong width, labels of the wrong shape, a model fed the wrong
// width, a layer misconfigured) give errors that start with the user's
// layer, loss or model and the shapes, with the call path after.
func TestErrorsReadWhatWentWrongFirst(t *testing.T) {
	x := tensor.New(tensor.WithShape(32, 10), tensor.WithBacking(make([]float32, 320)))
	y := tensor.New(tensor.WithShape(32, 1), tensor.WithBacking(make([]float32, 32)))
	y5 := tensor.New(tensor.WithShape(32, 5), tensor.WithBacking(make([]float32, 160)))
	compiled := func(loss string, ls ...layers.Layer) *keras.Model {
		m, err := keras.NewSequential(ls...)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: loss}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	dense := layers.NewDense(64, layers.WithName("dense_in"))
	if err := dense.Build([]ops.Shape{{-1, 784}}); err != nil {
		t.Fatal(err)
	}
	step := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		return []ops.Tensor{dense.Call(in[:1], true)}, nil
	})
	for _, c := range []struct {
		name  string
		run   func() error
		start string // the message starts so
		path  string // and names the call path after
	}{
		{"Dense in a custom step", func() error { _, err := step.Call(x); return err },
			`layer "dense_in" (Dense): input shape (32, 10) does not match the kernel (784, 64)`, "(in keras: Function"},
		{"model input in Fit", func() error {
			m := compiled("mse", layers.NewDense(64, layers.WithInputShape(784)), layers.NewDense(1))
			_, err := m.Fit(x, y, keras.FitConfig{Verbose: 0})
			return err
		}, `model "sequential`, "(in keras: Fit: epoch 1, batch 0"},
		{"labels in Fit", func() error {
			m := compiled("categorical_crossentropy", layers.NewDense(3, layers.WithInputShape(10)))
			_, err := m.Fit(x, y5, keras.FitConfig{Verbose: 0})
			return err
		}, "losses: CategoricalCrossentropy: labels of shape (32, 5) do not match predictions of shape (32, 3)", "(in keras: Fit: epoch 1, batch 0"},
		{"labels in Evaluate", func() error {
			m := compiled("categorical_crossentropy", layers.NewDense(3, layers.WithInputShape(10)))
			_, err := m.Evaluate(x, y5, keras.EvaluateConfig{Verbose: 0})
			return err
		}, "losses: CategoricalCrossentropy: labels of shape (32, 5)", "(in keras: Evaluate > batch 0 > "},
		{"model input in Predict", func() error {
			m := compiled("mse", layers.NewDense(1, layers.WithInputShape(7)))
			_, err := m.Predict(x, keras.PredictConfig{Verbose: 0})
			return err
		}, `model "sequential`, "(in keras: Predict: batch 0"},
		{"input count in a custom step", func() error {
			m := compiled("mse", layers.NewDense(1, layers.WithInputShape(10)))
			f := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) { return m.Call(in, true), nil })
			_, err := f.Call(x, x)
			return err
		}, `model "sequential`, "takes 1 inputs, got 2 (in keras: Function"},
		{"layer config", func() error {
			_, err := keras.NewSequential(layers.NewDropout(1.5, layers.WithName("drop"), layers.WithInputShape(10)))
			return err
		}, `layers: Dropout "drop": rate must be in [0, 1), got 1.5`, ""},
	} {
		err := c.run()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, c.start) || !strings.Contains(msg, c.path) {
			t.Errorf("%s: error\n  %s\nwant it to start with\n  %s\nand name %q", c.name, msg, c.start, c.path)
		}
	}
}
