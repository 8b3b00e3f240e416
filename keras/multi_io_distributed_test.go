package keras_test

import (
	"fmt"
	"testing"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// The two-input two-output model with per-output sample weights trains
// on 2 replicas of a MirroredStrategy as on 1, and both as Keras 3 on
// one device: the History (per-output losses included, whose batches
// weigh the same whatever their size) and the trained weights.
func TestMultiIOMirroredMatchesKeras(t *testing.T) {
	var c multiIOCase
	for _, k := range kerasvectors.Read[multiIOCase](t, "testdata/multi_io/multi_io.json") {
		if k.Name == "list_sample_weight" {
			c = k
		}
	}
	if c.Name == "" {
		t.Fatal("no case list_sample_weight")
	}
	n := len(c.YA)
	d := func(v []float32, shape ...int) *tensor.Dense {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float32(nil), v...)))
	}
	prev := len(distribute.ListLogicalDevices("CPU"))
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = distribute.SetLogicalCPUs(max(prev, 1)) })
	for _, replicas := range []int{1, 2} {
		t.Run(fmt.Sprint(replicas), func(t *testing.T) {
			devs := make([]string, replicas)
			for i := range devs {
				devs[i] = fmt.Sprintf("/cpu:%d", i)
			}
			s, err := distribute.NewMirroredStrategy(devs...)
			if err != nil {
				t.Fatal(err)
			}
			layers.ClearSession()
			exit := s.Scope()
			m := twoInTwoOut(t)
			setLayerWeights(t, m, c.InitialWeights)
			err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(c.LR)),
				Loss: []any{"sparse_categorical_crossentropy", "mse"}, LossWeights: []float64{1, 0.5},
				Metrics: []any{[]any{"accuracy"}, []any{"mae"}}, WeightedMetricsByOutput: map[string][]any{"out_b": {"mse"}}})
			exit()
			if err != nil {
				t.Fatal(err)
			}
			h, err := m.Fit([]*tensor.Dense{d(c.XA, n, 4), d(c.XB, n, 3)}, []*tensor.Dense{d(c.YA, n), d(c.YB, n, 1)}, keras.FitConfig{
				Epochs: c.Epochs, BatchSize: c.BatchSize, NoShuffle: true, Verbose: keras.VerboseSilent,
				SampleWeight: map[string]*tensor.Dense{"out_a": d(c.SampleWeightA, n), "out_b": d(c.SampleWeightB, n)},
				ValidationData: []any{
					[]*tensor.Dense{d(c.ValXA, len(c.ValYA), 4), d(c.ValXB, len(c.ValYA), 3)},
					[]*tensor.Dense{d(c.ValYA, len(c.ValYA)), d(c.ValYB, len(c.ValYA), 1)},
				}})
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range c.History {
				for e := range want {
					if got := h.History[k]; len(got) != len(want) || !closeRel(got[e], want[e], 2e-5) {
						t.Errorf("%d replicas: history %s = %v, Keras %v", replicas, k, got, want)
						break
					}
				}
			}
			for _, l := range m.Layers() {
				want, ok := c.FinalWeights[l.Name()]
				if !ok {
					continue
				}
				for i, v := range l.Weights() {
					for j, g := range v.Numpy() {
						if !closeRel(float64(g), float64(want[i][j]), 2e-5) {
							t.Errorf("%d replicas: %s weight %d[%d] = %v, Keras %v", replicas, l.Name(), i, j, g, want[i][j])
							break
						}
					}
				}
			}
		})
	}
}
