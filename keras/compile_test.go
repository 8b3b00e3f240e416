package keras_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"gorgonia.org/tensor"
)

func TestCompileByName(t *testing.T) {
	x, y := synthetic(64, 6)
	for _, opt := range []string{"adam", "sgd", "rmsprop", "adamw"} {
		m, err := keras.NewSequential(layers.NewDense(3, layers.WithInputShape(4)))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileConfig{Optimizer: opt, Loss: "sparse_categorical_crossentropy", Metrics: []any{"accuracy"}}); err != nil {
			t.Fatalf("%s: %v", opt, err)
		}
		if got := m.Optimizer().Name(); !strings.EqualFold(got, opt) {
			t.Errorf("optimizer %q resolved to %q", opt, got)
		}
		hist, err := m.Fit(x, y, keras.FitConfig{Verbose: keras.VerboseSilent})
		if err != nil {
			t.Fatalf("%s: %v", opt, err)
		}
		// "accuracy" with class-id labels and (N, 3) predictions is
		// sparse categorical accuracy, logged as "accuracy".
		if _, ok := hist.History["accuracy"]; !ok {
			t.Errorf("%s: logs %v lack accuracy", opt, hist.Names)
		}
	}
	m, _ := keras.NewSequential(layers.NewDense(3, layers.WithInputShape(4)))
	if err := m.Compile(keras.CompileConfig{Optimizer: "adagrad-nope", Loss: "mse"}); err == nil {
		t.Error("unknown optimizer accepted")
	}
	if err := m.Compile(keras.CompileConfig{Loss: "nope"}); err == nil {
		t.Error("unknown loss accepted")
	}
}

func TestEmptyDataset(t *testing.T) {
	m, _ := keras.NewSequential(layers.NewDense(3, layers.WithInputShape(4)))
	if err := m.Compile(keras.CompileConfig{Optimizer: "sgd", Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(4, 4), tensor.WithBacking(make([]float32, 16)))
	y := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking(make([]float32, 12)))
	ds, err := datasets.FromTensorSlices(x, y)
	if err != nil {
		t.Fatal(err)
	}
	empty := ds.Take(0).Batch(2, false)
	_, err = m.Fit(empty, nil, keras.FitConfig{Verbose: keras.VerboseSilent})
	if err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Fit on an empty dataset: %v", err)
	}
	if _, err := m.Evaluate(empty, nil, keras.EvaluateConfig{Verbose: keras.VerboseSilent}); err == nil {
		t.Error("Evaluate on an empty dataset: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Fit(x, y, keras.FitConfig{Verbose: keras.VerboseSilent, Context: ctx}); err == nil || !strings.Contains(err.Error(), "stopped at epoch 1") {
		t.Errorf("cancelled context: %v", err)
	}
}
