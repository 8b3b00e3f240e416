package keras

import (
	"archive/zip"
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/mixedprecision"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// lsoTrained is a small model compiled under mixed_float16 (Compile
// wraps its Adam in a LossScaleOptimizer), trained two steps, the second
// overflowing float16 (skipped, the scale halved).
func lsoTrained(t testing.TB, train bool) (*Model, *optimizers.LossScaleOptimizer) {
	t.Helper()
	if err := mixedprecision.SetGlobalPolicy("mixed_float16"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mixedprecision.SetGlobal(mixedprecision.DTypePolicy{}) })
	m, err := NewSequential(layers.NewDense(3, layers.WithInputShape(2)), layers.NewDense(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(CompileConfig{Optimizer: optimizers.NewAdam(), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	lso := m.Optimizer().(*optimizers.LossScaleOptimizer)
	if train {
		x := tensor.New(tensor.WithShape(4, 2), tensor.WithBacking([]float32{0.01, 0.02, -0.01, 0.02, 1e5, 1, 0.5, -1}))
		y := tensor.New(tensor.WithShape(4, 1), tensor.WithBacking([]float32{0.01, 0, 0.01, 0}))
		if _, err := m.Fit(x, y, FitConfig{BatchSize: 2, NoShuffle: true, Verbose: VerboseSilent}); err != nil {
			t.Fatal(err)
		}
		if lso.DynamicScale() != 1<<14 {
			t.Fatalf("dynamic_scale %g after an overflow", lso.DynamicScale())
		}
	}
	return m, lso
}

// editH5 rewrites the weights file at path after edit changes its tree.
func editH5(t *testing.T, path string, edit func(root *hdf5.Group)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := hdf5.Decode(bytes.NewReader(b), int64(len(b)), hdf5.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	edit(root)
	var out bytes.Buffer
	if err := hdf5.Encode(&out, root); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// h5Vars is the group at path of root.
func h5Vars(t *testing.T, root *hdf5.Group, path string) *hdf5.Group {
	t.Helper()
	g, _, err := root.Lookup(path)
	if err != nil || g == nil {
		t.Fatalf("no group %s: %v", path, err)
	}
	return g
}

// setDataset replaces dataset name of g (removes it when d is nil).
func setDataset(g *hdf5.Group, name string, d *hdf5.Dataset) {
	var out []*hdf5.Dataset
	for _, x := range g.Datasets {
		if x.Name != name {
			out = append(out, x)
		}
	}
	if d != nil {
		d.Name = name
		out = append(out, d)
	}
	g.Datasets = out
}

// wantLSOError checks that err names the file and every one of want, and
// that the optimizer kept its state.
func wantLSOError(t *testing.T, what string, err error, lso *optimizers.LossScaleOptimizer, path string, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: loaded without an error", what)
		return
	}
	for _, w := range append([]string{path}, want...) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not name %q", what, err, w)
		}
	}
	if lso.DynamicScale() != 1<<15 || lso.StepCounter() != 0 {
		t.Errorf("%s: the failed load changed the loss scale to %g, counter %d", what, lso.DynamicScale(), lso.StepCounter())
	}
}

// TestLossScaleHostileWeightsFiles: a weights file whose LossScaleOptimizer
// state is wrong-shaped, missing, of the wrong type or out of range is an
// error naming the file and the variable (never a panic), and nothing is
// assigned.
func TestLossScaleHostileWeightsFiles(t *testing.T) {
	src, _ := lsoTrained(t, true)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.weights.h5")
	if err := src.SaveWeights(good); err != nil {
		t.Fatal(err)
	}
	const scale, counter = "loss_scale_optimizer/dynamic_scale", "loss_scale_optimizer/step_counter"
	cases := []struct {
		name string
		edit func(root *hdf5.Group)
		want []string
	}{
		{"scale of shape (2,)", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "optimizer/vars"), "3", &hdf5.Dataset{Shape: []int{2}, Value: []float32{1, 2}})
		}, []string{"optimizer/vars/3", scale, "expected shape ()"}},
		{"scale 0", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "optimizer/vars"), "3", &hdf5.Dataset{Value: []float32{0}})
		}, []string{"optimizer/vars/3", scale, "positive and finite"}},
		{"scale NaN", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "optimizer/vars"), "3", &hdf5.Dataset{Value: []float32{float32(math.NaN())}})
		}, []string{"optimizer/vars/3", scale, "positive and finite"}},
		{"scale -inf", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "optimizer/vars"), "3", &hdf5.Dataset{Value: []float64{math.Inf(-1)}})
		}, []string{"optimizer/vars/3", scale, "positive and finite"}},
		{"scale as int64", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "optimizer/vars"), "3", &hdf5.Dataset{Value: []int64{7}})
		}, []string{"optimizer/vars/3", scale}},
		{"scale missing", func(r *hdf5.Group) {
			g := h5Vars(t, r, "optimizer/vars")
			n := len(g.Datasets)
			for i := 4; i < n; i++ { // shift the rest down over it
				d := *g.Dataset(strconv.Itoa(i))
				setDataset(g, strconv.Itoa(i-1), &d)
			}
			setDataset(g, strconv.Itoa(n-1), nil)
		}, []string{"optimizer/vars/3", scale, "missing"}},
		{"scale renamed", func(r *hdf5.Group) {
			g := h5Vars(t, r, "optimizer/vars")
			d := g.Dataset("3")
			setDataset(g, "3", nil)
			setDataset(g, "99", d)
		}, []string{"optimizer/vars", `no dataset "3"`, scale}},
		{"counter negative", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "optimizer/vars"), "2", &hdf5.Dataset{Value: []int64{-1}})
		}, []string{"optimizer/vars/2", counter}},
		{"counter fractional", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "optimizer/vars"), "2", &hdf5.Dataset{Value: []float32{1.5}})
		}, []string{"optimizer/vars/2", counter}},
		{"counter of shape (1,)", func(r *hdf5.Group) {
			setDataset(h5Vars(t, r, "optimizer/vars"), "2", &hdf5.Dataset{Shape: []int{1}, Value: []int64{1}})
		}, []string{"optimizer/vars/2", counter}},
	}
	for _, c := range cases {
		for _, untrained := range []bool{false, true} {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".weights.h5")
			b, _ := os.ReadFile(good)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			editH5(t, path, c.edit)
			dst, lso := lsoTrained(t, false)
			if untrained {
				wantLSOError(t, c.name+" (fresh optimizer)", dst.LoadWeights(path), lso, path, c.want...)
				continue
			}
			// The same file into the .keras archive a LoadModel reads.
			kpath := strings.TrimSuffix(path, ".weights.h5") + ".keras"
			if err := dst.Save(kpath); err != nil {
				t.Fatal(err)
			}
			replaceArchiveWeights(t, kpath, path)
			_, err := LoadModel(kpath)
			if err == nil {
				t.Errorf("%s: LoadModel loaded it", c.name)
			} else if !strings.Contains(err.Error(), kpath) || !strings.Contains(err.Error(), c.want[0]) {
				t.Errorf("%s: LoadModel: %v", c.name, err)
			}
		}
	}
}

