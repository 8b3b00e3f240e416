package keras_test

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// vaeKerasCase is testdata/keras/vae_subclass.json, written by
// tools/keras_reference/subclass_vectors.py from Keras 3.
type vaeKerasCase struct {
	Name               string
	OriginalDim        int `json:"original_dim"`
	IntermediateDim    int `json:"intermediate_dim"`
	LatentDim          int `json:"latent_dim"`
	X                  []float32
	MeanReconstruction []float32 `json:"mean_reconstruction"`
	Weights            map[string]transferWeight
	ClassName          string `json:"class_name"`
}

// vaeMean is the VAE's deterministic part, decoder(z_mean(x)), over the
// layers of a vae (the call itself draws noise).
type vaeMean struct {
	*keras.Model
	encoder *encoder
	decoder *decoder
}

func (m *vaeMean) Call(in []ops.Tensor, training bool) ops.Tensor {
	h := layers.Call(m.encoder.denseProj, training, in[0])
	return layers.Call(m.decoder, training, layers.Call(m.encoder.denseMean, training, h))
}

// vaeVariables maps the paths of Keras' weights file to the vae's
// variables, field by field.
func vaeVariables(v *vae) map[string]*ops.Variable {
	out := map[string]*ops.Variable{}
	for prefix, l := range map[string]layers.Layer{
		"encoder/dense_proj": v.encoder.denseProj, "encoder/dense_mean": v.encoder.denseMean,
		"encoder/dense_log_var": v.encoder.denseLogVar, "decoder/dense_proj": v.decoder.denseProj,
		"decoder/dense_output": v.decoder.denseOutput,
	} {
		for i, w := range l.Weights() {
			out[prefix+"/vars/"+string(rune('0'+i))] = w
		}
	}
	return out
}

// datasetPaths lists the datasets of an HDF5 file by path.
func datasetPaths(t *testing.T, path string) []string {
	t.Helper()
	root, err := hdf5.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(prefix string, g *hdf5.Group)
	walk = func(prefix string, g *hdf5.Group) {
		for _, d := range g.Datasets {
			out = append(out, prefix+d.Name)
		}
		for _, s := range g.Groups {
			walk(prefix+s.Name+"/", s)
		}
	}
	walk("", root)
	slices.Sort(out)
	return out
}

// The guide's subclassed VAE trained in Keras 3 loads into the Go port:
// its .weights.h5 (the weights at Keras' attribute paths,
// "encoder/dense_proj/vars/0", at the file's root) and its .keras file
// (a registered subclass, built for its saved input shape); every weight
// equals Keras', decoder(z_mean(x)) equals Keras' within 1e-5, and the
// port, trained as Keras' was, saves the datasets Keras' file has (its
// layers' and Adam's), at the same paths.
func TestSubclassedVAEKerasFiles(t *testing.T) {
	for _, c := range kerasvectors.Read[vaeKerasCase](t, "testdata/keras/vae_subclass.json") {
		x := tensor.New(tensor.WithShape(len(c.X)/c.OriginalDim, c.OriginalDim), tensor.WithBacking(slices.Clone(c.X)))
		check := func(t *testing.T, v *vae) {
			t.Helper()
			vars := vaeVariables(v)
			if len(vars) != len(c.Weights) {
				t.Errorf("%d variables, Keras' file %d", len(vars), len(c.Weights))
			}
			for path, w := range c.Weights {
				got := vars[path]
				if got == nil {
					t.Errorf("no variable for Keras' %s", path)
					continue
				}
				if !slices.Equal(got.Numpy(), w.Values) {
					t.Errorf("%s (%s) differs from Keras'", path, got.Name())
				}
			}
			mm := &vaeMean{encoder: v.encoder, decoder: v.decoder}
			m, err := keras.Subclass(mm)
			if err != nil {
				t.Fatal(err)
			}
			p, err := m.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range p.Data().([]float32) {
				if want := c.MeanReconstruction[i]; math.Abs(float64(got-want)) > 1e-5 {
					t.Fatalf("decoder(z_mean(x))[%d] = %v, Keras %v", i, got, want)
				}
			}
		}
		t.Run("weights.h5", func(t *testing.T) {
			v := newVAE(t, c.OriginalDim, c.IntermediateDim, c.LatentDim)
			if _, err := v.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent}); err != nil {
				t.Fatal(err) // builds it
			}
			if err := v.LoadWeights("testdata/keras/vae_subclass.weights.h5"); err != nil {
				t.Fatal(err)
			}
			check(t, v)
			// Trained as Keras' was, its file holds the optimizer's too.
			if err := v.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(1e-3)), Loss: losses.NewMeanSquaredError()}); err != nil {
				t.Fatal(err)
			}
			if _, err := v.Fit(x, x, keras.FitConfig{BatchSize: 8, Verbose: keras.VerboseSilent}); err != nil {
				t.Fatal(err)
			}
			path := t.TempDir() + "/go.weights.h5"
			if err := v.SaveWeights(path); err != nil {
				t.Fatal(err)
			}
			if got, want := datasetPaths(t, path), datasetPaths(t, "testdata/keras/vae_subclass.weights.h5"); !slices.Equal(got, want) {
				t.Errorf("SaveWeights wrote\n%v\nKeras' file has\n%v", got, want)
			}
		})
		t.Run("keras", func(t *testing.T) {
			var made *vae
			keras.RegisterSubclass(c.ClassName, func(cfg map[string]any) (*keras.Model, error) {
				dim := func(k string) int { f, _ := cfg[k].(float64); return int(f) }
				made = newVAE(t, dim("original_dim"), dim("intermediate_dim"), dim("latent_dim"))
				return made.Model, nil
			})
			m, err := keras.LoadModel("testdata/keras/vae_subclass.keras")
			if err != nil {
				t.Fatal(err)
			}
			if made == nil || m != made.Model {
				t.Fatal("LoadModel did not make the registered class")
			}
			check(t, made)
		})
	}
}

