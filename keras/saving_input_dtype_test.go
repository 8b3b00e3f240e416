package keras_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
)

// inputDtypes returns the dtype of each input of m.
func inputDtypes(m *keras.Model) []string {
	var ds []string
	for _, in := range m.Inputs() {
		ds = append(ds, in.Dtype())
	}
	return ds
}

// An Input's integer dtype survives Save and LoadModel (.keras and the
// legacy .h5), in functional and Sequential models, as Keras' InputLayer
// config records it.
func TestSaveInputDtype(t *testing.T) {
	build := map[string]func() (*keras.Model, error){
		"functional": func() (*keras.Model, error) {
			ids := layers.Input([]int{4}, layers.WithName("ids"), layers.WithDtype("int32"))
			x := layers.Input([]int{3}, layers.WithName("x"), layers.WithDtype("int64"))
			e := layers.Apply(layers.NewFlatten(), layers.Apply(layers.NewEmbedding(10, 2), ids))
			y := layers.Apply(layers.NewDense(2), x)
			return keras.NewModel([]*layers.KerasTensor{ids, x}, []*layers.KerasTensor{layers.Apply(layers.NewConcatenate(), e, y)})
		},
		"sequential": func() (*keras.Model, error) {
			return keras.NewSequential(layers.NewInputLayer([]int{4}, layers.WithDtype("int64")), layers.NewEmbedding(10, 2), layers.NewFlatten())
		},
	}
	for name, f := range build {
		for _, ext := range []string{".keras", ".h5"} {
			layers.ClearSession()
			m, err := f()
			if err != nil {
				t.Fatal(err)
			}
			want := inputDtypes(m)
			path := filepath.Join(t.TempDir(), "m"+ext)
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			back, err := keras.LoadModel(path)
			if err != nil {
				t.Fatalf("%s %s: %v", name, ext, err)
			}
			if got := inputDtypes(back); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s: input dtypes %v after loading, %v saved", name, ext, got, want)
			}
		}
	}
}
