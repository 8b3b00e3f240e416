package keras

import (
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
)

// TestLegacyH5ResumesOptimizer: a model trained two steps and saved as a
// legacy .h5 loads with its optimizer's state (optimizer_weights), so one
// more step from the file equals one more step of the original, for
// every optimizer of the interop set. Before, the file held no
// optimizer state and the loaded model restarted at iteration 0.
func TestLegacyH5ResumesOptimizer(t *testing.T) {
	var names []string
	for n := range interopOptimizers {
		names = append(names, n)
	}
	sort.Strings(names)
	for k, name := range names {
		t.Run(name, func(t *testing.T) {
			layers.SetRandomSeed(uint64(k + 1))
			m := ioMLP(t, interopOptimizers[name]())
			r := rand.New(rand.NewPCG(uint64(k+1), 7))
			ioTrain(t, m, "mlp", r)
			path := filepath.Join(t.TempDir(), "m.h5")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			loaded, err := LoadModel(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := loaded.Optimizer().Iterations(), m.Optimizer().Iterations(); got != want || got == 0 {
				t.Fatalf("iterations %d after loading, want %d", got, want)
			}
			x, y := ioBatch(r, m, "mlp", 4)
			for _, mm := range []*Model{m, loaded} {
				if _, err := mm.Fit(x, y, FitConfig{Epochs: 1, BatchSize: 4, NoShuffle: true, Verbose: VerboseSilent}); err != nil {
					t.Fatal(err)
				}
			}
			for i, v := range m.Weights() {
				got, want := loaded.Weights()[i].Data(0), v.Data(0)
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("%s[%d] = %v after one more step from the file, %v from the original", v.Name(), j, got[j], want[j])
					}
				}
			}
		})
	}
}

// TestLegacyH5OptimizerWeightsLayout: the group Keras' legacy loader
// reads: weight_names in optimizer.variables order (iteration, learning
// rate, then the slots), each a dataset at that path.
func TestLegacyH5OptimizerWeightsLayout(t *testing.T) {
	layers.SetRandomSeed(3)
	m := ioMLP(t, interopOptimizers["sgd_momentum"]())
	ioTrain(t, m, "mlp", rand.New(rand.NewPCG(3, 3)))
	g, err := m.legacyOptimizerGroup()
	if err != nil {
		t.Fatal(err)
	}
	names, err := h5Strings(g, "weight_names")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2+4 || names[0] != "sgd/iteration" || names[1] != "sgd/learning_rate" {
		t.Fatalf("weight_names %q, want sgd/iteration, sgd/learning_rate and 4 momentums", names)
	}
	for _, n := range names {
		_, d, err := g.Lookup(n)
		if err != nil || d == nil {
			t.Fatalf("weight_names lists %q, which is not a dataset of the group", n)
		}
	}
	_, d, _ := g.Lookup(names[0])
	if it, ok := d.Value.([]int64); !ok || it[0] != m.Optimizer().Iterations() {
		t.Errorf("iteration dataset %v, want int64 %d", d.Value, m.Optimizer().Iterations())
	}
}
