package keras

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/keras/layers"
)

// TestIntegerWeightsLoad: Normalization's count, which Keras' files hold
// as an int64 (EfficientNet's ImageNet weights), loads into its float32
// variable; an integer dataset for any other variable, or a count beyond
// 2^24, is still refused by name. (Keras' own files of both formats:
// keras/applications' TestNormalizationCountLoads.)
func TestIntegerWeightsLoad(t *testing.T) {
	build := func() (*Model, *layers.Normalization) {
		layers.ClearSession()
		in := layers.Input([]int{2, 3})
		norm := layers.NewNormalization(layers.NormalizationSettings{})
		out := layers.Apply(layers.NewDense(2), layers.Apply(norm, in))
		m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
		if err != nil {
			t.Fatal(err)
		}
		return m, norm
	}
	src, _ := build()
	path := filepath.Join(t.TempDir(), "norm.weights.h5")
	if err := src.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	editH5(t, path, func(r *hdf5.Group) {
		setDataset(h5Vars(t, r, "layers/normalization/vars"), "2", &hdf5.Dataset{Value: []int64{96}})
	})
	dst, norm := build()
	if err := dst.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	if got := norm.Count.Numpy()[0]; got != 96 {
		t.Errorf("count %v, want 96", got)
	}
	for _, c := range []struct {
		name string
		edit func(r *hdf5.Group)
		want string
	}{
		{"count beyond 2^24", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "layers/normalization/vars"), "2", &hdf5.Dataset{Value: []int64{1<<24 + 1}})
		}, "beyond 2^24"},
		{"integer bias", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "layers/dense/vars"), "1", &hdf5.Dataset{Shape: []int{2}, Value: []int64{1, 2}})
		}, "where floats are expected"},
	} {
		bad := filepath.Join(t.TempDir(), "bad.weights.h5")
		if err := src.SaveWeights(bad); err != nil {
			t.Fatal(err)
		}
		editH5(t, bad, c.edit)
		m, _ := build()
		if err := m.LoadWeights(bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