// sizedNet is a subclassed model whose constructor takes an argument,
// which it gives as Keras' get_config does (keras.SubclassConfigurer).
type sizedNet struct {
	*keras.Model
	units  int
	hidden *layers.Dense
	out    *layers.Dense
}

func newSizedNet(units int) *sizedNet {
	return &sizedNet{units: units, hidden: layers.NewDense(units, layers.WithActivation("relu")), out: layers.NewDense(1)}
}

func (s *sizedNet) Call(in []ops.Tensor, training bool) ops.Tensor {
	return layers.Call(s.out, training, layers.Call(s.hidden, training, in[0]))
}

func (s *sizedNet) SubclassConfig() map[string]any { return map[string]any{"units": s.units} }

// A subclassed model's .keras config is Keras' for a registered
// subclassed model: its class (also its registered name, as Keras'
// custom_objects finds it), a config of name, trainable and the
// SubclassConfig arguments, the build config; the registered constructor
// gets the arguments back and the weights load. (Keras 3.15.1 loads such
// a file of the example VAE with its Python class as custom_objects, its
// weights equal: checked by hand, docs/keras_verification.md.)
func TestSubclassConfigSaved(t *testing.T) {
	keras.RegisterSubclass("sizedNet", func(cfg map[string]any) (*keras.Model, error) {
		u, _ := cfg["units"].(float64)
		s := newSizedNet(int(u))
		m, err := keras.Subclass(s)
		s.Model = m
		return m, err
	})
	s := newSizedNet(5)
	m, err := keras.Subclass(s, keras.SubclassInputShape(3))
	if err != nil {
		t.Fatal(err)
	}
	s.Model = m
	path := t.TempDir() + "/s.keras"
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open("config.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.NewDecoder(f).Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	inner, _ := cfg["config"].(map[string]any)
	if cfg["class_name"] != "sizedNet" || cfg["registered_name"] != "sizedNet" || cfg["module"] != nil ||
		inner["name"] != s.Name() || inner["trainable"] != true || inner["units"] != 5.0 || len(inner) != 3 {
		t.Errorf("config.json %v", cfg)
	}
	if bc, _ := cfg["build_config"].(map[string]any); fmt.Sprint(bc["input_shape"]) != "[<nil> 3]" {
		t.Errorf("build_config %v", cfg["build_config"])
	}
	// Keras walks a subclassed model's attributes in sorted order, its
	// "layers" property among them: "out", after it, is saved there by
	// class name (Keras 3.15.1 writes these paths for the same model:
	// interop_check.py's case "subclass").
	wpath := t.TempDir() + "/s.weights.h5"
	if err := s.SaveWeights(wpath); err != nil {
		t.Fatal(err)
	}
	if got, want := datasetPaths(t, wpath), []string{"hidden/vars/0", "hidden/vars/1", "layers/dense_1/vars/0", "layers/dense_1/vars/1"}; !slices.Equal(got, want) {
		t.Errorf("weights file paths %v, Keras' %v", got, want)
	}
	back, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.CountParams() != 3*5+5+5+1 {
		t.Errorf("loaded %d params, want the 5 units' 26", back.CountParams())
	}
	for i, w := range back.Weights() {
		if !slices.Equal(w.Numpy(), s.Weights()[i].Numpy()) {
			t.Errorf("%s differs after load", w.Name())
		}
	}
}

// badConfig's SubclassConfig sets a key the model's own config holds.
type badConfig struct{ sizedNet }

func (b *badConfig) SubclassConfig() map[string]any { return map[string]any{"name": "x"} }

func TestSubclassConfigRefusesOwnKeys(t *testing.T) {
	b := &badConfig{*newSizedNet(2)}
	m, err := keras.Subclass(b, keras.SubclassInputShape(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(t.TempDir() + "/b.keras"); err == nil || !strings.Contains(err.Error(), `"name"`) {
		t.Errorf("Save with SubclassConfig setting name: %v", err)
	}
}

// A registered subclassed model used as a layer of a functional model
// saves its own config (its SubclassConfig arguments) and loads back as
// Keras loads a registered subclassed layer: made by its constructor,
// built by its node, its weights loaded.
func TestNestedSubclassSaveLoad(t *testing.T) {
	keras.RegisterSubclass("sizedNet", func(cfg map[string]any) (*keras.Model, error) {
		u, _ := cfg["units"].(float64)
		s := newSizedNet(int(u))
		m, err := keras.Subclass(s)
		s.Model = m
		return m, err
	})
	s := newSizedNet(5)
	m, err := keras.Subclass(s, keras.SubclassInputShape(3))
	if err != nil {
		t.Fatal(err)
	}
	s.Model = m
	if cfg, err := m.GetConfig(); err != nil || cfg["units"] != 5 || cfg["name"] != m.Name() {
		t.Errorf("GetConfig of a subclassed model: %v, %v", cfg, err)
	}
	in := layers.Input([]int{3})
	outer, err := keras.NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{layers.Apply(layers.NewDense(2), m.Apply(in))})
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/outer.keras"
	if err := outer.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.CountParams() != outer.CountParams() || back.CountParams() != 26+4 {
		t.Fatalf("loaded %d params, saved %d (want 30)", back.CountParams(), outer.CountParams())
	}
	for i, w := range back.Weights() {
		if !slices.Equal(w.Numpy(), outer.Weights()[i].Numpy()) {
			t.Errorf("%s differs after load", w.Name())
		}
	}
}
