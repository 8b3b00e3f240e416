package keras

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gokeras/gokeras/internal/racetest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestLoadModelAllocatesTheWeightsOnce: loading a .keras or legacy .h5
// file of 24 MiB of weights allocates them about once (issue 30: it was
// the file's bytes, the decoded values and the variables at once, 3-6x
// in peak memory): bounded at 1.25x the weights plus 2 MiB for the
// config, the small datasets and tracing.
func TestLoadModelAllocatesTheWeightsOnce(t *testing.T) {
	racetest.Skip(t, "LoadModel's allocations, on one goroutine")
	layers.SetRandomSeed(1)
	m, err := NewSequential(
		layers.NewDense(1536, layers.WithInputShape(1024), layers.WithActivation("relu")),
		layers.NewDense(1536, layers.WithActivation("relu")),
		layers.NewDense(1536),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewSGD(), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	var weights uint64
	for _, v := range m.Weights() {
		weights += uint64(v.Shape().Size()) * 4
	}
	dir := t.TempDir()
	for _, name := range []string{"m.keras", "m.h5"} {
		path := filepath.Join(dir, name)
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		loaded, err := LoadModel(path)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		got := after.TotalAlloc - before.TotalAlloc
		if bound := weights*5/4 + 2<<20; got > bound {
			t.Errorf("%s: LoadModel allocated %d bytes for %d bytes of weights (bound %d)", name, got, weights, bound)
		}
		t.Logf("%s: %d bytes allocated for %d of weights (%.3fx)", name, got, weights, float64(got)/float64(weights))
		for i, v := range loaded.Weights() {
			w, g := m.Weights()[i].Data(0), v.Data(0)
			for j := range w {
				if w[j] != g[j] {
					t.Fatalf("%s: %s[%d] = %v, saved %v", name, v.Name(), j, g[j], w[j])
				}
			}
		}
	}
}
