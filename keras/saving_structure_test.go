package keras

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// Names from Keras' naming.to_snake_case (keras 3.15.1), which names the
// objects of a container in a weights file.
func TestKerasSnake(t *testing.T) {
	for class, want := range map[string]string{
		"Conv2D": "conv2d", "MaxPooling2D": "max_pooling2d", "ReLU": "re_lu", "PReLU": "p_re_lu",
		"BatchNormalization": "batch_normalization", "GlobalAveragePooling2D": "global_average_pooling2d",
		"InputLayer": "input_layer", "LSTM": "lstm", "DepthwiseConv2D": "depthwise_conv2d",
		"Conv1DTranspose": "conv1d_transpose", "ELU": "elu", "LeakyReLU": "leaky_re_lu",
		"Sequential": "sequential", "Functional": "functional", "RMSprop": "rm_sprop",
	} {
		if got := kerasSnake(class); got != want {
			t.Errorf("kerasSnake(%q) = %q, Keras %q", class, got, want)
		}
	}
}

type kerasH5Entry struct {
	Path  string
	Group bool
	Name  string
	Shape []int
	Dtype string
}

// TestInteropStructureMatchesKeras compares, object for object, the paths
// and shapes gokeras gives the variables of the interop models with the
// model.weights.h5 that Keras itself wrote for the same models
// (interop_vectors.py lists every group and dataset of it in cases.json).
func TestInteropStructureMatchesKeras(t *testing.T) {
	type h5Case struct {
		Name string
		H5   []kerasH5Entry
	}
	for _, c := range kerasvectors.Read[h5Case](t, "testdata/interop/cases.json") {
		t.Run(c.Name, func(t *testing.T) {
			m := interopModels[c.Name](t)
			keras := map[string]kerasH5Entry{}
			optVars := 0
			for _, e := range c.H5 {
				keras[e.Path] = e
				if !e.Group && strings.HasPrefix(e.Path, "optimizer/") {
					optVars++
				}
			}
			if len(keras) == 0 {
				t.Fatal("no Keras listing")
			}
			if optVars > 2 { // Keras' optimizer was built: train ours too
				ioTrain(t, m, c.Name, rand.New(rand.NewPCG(1, 2)))
			}
			ours := map[string]kerasH5Entry{}
			entries, err := m.structure(true)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				p := e.varsPath()
				for i := range strings.Split(p, "/") {
					prefix := strings.Join(strings.Split(p, "/")[:i+1], "/")
					if _, ok := ours[prefix]; !ok {
						ours[prefix] = kerasH5Entry{Path: prefix, Group: true}
					}
				}
				for i, v := range e.vars {
					dt := "float32"
					if v.kind == kindIterations {
						dt = "int64"
					}
					ours[p+"/"+strconv.Itoa(i)] = kerasH5Entry{Path: p + "/" + strconv.Itoa(i), Shape: v.shape, Dtype: dt}
				}
			}
			var paths []string
			for p := range keras {
				paths = append(paths, p)
			}
			for p := range ours {
				if _, ok := keras[p]; !ok {
					paths = append(paths, p)
				}
			}
			sort.Strings(paths)
			datasets := 0
			for _, p := range paths {
				k, inK := keras[p]
				o, inO := ours[p]
				switch {
				case !inO:
					t.Errorf("Keras has %s %+v, gokeras not", p, k)
				case !inK:
					t.Errorf("gokeras has %s %+v, Keras not", p, o)
				case k.Group != o.Group || !slices.Equal(normShape(k.Shape), normShape(o.Shape)) || k.Dtype != o.Dtype:
					t.Errorf("%s: gokeras %+v, Keras %+v", p, o, k)
				case !k.Group:
					datasets++
				}
			}
			t.Logf("%d paths, %d datasets as Keras writes them", len(paths), datasets)
		})
	}
}

// TestLoadWeightsIntoRebuiltModel is the notebook cell run twice: a model
// built again in the same process (its layers get new names, dense_2 and
// dense_3) loads the weights of the equal model saved a moment before.
func TestLoadWeightsIntoRebuiltModel(t *testing.T) {
	x, y := svData(16, []int{4}, 3, 1)
	a := svMLP(t, 1)
	svCompile(t, a, optimizers.NewAdam())
	svFit(t, a, x, y, 1, 0)
	dir := t.TempDir()
	for _, name := range []string{"w.weights.npz", "ckpt.npz"} {
		path := filepath.Join(dir, name)
		var err error
		if name == "ckpt.npz" {
			err = a.SaveCheckpoint(path)
		} else {
			err = a.SaveWeights(path)
		}
		if err != nil {
			t.Fatal(err)
		}
		b := MustSequential(layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)), layers.NewDense(3))
		if b.Layers()[0].Name() == a.Layers()[0].Name() {
			t.Fatalf("rebuilt layers reuse the names %s", b.Layers()[0].Name())
		}
		if name == "ckpt.npz" {
			svCompile(t, b, optimizers.NewAdam())
			if _, err := b.RestoreCheckpoint(path); err != nil {
				t.Fatal(err)
			}
			if b.Optimizer().Iterations() != a.Optimizer().Iterations() {
				t.Errorf("iterations %d, want %d", b.Optimizer().Iterations(), a.Optimizer().Iterations())
			}
		} else if err := b.LoadWeights(path); err != nil {
			t.Fatal(err)
		}
		wa, wb := a.Weights(), b.Weights()
		for i := range wa {
			if !slices.Equal(wa[i].Numpy(), wb[i].Numpy()) {
				t.Errorf("%s: %s (loaded into %s) differs", name, wa[i].Name(), wb[i].Name())
			}
		}
	}
}

// A weights file of another architecture is an error naming the first
// object that differs, with both shapes.
func TestLoadWeightsOtherArchitecture(t *testing.T) {
	a := svMLP(t, 1)
	path := filepath.Join(t.TempDir(), "a.weights.npz")
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	wider := MustSequential(layers.NewDense(8, layers.WithInputShape(4)), layers.NewDense(5))
	err := wider.LoadWeights(path)
	if err == nil || !strings.Contains(err.Error(), "layers/dense_1/vars/0") || !strings.Contains(err.Error(), "expected shape (8, 5), the file has (8, 3)") {
		t.Errorf("got %v", err)
	}
}

// The same through Keras 3's .weights.h5 files: a shape, a layer the file
// lacks, and a layer the model lacks.
func TestLoadWeightsH5OtherArchitecture(t *testing.T) {
	a := svMLP(t, 1)
	path := filepath.Join(t.TempDir(), "a.weights.h5")
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    *Model
		want string
	}{
		{MustSequential(layers.NewDense(8, layers.WithInputShape(4)), layers.NewDense(5)), "layers/dense_1/vars/0: expected shape (8, 5), the file has (8, 3)"},
		{MustSequential(layers.NewDense(8, layers.WithInputShape(4)), layers.NewDense(3), layers.NewDense(2)), "layers/dense_2/vars: layer"},
		{MustSequential(layers.NewDense(8, layers.WithInputShape(4))), "layers/dense_1/vars: the file holds variables for which model"},
		{MustSequential(layers.NewDense(8, layers.WithInputShape(4)), layers.NewBatchNormalization(), layers.NewDense(3)), "layers/batch_normalization/vars: layer"},
	} {
		before := c.m.Weights()[0].Numpy()
		err := c.m.LoadWeights(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		if !slices.Equal(before, c.m.Weights()[0].Numpy()) {
			t.Error("a failed LoadWeights assigned weights")
		}
	}
}
