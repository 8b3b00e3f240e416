package keras_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// lsoBatches are the vectors' examples (testdata/keras/mixed_float16_lso.json)
// as Fit's x and y: four batches of 2, the second beyond float16's range.
func lsoBatches(t *testing.T, ref lsoKeras) (x, y *tensor.Dense) {
	t.Helper()
	return tensor.New(tensor.WithShape(len(ref.X)/3, 3), tensor.WithBacking(append([]float32(nil), ref.X...))),
		tensor.New(tensor.WithShape(len(ref.Y)/2, 2), tensor.WithBacking(append([]float32(nil), ref.Y...)))
}

// lsoSnapshot is every weight and every optimizer variable of m, with the
// loss scale's state, bitwise.
type lsoSnapshot struct {
	Weights, OptVars [][]uint32
	Iterations       int64
	Counter          int64
	Scale            float64
}

func bitsOf(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, f := range v {
		out[i] = math.Float32bits(f)
	}
	return out
}

func snapshotLSO(t *testing.T, m *keras.Model) lsoSnapshot {
	t.Helper()
	lso, ok := m.Optimizer().(*optimizers.LossScaleOptimizer)
	if !ok {
		t.Fatalf("optimizer %T, want a LossScaleOptimizer", m.Optimizer())
	}
	var s lsoSnapshot
	for _, w := range m.Weights() {
		s.Weights = append(s.Weights, bitsOf(w.Numpy()))
	}
	for _, v := range lso.Variables() {
		s.OptVars = append(s.OptVars, bitsOf(v.Numpy()))
	}
	s.Iterations, s.Counter, s.Scale = lsoState(lso)
	return s
}

func compareLSO(t *testing.T, what string, got, want lsoSnapshot) {
	t.Helper()
	if got.Iterations != want.Iterations || got.Counter != want.Counter || got.Scale != want.Scale {
		t.Errorf("%s: iterations %d, step_counter %d, dynamic_scale %g; want %d, %d, %g", what, got.Iterations, got.Counter, got.Scale, want.Iterations, want.Counter, want.Scale)
	}
	if !reflect.DeepEqual(got.Weights, want.Weights) {
		t.Errorf("%s: weights differ", what)
	}
	if !reflect.DeepEqual(got.OptVars, want.OptVars) {
		t.Errorf("%s: optimizer variables differ (%d, want %d)", what, len(got.OptVars), len(want.OptVars))
	}
}

// TestLossScaleStateResumes trains under mixed_float16 with a forced
// overflow (the scale is halved: not the initial one), saves the model in
// every format gokeras writes (.keras, .weights.h5, a Fit checkpoint, a
// tf.train.Checkpoint-style Checkpoint) and loads each into a fresh model
// compiled the same way: the loss scale, its finite-step counter, the
// step count, the inner optimizer's slots and the weights come back
// bitwise, and one more step from each equals the original's next step
// bitwise.
func TestLossScaleStateResumes(t *testing.T) {
	ref := readLSOKeras(t)
	x, y := lsoBatches(t, ref)
	m, lso := lsoModel(t)
	quiet := keras.FitConfig{BatchSize: 2, NoShuffle: true, Verbose: keras.VerboseSilent}
	if _, err := m.Fit(x, y, quiet); err != nil {
		t.Fatal(err)
	}
	if s := lso.DynamicScale(); s != 1<<14 {
		t.Fatalf("dynamic_scale %g after the overflow, want 16384", s)
	}
	saved := snapshotLSO(t, m)

	dir := t.TempDir()
	type format struct {
		name string
		save func(string) error
		load func(string) (*keras.Model, error)
	}
	compiled := func(load func(*keras.Model, string) error) func(string) (*keras.Model, error) {
		return func(p string) (*keras.Model, error) {
			back, _ := lsoModel(t)
			return back, load(back, p)
		}
	}
	formats := []format{
		{"m.keras", m.Save, keras.LoadModel},
		{"m.weights.h5", m.SaveWeights, compiled((*keras.Model).LoadWeights)},
		{"m.npz", m.SaveCheckpoint, compiled(func(b *keras.Model, p string) error { _, err := b.RestoreCheckpoint(p); return err })},
		{"ckpt.npz", func(p string) error { return keras.NewCheckpoint(m, m.Optimizer()).Write(p) }, compiled(func(b *keras.Model, p string) error {
			return keras.NewCheckpoint(b, b.Optimizer()).Restore(p)
		})},
	}
	for _, f := range formats {
		if err := f.save(filepath.Join(dir, f.name)); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	// One more step of the original: the first batch.
	x1 := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(append([]float32(nil), ref.X[:6]...)))
	y1 := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking(append([]float32(nil), ref.Y[:4]...)))
	if _, err := m.Fit(x1, y1, quiet); err != nil {
		t.Fatal(err)
	}
	next := snapshotLSO(t, m)
	if next.Counter != saved.Counter+1 || next.Iterations != saved.Iterations+1 {
		t.Fatalf("the extra step: step_counter %d, iterations %d after %d, %d", next.Counter, next.Iterations, saved.Counter, saved.Iterations)
	}
	for _, f := range formats {
		back, err := f.load(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		compareLSO(t, f.name+": loaded", snapshotLSO(t, back), saved)
		if _, err := back.Fit(x1, y1, quiet); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		compareLSO(t, f.name+": one more step", snapshotLSO(t, back), next)
	}
}

// TestLossScaleBackupAndRestore interrupts a mixed_float16 Fit whose every
// epoch overflows once (the scale halves each epoch) and resumes it in a
// fresh model with BackupAndRestore: it ends where the uninterrupted run
// does, loss scale, step counter, slots and weights bitwise.
func TestLossScaleBackupAndRestore(t *testing.T) {
	ref := readLSOKeras(t)
	x, y := lsoBatches(t, ref)
	const epochs = 3
	cfg := func(cbs ...keras.Callback) keras.FitConfig {
		return keras.FitConfig{Epochs: epochs, BatchSize: 2, NoShuffle: true, Verbose: keras.VerboseSilent, Callbacks: cbs}
	}
	layers.SetRandomSeed(5)
	whole, _ := lsoModel(t)
	if _, err := whole.Fit(x, y, cfg()); err != nil {
		t.Fatal(err)
	}
	want := snapshotLSO(t, whole)
	if want.Scale != 1<<15/8 {
		t.Fatalf("uninterrupted run: dynamic_scale %g, want 4096 (halved each epoch)", want.Scale)
	}

	dir := filepath.Join(t.TempDir(), "backup")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	epoch := -1
	stopper := &callbacks.LambdaCallback{
		EpochBegin: func(e int, _ keras.Logs) error { epoch = e; return nil },
		TrainBatchEnd: func(b int, _ keras.Logs) error {
			if epoch == 1 && b == 2 {
				cancel()
			}
			return nil
		},
	}
	layers.SetRandomSeed(5)
	m, _ := lsoModel(t)
	c := cfg(callbacks.NewBackupAndRestore(dir), stopper)
	c.Context = ctx
	if _, err := m.Fit(x, y, c); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Fit: %v", err)
	}
	resumed, _ := lsoModel(t)
	h, err := resumed.Fit(x, y, cfg(callbacks.NewBackupAndRestore(dir)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.Epoch, []int{1, 2}) {
		t.Errorf("resumed run ran epochs %v, want [1 2]", h.Epoch)
	}
	compareLSO(t, "resumed", snapshotLSO(t, resumed), want)
}
