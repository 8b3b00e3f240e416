package keras

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func TestSaveLoadModelSequential(t *testing.T) {
	x, y := svData(24, []int{8, 8, 1}, 3, 5)
	a := svCNN(t, 1, true)
	svCompile(t, a, optimizers.NewAdam(optimizers.LearningRate(0.01)))
	svFit(t, a, x, y, 2, 0)
	dir := t.TempDir()
	path := filepath.Join(dir, "model.keras")
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	svNoTempFiles(t, dir)

	b, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != a.Name() || len(b.Layers()) != len(a.Layers()) {
		t.Fatalf("loaded %s with %d layers", b.Name(), len(b.Layers()))
	}
	for i, l := range b.Layers() {
		al := a.Layers()[i]
		// The model's InputLayer keeps the input shape, as in Keras 3.
		ac := al.GetConfig()
		delete(ac, "batch_input_shape")
		if l.ClassName() != al.ClassName() || !svJSONEqual(t, l.GetConfig(), ac) {
			t.Errorf("layer %d: %s %v, want %s %v", i, l.ClassName(), l.GetConfig(), al.ClassName(), al.GetConfig())
		}
	}
	svSameWeights(t, "loaded", a, b)
	if !reflect.DeepEqual(svPredict(t, a, x), svPredict(t, b, x)) {
		t.Error("loaded model predicts differently")
	}
	// Compiled as saved, with the optimizer's state: training on goes on
	// identically.
	if b.Optimizer() == nil || b.Optimizer().Iterations() != a.Optimizer().Iterations() {
		t.Fatalf("optimizer not restored: %v", b.Optimizer())
	}
	if !svJSONEqual(t, b.Optimizer().GetConfig(), a.Optimizer().GetConfig()) {
		t.Errorf("optimizer config %v, want %v", b.Optimizer().GetConfig(), a.Optimizer().GetConfig())
	}
	ha := svFit(t, a, x, y, 1, 0)
	hb := svFit(t, b, x, y, 1, 0)
	svSameWeights(t, "after one more epoch", a, b)
	if !reflect.DeepEqual(ha.History, hb.History) {
		t.Errorf("histories differ: %v vs %v", ha.History, hb.History)
	}
	if _, ok := hb.History["xent"]; !ok {
		t.Errorf("metric object not restored: %v", hb.Names)
	}
}

