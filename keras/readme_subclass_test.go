package keras_test

import (
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// The README's side-by-side composite layer and subclassed model, as
// written there (README.md, "Python and Go side by side").

type readmeMLPBlock struct {
	layers.Base
	dense1, dense2 *layers.Dense // tracked: weights, freezing, saving
}

func (b *readmeMLPBlock) Call(in []ops.Tensor, training bool) ops.Tensor {
	return layers.Call(b.dense2, training, layers.Call(b.dense1, training, in[0]))
}

type readmeRegressor struct {
	*keras.Model
	block *readmeMLPBlock
}

func (r *readmeRegressor) Call(in []ops.Tensor, training bool) ops.Tensor {
	ops.AddLoss(ops.Scale(ops.Mean(ops.Square(in[0]), false), 1e-3))
	return layers.Call(r.block, training, in[0])
}

func TestREADMESubclass(t *testing.T) {
	var err error
	r := &readmeRegressor{block: &readmeMLPBlock{Base: layers.NewBase("MLPBlock"),
		dense1: layers.NewDense(32, layers.WithActivation("relu")), dense2: layers.NewDense(1)}}
	r.Model, err = keras.Subclass(r)
	if err != nil {
		t.Fatal(err)
	}
	err = r.Compile(keras.CompileConfig{Optimizer: "adam", Loss: "mse"})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(8, 5), tensor.WithBacking(make([]float32, 40)))
	y := tensor.New(tensor.WithShape(8, 1), tensor.WithBacking(make([]float32, 8)))
	if _, err := r.Fit(x, y, keras.FitConfig{Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	if n := r.CountParams(); n != 5*32+32+32+1 {
		t.Errorf("%d params, want %d", n, 5*32+32+32+1)
	}
}

// A subclassed model whose class is registered saves to .keras and loads
// back with its weights, as Keras' save of a registered subclassed model.
func TestSubclassSaveLoad(t *testing.T) {
	newRegressor := func() *readmeRegressor {
		return &readmeRegressor{block: &readmeMLPBlock{Base: layers.NewBase("MLPBlock"),
			dense1: layers.NewDense(4, layers.WithActivation("relu")), dense2: layers.NewDense(1)}}
	}
	keras.RegisterSubclass("readmeRegressor", func(map[string]any) (*keras.Model, error) {
		r := newRegressor()
		m, err := keras.Subclass(r)
		r.Model = m
		return m, err
	})
	r := newRegressor()
	m, err := keras.Subclass(r, keras.SubclassInputShape(3))
	if err != nil {
		t.Fatal(err)
	}
	r.Model = m
	path := t.TempDir() + "/r.keras"
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.CountParams() != r.CountParams() {
		t.Fatalf("loaded %d params, saved %d", back.CountParams(), r.CountParams())
	}
	for i, w := range back.Weights() {
		a, b := w.Numpy(), r.Weights()[i].Numpy()
		for j := range a {
			if a[j] != b[j] {
				t.Fatalf("%s differs after load", w.Name())
			}
		}
	}
}
