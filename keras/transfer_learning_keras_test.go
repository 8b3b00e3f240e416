package keras_test

import (
	"math"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// transferWeight is one weight of testdata/keras/transfer_learning.json.
type transferWeight struct {
	Shape  []int
	Values []float32
}

// transferCase is one case of testdata/keras/transfer_learning.json,
// written by tools/keras_reference/transfer_vectors.py from Keras 3.
type transferCase struct {
	Name          string
	X, Y          []float32
	N, Dim, Units int
	Initial       map[string]transferWeight
	Phases        []transferPhase
}

type transferPhase struct {
	BaseTrainable bool    `json:"base_trainable"`
	LearningRate  float64 `json:"learning_rate"`
	Trainable     []string
	NonTrainable  []string `json:"non_trainable"`
	Loss          float64
	Weights       map[string]transferWeight
}

// Transfer learning as Keras' guide does it, against Keras 3: a
// pretrained base of Dense and BatchNormalization frozen under a new
// head, trained, then unfrozen and fine-tuned. A frozen
// BatchNormalization runs in inference mode (its moving statistics do not
// move), unfreezing leaves the moving statistics non-trainable, and a base
// called with training false stays in inference mode after it is
// unfrozen: trainable lists, losses and every weight after each phase
// equal Keras'.
func TestTransferLearningMatchesKeras(t *testing.T) {
	for _, c := range kerasvectors.Read[transferCase](t, "testdata/keras/transfer_learning.json") {
		t.Run(c.Name, func(t *testing.T) {
			layers.ClearSession()
			dense := layers.NewDense(c.Units, layers.WithName("base_dense"))
			bn := layers.NewBatchNormalization(layers.WithName("base_bn"))
			head := layers.NewDense(1, layers.WithName("head"))
			var model, base *keras.Model
			var err error
			if c.Name == "bn_only" {
				model, err = keras.NewSequential(layers.NewInputLayer([]int{c.Dim}), dense, bn, head)
			} else {
				base, err = keras.NewSequential(layers.NewInputLayer([]int{c.Dim}), dense, bn)
				if err != nil {
					t.Fatal(err)
				}
				in := layers.Input([]int{c.Dim})
				h := base.Apply(in)
				if c.Name == "training_false" {
					h = base.ApplyTraining(false, in)
				}
				model, err = keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{layers.Apply(head, h)})
			}
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]*ops.Variable{}
			for _, v := range model.Weights() {
				byName[v.Name()] = v
			}
			for name, w := range c.Initial {
				v := byName[name]
				if v == nil {
					t.Fatalf("no weight %q in the model (have %v)", name, weightNames(model.Weights()))
				}
				v.Assign(w.Values)
			}
			x := tensor.New(tensor.WithShape(c.N, c.Dim), tensor.WithBacking(slices.Clone(c.X)))
			y := tensor.New(tensor.WithShape(c.N, 1), tensor.WithBacking(slices.Clone(c.Y)))
			for i, p := range c.Phases {
				if base != nil {
					base.SetTrainable(p.BaseTrainable)
				} else {
					bn.SetTrainable(p.BaseTrainable)
				}
				if err := model.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(p.LearningRate)), Loss: "mse"}); err != nil {
					t.Fatal(err)
				}
				if got, want := sorted(weightNames(model.TrainableVariables())), sorted(p.Trainable); !slices.Equal(got, want) {
					t.Errorf("phase %d: trainable %v, Keras %v", i, got, want)
				}
				if got, want := sorted(weightNames(model.NonTrainableVariables())), sorted(p.NonTrainable); !slices.Equal(got, want) {
					t.Errorf("phase %d: non-trainable %v, Keras %v", i, got, want)
				}
				hist, err := model.Fit(x, y, keras.FitConfig{BatchSize: 8, NoShuffle: true, Verbose: keras.VerboseSilent})
				if err != nil {
					t.Fatal(err)
				}
				if got := hist.History["loss"][0]; math.Abs(got-p.Loss) > 1e-5*math.Max(1, math.Abs(p.Loss)) {
					t.Errorf("phase %d: loss %v, Keras %v", i, got, p.Loss)
				}
				for name, w := range p.Weights {
					got := byName[name].Numpy()
					for j, want := range w.Values {
						if d := math.Abs(float64(got[j] - want)); d > 1e-5*math.Max(1, math.Abs(float64(want))) {
							t.Errorf("phase %d: %s[%d] = %v, Keras %v", i, name, j, got[j], want)
							break
						}
					}
				}
			}
		})
	}
}

func weightNames(vs []*ops.Variable) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name()
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// A call made with training false keeps it through a save: the config
// carries Keras 3's kwargs {"training": false} and the loaded model's
// node has it.
func TestApplyTrainingSaved(t *testing.T) {
	base, err := keras.NewSequential(layers.NewInputLayer([]int{3}), layers.NewBatchNormalization())
	if err != nil {
		t.Fatal(err)
	}
	in := layers.Input([]int{3})
	out := layers.Apply(layers.NewDense(1), base.ApplyTraining(false, in))
	m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/m.keras"
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, o := range back.Outputs() {
		n := o.Node().Inputs[0].Node()
		if n.Training == nil || *n.Training {
			t.Errorf("loaded node of %q has training %v, want false", n.Layer.Name(), n.Training)
		}
		found = true
	}
	if !found {
		t.Fatal("no output")
	}
}

// A call made with training true (as Keras 3 saves an augmentation layer
// called on a functional model's input) does not make Predict random:
// Keras 3.15.1's predict of Dropout(0.5)(inp, training=True) on ones
// returns the ones (its functional call passes training=False over the
// node's kwarg); in training mode the call drops.
func TestApplyTrainingTrueIsInferenceInPredict(t *testing.T) {
	in := layers.Input([]int{64})
	out := layers.ApplyTraining(layers.NewDropout(0.5, layers.WithSeed(3)), true, in)
	m, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]float32, 2*64)
	for i := range ones {
		ones[i] = 1
	}
	x := tensor.New(tensor.WithShape(2, 64), tensor.WithBacking(ones))
	for _, run := range []struct {
		name string
		f    func() (*tensor.Dense, error)
	}{
		{"saved model", func() (*tensor.Dense, error) { return m.Predict(x, keras.PredictConfig{Verbose: 0}) }},
		{"loaded model", func() (*tensor.Dense, error) {
			path := t.TempDir() + "/m.keras"
			if err := m.Save(path); err != nil {
				return nil, err
			}
			back, err := keras.LoadModel(path)
			if err != nil {
				return nil, err
			}
			return back.Predict(x, keras.PredictConfig{Verbose: 0})
		}},
	} {
		y, err := run.f()
		if err != nil {
			t.Fatalf("%s: %v", run.name, err)
		}
		for i, v := range y.Data().([]float32) {
			if v != 1 {
				t.Fatalf("%s: Predict output %d = %v, want 1 (inference)", run.name, i, v)
			}
		}
	}
	v, err := m.CallEager(x, true)
	if err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for _, e := range v.Float32s() {
		if e == 0 {
			dropped++
		}
	}
	if dropped == 0 || dropped == 128 {
		t.Errorf("in training mode the call dropped %d of 128, want some", dropped)
	}
}
