package keras

import (
	"path/filepath"
	"slices"
	"testing"

	"gorgonia.org/tensor"
)

// kerasInput is one input of a Keras reference prediction: its shape and
// values, as the vector scripts write them.
type kerasInput struct {
	shape []int
	data  []float32
}

// checkPredictsLikeKeras predicts ins with m (a model loaded from a file
// Keras wrote), compares the output with Keras' predictions (shape
// predShape, relative 1e-5), then saves m, loads it back and checks the
// reloaded model predicts the same bits.
func checkPredictsLikeKeras(t *testing.T, m *Model, ins []kerasInput, predShape []int, want []float32) {
	t.Helper()
	predict := func(m *Model) []float32 {
		xs := make([]*tensor.Dense, len(ins))
		for i, in := range ins {
			xs[i] = tensor.New(tensor.WithShape(in.shape...), tensor.WithBacking(slices.Clone(in.data)))
		}
		got, err := m.Predict(xs, PredictConfig{Verbose: VerboseSilent})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Shape(), tensor.Shape(predShape)) {
			t.Fatalf("prediction shape %v, Keras %v", got.Shape(), predShape)
		}
		return got.Data().([]float32)
	}
	got := predict(m)
	t.Logf("worst relative difference from Keras' predictions %.3g", closeToKeras(t, "prediction", got, want, 1e-5))
	path := filepath.Join(t.TempDir(), "model.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	m2, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if again := predict(m2); !slices.Equal(again, got) {
		t.Errorf("the saved and reloaded model predicts %v, before %v", again[:3], got[:3])
	}
}
