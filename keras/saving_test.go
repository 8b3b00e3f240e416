package keras

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// svData makes n random examples of the given shape and labels in [0, classes).
func svData(n int, shape []int, classes int, seed uint64) (*tensor.Dense, *tensor.Dense) {
	r := rand.New(rand.NewPCG(seed, 7))
	size := 1
	for _, d := range shape {
		size *= d
	}
	x := make([]float32, n*size)
	y := make([]float32, n)
	for i := range n {
		c := r.IntN(classes)
		y[i] = float32(c)
		for j := range size {
			x[i*size+j] = float32(r.NormFloat64())*0.5 + float32(c)*0.3
		}
	}
	return tensor.New(tensor.WithShape(append([]int{n}, shape...)...), tensor.WithBacking(x)),
		tensor.New(tensor.WithShape(n), tensor.WithBacking(y))
}

// svMLP is a small Sequential model; seed picks its initial weights.
func svMLP(t *testing.T, seed uint64) *Model {
	t.Helper()
	layers.ClearSession()
	layers.SetRandomSeed(seed)
	m, err := NewSequential(
		layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)),
		layers.NewDense(3))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// svCNN uses every layer class of package layers.
func svCNN(t *testing.T, seed uint64, withShape bool) *Model {
	t.Helper()
	layers.ClearSession()
	layers.SetRandomSeed(seed)
	var in []layers.Option
	if withShape {
		in = append(in, layers.WithInputShape(8, 8, 1))
	}
	m, err := NewSequential(
		layers.NewRescaling(0.5, append(in, layers.WithOffset(0.1))...),
		layers.NewConv2D(4, 3, layers.WithPadding("same"), layers.WithKernelRegularizer(layers.L2(0.001)),
			layers.WithBiasInitializer(layers.Constant(0.01))),
		layers.NewReLU(layers.WithMaxValue(6)),
		layers.NewMaxPooling2D(),
		layers.NewConv2D(4, 2, layers.WithKernelSize(2, 1), layers.WithActivation("tanh"),
			layers.WithKernelInitializer(layers.RandomNormal(0, 0.1))),
		layers.NewAveragePooling2D(layers.WithPoolSize(2), layers.WithStrides(1)),
		layers.NewReshape([]int{-1, 4}),
		layers.NewFlatten(),
		// Rate 0: dropout's random stream is not saved (nor is it in
		// Keras 2), and the test trains on after loading.
		layers.NewDropout(0, layers.WithSeed(3)),
		layers.NewDense(6, layers.WithUseBias(false), layers.WithKernelInitializer(layers.HeUniform())),
		layers.NewActivation("sigmoid"),
		layers.NewDense(3, layers.WithName("logits")),
		layers.NewSoftmax(),
	)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func svCompile(t *testing.T, m *Model, opt optimizers.Optimizer) {
	t.Helper()
	err := m.Compile(CompileConfig{
		Optimizer: opt,
		Loss:      losses.NewSparseCategoricalCrossentropy(),
		Metrics:   []any{"accuracy", metrics.NewSparseCategoricalCrossentropy(metrics.Name("xent"))},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func svFit(t *testing.T, m *Model, x, y *tensor.Dense, epochs, initial int) *History {
	t.Helper()
	h, err := m.Fit(x, y, FitConfig{Epochs: epochs, InitialEpoch: initial, BatchSize: 8, NoShuffle: true, Verbose: VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func svPredict(t *testing.T, m *Model, x *tensor.Dense) []float32 {
	t.Helper()
	p, err := m.Predict(x, PredictConfig{Verbose: VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	return p.Data().([]float32)
}

func svSameWeights(t *testing.T, what string, a, b *Model) {
	t.Helper()
	wa, wb := a.Weights(), b.Weights()
	if len(wa) != len(wb) {
		t.Fatalf("%s: %d weights vs %d", what, len(wa), len(wb))
	}
	for i := range wa {
		if wa[i].Name() != wb[i].Name() || !reflect.DeepEqual(wa[i].Numpy(), wb[i].Numpy()) {
			t.Errorf("%s: weight %s differs from %s", what, wa[i].Name(), wb[i].Name())
		}
	}
}

func svNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

// npyMember parses one member of an npz archive as numpy.load would:
// header (magic, version 1.0, a Python dict literal) and little-endian
// float32 data.
func npyMember(t *testing.T, f *zip.File) (descr string, shape string, data []float32) {
	t.Helper()
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:6]) != "\x93NUMPY" || b[6] != 1 || b[7] != 0 {
		t.Fatalf("%s: bad magic/version % x", f.Name, b[:8])
	}
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	if (10+hl)%64 != 0 || b[10+hl-1] != '\n' {
		t.Errorf("%s: header of %d bytes is not 64-aligned and newline-terminated", f.Name, hl)
	}
	h := string(b[10 : 10+hl])
	re := regexp.MustCompile(`^\{'descr': '([<>|=][a-z][0-9]+)', 'fortran_order': False, 'shape': (\([0-9, ]*\)), \} *\n$`)
	mm := re.FindStringSubmatch(h)
	if mm == nil {
		t.Fatalf("%s: header %q is not numpy's", f.Name, h)
	}
	body := b[10+hl:]
	if mm[1] == "<f4" {
		data = make([]float32, len(body)/4)
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
		}
	}
	return mm[1], mm[2], data
}

func TestSaveWeightsIsNumpyNPZ(t *testing.T) {
	m := svMLP(t, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "model.weights.npz")
	if err := m.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	svNoTempFiles(t, dir)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string]*zip.File{}
	for _, f := range zr.File {
		got[f.Name] = f
	}
	want := map[string]string{"dense/kernel.npy": "(4, 8)", "dense/bias.npy": "(8,)", "dense_1/kernel.npy": "(8, 3)", "dense_1/bias.npy": "(3,)"}
	if len(got) != len(want) {
		t.Errorf("members %v, want %v", got, want)
	}
	for _, w := range m.Weights() {
		f := got[w.Name()+".npy"]
		if f == nil {
			t.Fatalf("no member for %s", w.Name())
		}
		descr, shape, data := npyMember(t, f)
		if descr != "<f4" || shape != want[f.Name] {
			t.Errorf("%s: descr %s shape %s, want <f4 %s", f.Name, descr, shape, want[f.Name])
		}
		if !reflect.DeepEqual(data, w.Numpy()) {
			t.Errorf("%s: data differs", f.Name)
		}
	}
}

func TestLoadWeightsRoundTrip(t *testing.T) {
	x, _ := svData(10, []int{4}, 3, 1)
	a := svMLP(t, 1)
	path := filepath.Join(t.TempDir(), "a.weights.npz")
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	// Overwriting an existing file works (rename over it).
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	b := svMLP(t, 2)
	if reflect.DeepEqual(svPredict(t, a, x), svPredict(t, b, x)) {
		t.Fatal("models with different seeds predict the same")
	}
	if err := b.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	svSameWeights(t, "after LoadWeights", a, b)
	if !reflect.DeepEqual(svPredict(t, a, x), svPredict(t, b, x)) {
		t.Error("predictions differ after LoadWeights")
	}
}

func TestLoadWeightsAssignsEveryReplica(t *testing.T) {
	a := svMLP(t, 1)
	path := filepath.Join(t.TempDir(), "a.weights.npz")
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	b := svMLP(t, 2)
	for _, w := range b.Weights() {
		w.Mirror(3)
	}
	if err := b.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	for i, w := range b.Weights() {
		for r := range 3 {
			if !reflect.DeepEqual(w.Data(r), a.Weights()[i].Numpy()) {
				t.Errorf("%s replica %d not loaded", w.Name(), r)
			}
		}
	}
}

func TestLoadWeightsErrors(t *testing.T) {
	dir := t.TempDir()
	a := svMLP(t, 1)
	path := filepath.Join(dir, "a.weights.npz")
	if err := a.SaveWeights(path); err != nil {
		t.Fatal(err)
	}

	// A weight the file lacks.
	layers.ClearSession()
	bigger := MustSequential(layers.NewDense(8, layers.WithInputShape(4)), layers.NewDense(3), layers.NewDense(2))
	before := bigger.Weights()[0].Numpy()
	err := bigger.LoadWeights(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"dense_2/kernel"`) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing weight: %v", err)
	}
	if !reflect.DeepEqual(before, bigger.Weights()[0].Numpy()) {
		t.Error("a failed LoadWeights assigned weights")
	}

	// A shape that differs.
	layers.ClearSession()
	wider := MustSequential(layers.NewDense(9, layers.WithInputShape(4)), layers.NewDense(3))
	err = wider.LoadWeights(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"dense/kernel"`) ||
		!strings.Contains(err.Error(), "(4, 8) in the file but (4, 9) in the model") {
		t.Errorf("shape mismatch: %v", err)
	}

	// Not an npz.
	txt := filepath.Join(dir, "notes.weights.npz")
	os.WriteFile(txt, []byte("hello"), 0o644)
	err = a.LoadWeights(txt)
	if err == nil || !strings.Contains(err.Error(), txt) || !errors.Is(err, errNotNPZ) {
		t.Errorf("not an npz: %v", err)
	}

	// Missing file, bad extension, unbuilt model.
	if err := a.LoadWeights(filepath.Join(dir, "nope.weights.npz")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := a.SaveWeights(filepath.Join(dir, "a.h5")); err == nil {
		t.Error("SaveWeights to .h5 succeeded")
	}
	layers.ClearSession()
	unbuilt := MustSequential(layers.NewDense(3))
	if err := unbuilt.SaveWeights(filepath.Join(dir, "u.weights.npz")); err == nil || !strings.Contains(err.Error(), "not built") {
		t.Errorf("unbuilt SaveWeights: %v", err)
	}
	svNoTempFiles(t, dir)
}

func TestWriteFileAtomicKeepsOldFileOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.npz")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := writeFileAtomic(path, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("x"), 3<<20)) // more than the buffer: reaches the temp file
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file changed to %d bytes", len(b))
	}
	svNoTempFiles(t, dir)
	if err := writeFileAtomic(filepath.Join(dir, "no", "such", "dir.npz"), func(io.Writer) error { return nil }); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

func TestNPZReaderTypes(t *testing.T) {
	var buf bytes.Buffer
	w := newNPZWriter(&buf)
	w.addFloat64("f8", []int{2}, []float64{1.5, -2})
	w.addInt64("i8", nil, []int64{7})
	w.addFloat32("empty", []int{0, 3}, nil)
	if err := w.addFloat32("f8", []int{1}, []float32{1}); err == nil {
		t.Error("duplicate key accepted")
	}
	if err := w.addFloat32("bad", []int{2}, []float32{1}); err == nil {
		t.Error("shape/size mismatch accepted")
	}
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	r, err := newNPZReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.read("f8")
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := a.float32s(); !reflect.DeepEqual(f, []float32{1.5, -2}) {
		t.Errorf("f8 as float32: %v", f)
	}
	a, _ = r.read("i8")
	if v, _ := a.int64s(); len(a.shape) != 0 || !reflect.DeepEqual(v, []int64{7}) {
		t.Errorf("i8: shape %v values %v", a.shape, v)
	}
	if _, err := a.float32s(); err == nil {
		t.Error("int array read as float weights")
	}
	a, err = r.read("empty")
	if err != nil || !reflect.DeepEqual(a.shape, []int{0, 3}) {
		t.Errorf("empty: %v %v", a.shape, err)
	}
}

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
		if l.ClassName() != al.ClassName() || !svJSONEqual(t, l.GetConfig(), al.GetConfig()) {
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
	if !reflect.DeepEqual(names, []string{"metadata.json", "config.json", "model.weights.npz"}) {
		t.Errorf("members %v", names)
	}
	var cfg, meta map[string]any
	b, _ := readZipMember(&zr.Reader, "config.json")
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	b, _ = readZipMember(&zr.Reader, "metadata.json")
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
	wb, _ := readZipMember(&zr.Reader, "model.weights.npz")
	r, err := newNPZReader(bytes.NewReader(wb), int64(len(wb)))
	if err != nil {
		t.Fatal(err)
	}
	// An SGD that has not trained holds only its step count.
	if !r.has("dense/kernel") || !r.has("optimizer/SGD/iterations") {
		t.Errorf("weights members %v", r.keys)
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
	if err := svMLP(t, 1).Save(filepath.Join(dir, "m.h5")); err == nil {
		t.Error("Save to .h5 succeeded")
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
	if _, err := LayerFromConfig("Conv2D", map[string]any{"filters": 2.0, "kernel_size": []any{3.0, 3.0}, "groups": 2.0}); err == nil {
		t.Error("groups=2 accepted")
	}
}

func TestCheckpointResumesTraining(t *testing.T) {
	x, y := svData(32, []int{4}, 3, 2)
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt.npz")

	// Reference: 4 epochs straight.
	ref := svMLP(t, 1)
	svCompile(t, ref, optimizers.NewAdam(optimizers.LearningRate(0.01)))
	svFit(t, ref, x, y, 4, 0)

	// Interrupted run: 2 epochs, checkpoint, then a fresh process.
	a := svMLP(t, 1)
	svCompile(t, a, optimizers.NewAdam(optimizers.LearningRate(0.01)))
	svFit(t, a, x, y, 2, 0)
	if err := a.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	svNoTempFiles(t, dir)

	b := svMLP(t, 7)
	svCompile(t, b, optimizers.NewAdam(optimizers.LearningRate(0.01)))
	epoch, err := b.RestoreCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if epoch != 2 {
		t.Errorf("epoch %d, want 2", epoch)
	}
	if got, want := b.Optimizer().Iterations(), a.Optimizer().Iterations(); got != want {
		t.Errorf("iterations %d, want %d", got, want)
	}
	svSameWeights(t, "restored", a, b)
	svFit(t, b, x, y, 4, epoch)
	svSameWeights(t, "resumed vs straight", ref, b)
}

func TestCheckpointBuildsAndRestoresLearningRate(t *testing.T) {
	x, y := svData(16, []int{8, 8, 1}, 3, 2)
	path := filepath.Join(t.TempDir(), "ckpt.npz")
	a := svCNN(t, 1, false) // built by Fit from the data
	svCompile(t, a, optimizers.NewRMSprop(optimizers.Momentum(0.5), optimizers.Centered(true)))
	svFit(t, a, x, y, 1, 0)
	a.Optimizer().SetLearningRate(0.0123)
	if err := a.SaveCheckpointEpoch(path, 5); err != nil {
		t.Fatal(err)
	}
	b := svCNN(t, 2, false)
	svCompile(t, b, optimizers.NewRMSprop(optimizers.Momentum(0.5), optimizers.Centered(true)))
	epoch, err := b.RestoreCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if epoch != 5 || !b.Built() || b.Optimizer().CurrentLearningRate() != 0.0123 {
		t.Errorf("epoch %d built %v lr %v", epoch, b.Built(), b.Optimizer().CurrentLearningRate())
	}
	for i, v := range b.Optimizer().Variables() {
		if w := a.Optimizer().Variables()[i]; v.Name() != w.Name() || !reflect.DeepEqual(v.Numpy(), w.Numpy()) {
			t.Errorf("optimizer variable %s differs from %s", v.Name(), w.Name())
		}
	}
	if !reflect.DeepEqual(svPredict(t, a, x), svPredict(t, b, x)) {
		t.Error("restored model predicts differently")
	}

	// Another optimizer's checkpoint is refused, naming the variable.
	c := svCNN(t, 2, true)
	svCompile(t, c, optimizers.NewSGD())
	if _, err := c.RestoreCheckpoint(path); err == nil || !strings.Contains(err.Error(), "optimizer") {
		t.Errorf("SGD restoring an RMSprop checkpoint: %v", err)
	}
	// A weights file is not a checkpoint.
	wpath := filepath.Join(t.TempDir(), "w.weights.npz")
	a.SaveWeights(wpath)
	if _, err := b.RestoreCheckpoint(wpath); err == nil || !strings.Contains(err.Error(), "not a checkpoint") {
		t.Errorf("weights file as checkpoint: %v", err)
	}
}

// svJSONRoundTrip is cfg as LoadModel sees it: through JSON.
func svJSONRoundTrip(t *testing.T, cfg map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestEveryBuiltinLayerRoundTrips(t *testing.T) {
	layers.ClearSession()
	img := func() *layers.KerasTensor { return layers.Input([]int{8, 8, 2}) }
	vec := func() *layers.KerasTensor { return layers.Input([]int{6}) }
	type built struct {
		l  layers.Layer
		in []*layers.KerasTensor
	}
	cases := []built{
		{layers.NewDense(3, layers.WithActivation("tanh"), layers.WithUseBias(false), layers.WithKernelInitializer(layers.GlorotNormal()),
			layers.WithKernelRegularizer(layers.L1L2(0.01, 0.02)), layers.WithTrainable(false), layers.WithInputShape(6)), []*layers.KerasTensor{vec()}},
		{layers.NewConv2D(2, 3, layers.WithKernelSize(3, 2), layers.WithStrides(2), layers.WithPadding("same"),
			layers.WithBiasRegularizer(layers.L1(0.5)), layers.WithBiasInitializer(layers.Ones())), []*layers.KerasTensor{img()}},
		{layers.NewConv2D(2, 3, layers.WithDilationRate(2), layers.WithKernelInitializer(layers.RandomUniform(-1, 2))), []*layers.KerasTensor{img()}},
		{layers.NewMaxPooling2D(layers.WithPoolSize(3, 2), layers.WithStrides(1, 2), layers.WithPadding("same")), []*layers.KerasTensor{img()}},
		{layers.NewAveragePooling2D(), []*layers.KerasTensor{img()}},
		{layers.NewFlatten(), []*layers.KerasTensor{img()}},
		{layers.NewDropout(0.3, layers.WithSeed(9)), []*layers.KerasTensor{vec()}},
		{layers.NewActivation("softplus"), []*layers.KerasTensor{vec()}},
		{layers.NewReLU(layers.WithNegativeSlope(0.1), layers.WithThreshold(0.5)), []*layers.KerasTensor{vec()}},
		{layers.NewSoftmax(layers.WithAxis(-1)), []*layers.KerasTensor{vec()}},
		{layers.NewReshape([]int{2, -1}), []*layers.KerasTensor{vec()}},
		{layers.NewRescaling(1.0 / 255), []*layers.KerasTensor{img()}},
		{layers.NewAdd(), []*layers.KerasTensor{vec(), vec()}},
		{layers.NewMultiply(), []*layers.KerasTensor{vec(), vec()}},
		{layers.NewConcatenate(layers.WithAxis(1)), []*layers.KerasTensor{vec(), vec()}},
		{layers.NewBatchNormalization(layers.WithMomentum(0.9), layers.WithEpsilon(1e-5), layers.WithCenter(false)), []*layers.KerasTensor{img()}},
		{layers.NewLayerNormalization(layers.WithScale(false), layers.WithEpsilon(1e-6)), []*layers.KerasTensor{vec()}},
		{layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(2), layers.WithPadding("same"), layers.WithActivation("relu"),
			layers.WithDepthwiseRegularizer(layers.L2(0.1))), []*layers.KerasTensor{img()}},
		{layers.NewEmbedding(10, 4, layers.WithEmbeddingsInitializer(layers.RandomNormal(0, 1))), []*layers.KerasTensor{vec()}},
		{layers.NewEmbedding(7, 2), []*layers.KerasTensor{vec()}},
		{layers.NewGlobalAveragePooling2D(layers.WithKeepDims(true)), []*layers.KerasTensor{img()}},
		{layers.NewGlobalMaxPooling2D(), []*layers.KerasTensor{img()}},
		{layers.NewZeroPadding2D(1, 2, 3, 0), []*layers.KerasTensor{img()}},
		{layers.NewRandomCrop(4, 5, layers.WithSeed(1)), []*layers.KerasTensor{img()}},
		{layers.NewRandomFlip("horizontal"), []*layers.KerasTensor{img()}},
		{layers.NewRandomTranslation(0.2, 0.1, layers.WithFillMode("constant"), layers.WithFillValue(0.5)), []*layers.KerasTensor{img()}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		if err := c.l.Err(); err != nil {
			t.Fatal(err)
		}
		if out := layers.Apply(c.l, c.in...); out.Err() != nil {
			t.Fatalf("%s: %v", c.l.ClassName(), out.Err())
		}
		covered[c.l.ClassName()] = true
		want := c.l.GetConfig()
		got, err := LayerFromConfig(c.l.ClassName(), svJSONRoundTrip(t, want))
		if err != nil {
			t.Errorf("%s: %v", c.l.ClassName(), err)
			continue
		}
		if out := layers.Apply(got, c.in...); out.Err() != nil {
			t.Errorf("%s rebuilt: %v", c.l.ClassName(), out.Err())
		}
		if !svJSONEqual(t, got.GetConfig(), want) {
			t.Errorf("%s config:\n got %v\nwant %v", c.l.ClassName(), got.GetConfig(), want)
		}
		if len(got.Weights()) != len(c.l.Weights()) {
			t.Errorf("%s: %d weights, want %d", c.l.ClassName(), len(got.Weights()), len(c.l.Weights()))
		}
		for i, w := range got.Weights() {
			if w.Name() != c.l.Weights()[i].Name() || !w.Shape().Equal(c.l.Weights()[i].Shape()) || w.Trainable() != c.l.Weights()[i].Trainable() {
				t.Errorf("%s weight %s %v", c.l.ClassName(), w.Name(), w.Shape())
			}
		}
	}
	for _, class := range builtinLayers {
		if !covered[class] {
			t.Errorf("registered class %s is not tested", class)
		}
	}
}

func TestSaveLoadModelNewerLayers(t *testing.T) {
	layers.ClearSession()
	layers.SetRandomSeed(3)
	in := layers.Input([]int{6, 6, 2})
	x := layers.Apply(layers.NewZeroPadding2D(1, 1, 1, 1), in)
	x = layers.Apply(layers.NewRandomFlip(""), x)
	x = layers.Apply(layers.NewRandomTranslation(0.1, 0.1), x)
	x = layers.Apply(layers.NewRandomCrop(6, 6), x)
	x = layers.Apply(layers.NewDepthwiseConv2D(3, layers.WithDepthMultiplier(2)), x)
	x = layers.Apply(layers.NewBatchNormalization(), x)
	a := layers.Apply(layers.NewGlobalAveragePooling2D(), x)
	b := layers.Apply(layers.NewGlobalMaxPooling2D(), x)
	h := layers.Apply(layers.NewConcatenate(), a, b)
	h = layers.Apply(layers.NewLayerNormalization(), h)
	g := layers.Apply(layers.NewDense(8, layers.WithActivation("sigmoid")), h)
	v := layers.Apply(layers.NewDense(8), h)
	h = layers.Apply(layers.NewMultiply(), g, v)
	out := layers.Apply(layers.NewDense(3), h)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
	if err != nil {
		t.Fatal(err)
	}
	svCompile(t, m, optimizers.NewAdamW())
	xs, ys := svData(16, []int{6, 6, 2}, 3, 1)
	svFit(t, m, xs, ys, 1, 0)
	path := filepath.Join(t.TempDir(), "newer.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	svSameWeights(t, "loaded", m, l)
	if len(l.NonTrainableVariables()) != 2 {
		t.Errorf("%d non-trainable variables", len(l.NonTrainableVariables()))
	}
	if !reflect.DeepEqual(svPredict(t, m, xs), svPredict(t, l, xs)) {
		t.Error("loaded model predicts differently")
	}

	layers.ClearSession()
	e := MustSequential(layers.NewEmbedding(10, 4, layers.WithInputShape(5)), layers.NewFlatten(), layers.NewDense(2))
	ids := tensor.New(tensor.WithShape(3, 5), tensor.WithBacking([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 8, 7, 6, 5}))
	path = filepath.Join(t.TempDir(), "emb.keras")
	if err := e.Save(path); err != nil {
		t.Fatal(err)
	}
	le, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(svPredict(t, e, ids), svPredict(t, le, ids)) {
		t.Error("loaded embedding model predicts differently")
	}
}

// TestSaveLoadInitializerConfigs: initializers with arguments come back
// from a .keras config with the same classes and arguments.
func TestSaveLoadInitializerConfigs(t *testing.T) {
	layers.ClearSession()
	vs, err := layers.VarianceScaling(1.0/3, "fan_in", "uniform")
	if err != nil {
		t.Fatal(err)
	}
	in := layers.Input([]int{4})
	x := layers.Apply(layers.NewDense(3, layers.WithKernelInitializer(vs), layers.WithBiasInitializer(layers.TruncatedNormal(0.5, 0.1))), in)
	x = layers.Apply(layers.NewDense(2, layers.WithKernelInitializer(layers.LecunNormal())), x)
	m, err := NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{x})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "inits.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 3; i++ {
		a, b := m.Layers()[i].GetConfig(), l.Layers()[i].GetConfig()
		for _, k := range []string{"kernel_initializer", "bias_initializer"} {
			if !reflect.DeepEqual(a[k], b[k]) {
				t.Errorf("layer %d %s: saved %v, loaded %v", i, k, a[k], b[k])
			}
		}
	}
}