// replaceArchiveWeights puts the weights file h5 in the .keras archive at
// path as its model.weights.h5.
func replaceArchiveWeights(t *testing.T, path, h5 string) {
	t.Helper()
	w, err := os.ReadFile(h5)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	var members []rawMember
	for _, f := range zr.File {
		data := w
		if f.Name != "model.weights.h5" {
			rc, _ := f.Open()
			data, err = io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		members = append(members, rawMember{name: f.Name, data: data, method: zip.Store})
	}
	zr.Close()
	if err := os.WriteFile(path, hostileZip(t, members...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLossScaleHostileCheckpoints: a Fit checkpoint (SaveCheckpoint) or a
// Checkpoint whose loss scale is missing, wrong-shaped or not positive is
// an error naming the file and the variable, and nothing is assigned.
func TestLossScaleHostileCheckpoints(t *testing.T) {
	src, _ := lsoTrained(t, true)
	dir := t.TempDir()
	fitCkpt := filepath.Join(dir, "fit.npz")
	if err := src.SaveCheckpoint(fitCkpt); err != nil {
		t.Fatal(err)
	}
	objCkpt := filepath.Join(dir, "obj.npz")
	if err := NewCheckpoint(src, src.Optimizer()).Write(objCkpt); err != nil {
		t.Fatal(err)
	}
	type edit struct {
		key   string
		shape []int
		vals  []float32 // nil: remove the array
	}
	cases := []struct {
		name string
		file string
		e    edit
		want []string
	}{
		{"fit: scale (2,)", fitCkpt, edit{"optimizer/vars/3", []int{2}, []float32{1, 2}}, []string{"optimizer/vars/3", "dynamic_scale"}},
		{"fit: scale 0", fitCkpt, edit{"optimizer/vars/3", nil, []float32{0}}, []string{"optimizer/vars/3", "dynamic_scale", "positive and finite"}},
		{"fit: scale inf", fitCkpt, edit{"optimizer/vars/3", nil, []float32{float32(math.Inf(1))}}, []string{"optimizer/vars/3", "dynamic_scale", "positive and finite"}},
		{"fit: scale missing", fitCkpt, edit{"optimizer/vars/3", nil, nil}, []string{"optimizer/vars/3", "dynamic_scale", "missing"}},
		{"fit: counter fractional", fitCkpt, edit{"optimizer/vars/2", nil, []float32{0.5}}, []string{"optimizer/vars/2"}},
		{"object: scale (2,)", objCkpt, edit{ckptDynamicScaleKey, []int{2}, []float32{1, 2}}, []string{ckptDynamicScaleKey, "dynamic_scale"}},
		{"object: scale NaN", objCkpt, edit{ckptDynamicScaleKey, nil, []float32{float32(math.NaN())}}, []string{ckptDynamicScaleKey, "positive and finite"}},
		{"object: scale missing", objCkpt, edit{ckptDynamicScaleKey, nil, nil}, []string{ckptDynamicScaleKey, "missing"}},
		{"object: counter missing", objCkpt, edit{ckptStepCounterKey, nil, nil}, []string{ckptStepCounterKey, "missing"}},
		{"object: counter negative", objCkpt, edit{ckptStepCounterKey, nil, []float32{-2}}, []string{ckptStepCounterKey, "step_counter"}},
	}
	for i, c := range cases {
		path := filepath.Join(dir, "case"+strconv.Itoa(i)+".npz")
		rewriteNPZ(t, c.file, path, c.e.key, c.e.shape, c.e.vals)
		dst, lso := lsoTrained(t, false)
		var err error
		if c.file == fitCkpt {
			_, err = dst.RestoreCheckpoint(path)
		} else {
			err = NewCheckpoint(dst, dst.Optimizer()).Restore(path)
		}
		wantLSOError(t, c.name, err, lso, path, c.want...)
	}
}

// rewriteNPZ copies the checkpoint src to dst (with fresh checksums),
// replacing array key by vals of shape (removing it when vals is nil).
func rewriteNPZ(t *testing.T, src, dst, key string, shape []int, vals []float32) {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r, err := newNPZReader(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := newNPZWriter(&buf).checksummed()
	found := false
	for _, k := range r.keys {
		if k == checksumKey {
			continue
		}
		if k == key {
			found = true
			if vals != nil {
				if err := w.addFloat32(k, shape, vals); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		a, err := r.read(k, func([]int) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case a.kind == 'i':
			v, _ := a.int64s()
			err = w.addInt64(k, a.shape, v)
		case a.size == 8:
			v, _ := a.float64s()
			err = w.addFloat64(k, a.shape, v)
		default:
			v, _ := a.float32s()
			err = w.addFloat32(k, a.shape, v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("%s has no array %s (has %v)", src, key, r.keys)
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLossScaleFileOfAnotherOptimizer: a weights file saved with a
// LossScaleOptimizer loads into a float32 model compiled with the bare
// inner optimizer, and one saved without into a mixed_float16 model, as
// in Keras: the weights load, the optimizer's variables are skipped with
// a warning (their count differs), the loss scale stays as it was.
func TestLossScaleFileOfAnotherOptimizer(t *testing.T) {
	src, _ := lsoTrained(t, true)
	dir := t.TempDir()
	lsoFile := filepath.Join(dir, "lso.weights.h5")
	if err := src.SaveWeights(lsoFile); err != nil {
		t.Fatal(err)
	}
	mixedprecision.SetGlobal(mixedprecision.DTypePolicy{})
	plain, err := NewSequential(layers.NewDense(3, layers.WithInputShape(2)), layers.NewDense(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Compile(CompileConfig{Optimizer: optimizers.NewAdam(), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	if err := plain.LoadWeights(lsoFile); err != nil {
		t.Fatalf("a LossScaleOptimizer's file into a bare Adam: %v", err)
	}
	for i, w := range plain.Weights() {
		if !slicesEqual(w.Numpy(), src.Weights()[i].Numpy()) {
			t.Errorf("weight %s not loaded", w.Name())
		}
	}
	x := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{0.1, 0.2, 0.3, 0.4}))
	y := tensor.New(tensor.WithShape(2, 1), tensor.WithBacking([]float32{0, 1}))
	if _, err := plain.Fit(x, y, FitConfig{BatchSize: 2, Verbose: VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	plainFile := filepath.Join(dir, "plain.weights.h5")
	if err := plain.SaveWeights(plainFile); err != nil {
		t.Fatal(err)
	}
	dst, lso := lsoTrained(t, false)
	if err := dst.LoadWeights(plainFile); err != nil {
		t.Fatalf("a bare Adam's file into a LossScaleOptimizer: %v", err)
	}
	if lso.DynamicScale() != 1<<15 || lso.StepCounter() != 0 || lso.Iterations() != 0 {
		t.Errorf("loss scale %g, counter %d, iterations %d after a file without them", lso.DynamicScale(), lso.StepCounter(), lso.Iterations())
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