func svJSONEqual(t *testing.T, a, b any) bool {
	t.Helper()
	norm := func(v any) any {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		json.Unmarshal(j, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func TestKerasArchiveLayout(t *testing.T) {
	a := svMLP(t, 1)
	svCompile(t, a, optimizers.NewSGD(optimizers.Momentum(0.9)))
	path := filepath.Join(t.TempDir(), "m.keras")
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if !reflect.DeepEqual(names, []string{"metadata.json", "config.json", "model.weights.h5"}) {
		t.Errorf("members %v", names)
	}
	var cfg, meta map[string]any
	b, _ := readZipMember(&zr.Reader, "config.json", maxConfigBytes)
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	b, _ = readZipMember(&zr.Reader, "metadata.json", maxMetadataBytes)
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta["keras_version"] != KerasVersion || !regexp.MustCompile(`^\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d$`).MatchString(fmt.Sprint(meta["date_saved"])) {
		t.Errorf("metadata %v", meta)
	}
	if cfg["module"] != "keras" || cfg["class_name"] != "Sequential" {
		t.Errorf("config head %v %v", cfg["module"], cfg["class_name"])
	}
	inner := cfg["config"].(map[string]any)
	ls := inner["layers"].([]any)
	if len(ls) != 3 {
		t.Fatalf("%d layer entries", len(ls))
	}
	first := ls[0].(map[string]any)
	if first["class_name"] != "InputLayer" || !reflect.DeepEqual(first["config"].(map[string]any)["batch_shape"], []any{nil, 4.0}) {
		t.Errorf("input entry %v", first)
	}
	d := ls[1].(map[string]any)
	if d["module"] != "keras.layers" || d["class_name"] != "Dense" ||
		!reflect.DeepEqual(d["build_config"], map[string]any{"input_shape": []any{nil, 4.0}}) ||
		d["config"].(map[string]any)["units"] != 8.0 {
		t.Errorf("dense entry %v", d)
	}
	cc := cfg["compile_config"].(map[string]any)
	opt := cc["optimizer"].(map[string]any)
	if opt["class_name"] != "SGD" || opt["config"].(map[string]any)["momentum"] != 0.9 {
		t.Errorf("optimizer %v", opt)
	}
	if cc["loss"].(map[string]any)["class_name"] != "SparseCategoricalCrossentropy" {
		t.Errorf("loss %v", cc["loss"])
	}
	if ms := cc["metrics"].([]any); ms[0] != "accuracy" || ms[1].(map[string]any)["class_name"] != "SparseCategoricalCrossentropy" {
		t.Errorf("metrics %v", ms)
	}
	wb, _ := readZipMember(&zr.Reader, "model.weights.h5", 1<<30)
	root, err := hdf5.Decode(bytes.NewReader(wb), int64(len(wb)), hdf5.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// Keras 3's layout; an SGD that has not trained holds only its step
	// count and learning rate.
	for path, shape := range map[string][]int{"layers/dense/vars/0": {4, 8}, "layers/dense_1/vars/1": {3}, "optimizer/vars/0": nil, "optimizer/vars/1": nil} {
		_, d, err := root.Lookup(path)
		if err != nil || d == nil || !slices.Equal(normShape(d.Shape), normShape(shape)) {
			t.Errorf("%s: %v %v, want shape %v", path, d, err, shape)
		}
	}
	if g, _, _ := root.Lookup("optimizer/vars"); g == nil || len(g.Datasets) != 2 {
		t.Errorf("optimizer/vars: %v", g)
	}
	// LoadWeights reads a .keras file's weights too.
	c := svMLP(t, 9)
	if err := c.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	svSameWeights(t, "weights of a .keras", a, c)
}

func TestSaveLoadModelFunctional(t *testing.T) {
	layers.ClearSession()
	layers.SetRandomSeed(4)
	in := layers.Input([]int{6}, layers.WithName("features"))
	shared := layers.NewDense(6, layers.WithActivation("tanh"), layers.WithName("shared"))
	h1 := layers.Apply(shared, in)
	h2 := layers.Apply(shared, h1) // a layer called twice
	side := layers.Apply(layers.NewDense(6), in)
	sum := layers.AddTensors(h2, side, h1)
	out := layers.Apply(layers.NewDense(2, layers.WithActivation("softmax")), sum)
	a, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out}, ModelName("fn"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fn.keras")
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "fn" || len(b.Layers()) != len(a.Layers()) || len(b.Weights()) != len(a.Weights()) {
		t.Fatalf("loaded %s: %d layers, %d weights", b.Name(), len(b.Layers()), len(b.Weights()))
	}
	if b.Optimizer() != nil {
		t.Error("an uncompiled model came back compiled")
	}
	x, _ := svData(5, []int{6}, 2, 3)
	if !reflect.DeepEqual(svPredict(t, a, x), svPredict(t, b, x)) {
		t.Error("loaded functional model predicts differently")
	}
	sa, _ := a.SummaryString()
	sb, _ := b.SummaryString()
	if sa != sb {
		t.Errorf("summaries differ:\n%s\n%s", sa, sb)
	}
}

func TestLoadModelErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadModel(filepath.Join(dir, "none.keras")); err == nil {
		t.Error("loading a missing file succeeded")
	}
	bad := filepath.Join(dir, "bad.keras")
	os.WriteFile(bad, []byte("not a zip"), 0o644)
	if _, err := LoadModel(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("not a zip: %v", err)
	}
	// .keras and (legacy) .h5 only, as in Keras 3.
	if err := svMLP(t, 1).Save(filepath.Join(dir, "m.json")); err == nil {
		t.Error("Save to .json succeeded")
	}
	// An unknown layer class names the class and the registry.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("config.json")
	w.Write([]byte(`{"module":"keras","class_name":"Sequential","config":{"name":"s","layers":[{"class_name":"Frobnicate","config":{"name":"f"}}]}}`))
	w, _ = zw.Create("model.weights.npz")
	nw := newNPZWriter(w)
	nw.close()
	zw.Close()
	odd := filepath.Join(dir, "odd.keras")
	os.WriteFile(odd, buf.Bytes(), 0o644)
	if _, err := LoadModel(odd); err == nil || !strings.Contains(err.Error(), `"Frobnicate"`) || !strings.Contains(err.Error(), "RegisterLayer") {
		t.Errorf("unknown class: %v", err)
	}
}

// scaleLayer is a custom layer for the registry test.
type scaleLayer struct{ layers.Layer }

func (s scaleLayer) ClassName() string { return "Scale" }

func TestRegisterLayer(t *testing.T) {
	var got map[string]any
	RegisterLayer("Scale", func(cfg map[string]any) (layers.Layer, error) {
		got = cfg
		return scaleLayer{layers.NewRescaling(2, layers.WithName(cfg["name"].(string)))}, nil
	})
	l, err := LayerFromConfig("Scale", map[string]any{"name": "s1"})
	if err != nil || l.ClassName() != "Scale" || l.Name() != "s1" || got["name"] != "s1" {
		t.Errorf("custom layer: %v %v", l, err)
	}
	found := false
	for _, c := range RegisteredLayers() {
		found = found || c == "Scale"
	}
	if !found {
		t.Error("Scale not listed")
	}
	if _, err := LayerFromConfig("Dense", map[string]any{"units": "many"}); err == nil || !strings.Contains(err.Error(), "units") {
		t.Errorf("bad config: %v", err)
	}
	if _, err := LayerFromConfig("Conv2D", map[string]any{"filters": 2.0, "kernel_size": []any{3.0, 3.0}, "groups": 3.0}); err == nil {
		t.Error("groups=3 of 2 filters accepted")
	}
}
