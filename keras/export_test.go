package keras

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/export/onnx"
	"github.com/gokeras/gokeras/keras/layers"
)

// ONNX export. TestExportONNXForOnnxruntime writes (with
// GOKERAS_ONNX_OUT=DIR) each model below as DIR/<name>.onnx with an input
// batch and gokeras' predictions; tools/onnx_reference/check.py runs them
// in onnxruntime and onnx's checker. The other tests need no Python.

// exportCase is a model to export and the shape of its input batch (ids
// in [0, ids) where ids > 0: the model takes token ids, every fifth one
// 0 and odd rows padded with 0 at the end, the masked steps of
// mask_zero).
type exportCase struct {
	build  func(t *testing.T) *Model
	shapes [][]int
	ids    int
	// zeroSteps zeroes whole timesteps of the (batch, steps, features)
	// inputs, for Masking: a middle step in every row, the last two in
	// odd rows, the first in row 2.
	zeroSteps bool
	// twin, when set, builds the model's float32 twin, whose predictions
	// with the model's weights are the reference (a mixed-precision
	// model exports and computes in float32).
	twin func(t *testing.T) *Model
}

var exportCases = map[string]exportCase{
	"cnn":              {build: ioCNN, shapes: [][]int{{3, 28, 28, 1}}},
	"resnet":           {build: ioResNet, shapes: [][]int{{3, 32, 32, 3}}},
	"resnet_seed":      {build: exportSeedResNet, shapes: [][]int{{2, 32, 32, 3}}},
	"mlp":              {build: exportMLP, shapes: [][]int{{4, 6}}},
	"mobile":           {build: exportMobile, shapes: [][]int{{3, 12, 10, 3}}},
	"upsample":         {build: exportUpsample, shapes: [][]int{{2, 6, 5, 2}}},
	"operations":       {build: exportOperations, shapes: [][]int{{3, 5, 4, 3}}},
	"any_size":         {build: exportAnySize, shapes: [][]int{{2, 11, 9, 3}}},
	"elementwise_ops":  {build: exportElementwiseOps, shapes: [][]int{{4, 6}}},
	"mixed_bfloat16":   {build: exportMixed("mixed_bfloat16"), shapes: [][]int{{3, 8, 8, 2}}, twin: exportMixed("float32")},
	"embedding":        {build: exportEmbedding, shapes: [][]int{{4, 7}}, ids: 20},
	"nested":           {build: ioNested, shapes: [][]int{{3, 4}}},
	"shared":           {build: exportShared, shapes: [][]int{{3, 4}}},
	"two_io":           {build: ioTwoIO, shapes: [][]int{{3, 6}, {3, 5}}},
	"sequence_volume":  {build: exportSequenceVolume, shapes: [][]int{{3, 12, 4}, {3, 5, 6, 4, 2}}},
	"edges":            {build: exportEdges, shapes: [][]int{{3, 10, 3}, {3, 3, 4, 5, 2}}},
	"recurrent":        {build: exportRecurrent, shapes: [][]int{{4, 7}}, ids: 20},
	"attention":        {build: exportAttention, shapes: [][]int{{3, 5, 3}, {3, 4, 3}, {3, 4, 2}}},
	"encoder":          {build: exportEncoder, shapes: [][]int{{4, 8}, {4, 8}}, ids: 20},
	"masked_recurrent": {build: exportMaskedRecurrent, shapes: [][]int{{4, 6, 3}}, zeroSteps: true},
	"masked_wrappers":  {build: exportMaskedWrappers, shapes: [][]int{{4, 7}}, ids: 20},
	// Masks carried as Keras' compute_mask carries them (Dropout, Dense,
	// LayerNormalization, Add, Concatenate; mask_propagation_test.go's
	// models with Keras' weights).
	"mask_propagation_chain":           {build: exportMaskPropagation("chain"), shapes: [][]int{{4, 6}}, ids: 12},
	"mask_propagation_add":             {build: exportMaskPropagation("add"), shapes: [][]int{{4, 6}, {4, 6}}, ids: 12},
	"mask_propagation_concat_steps":    {build: exportMaskPropagation("concat_steps"), shapes: [][]int{{4, 6}, {4, 6}}, ids: 12},
	"mask_propagation_concat_features": {build: exportMaskPropagation("concat_features"), shapes: [][]int{{4, 6}, {4, 6}}, ids: 12},
	"dot_attention":                    {build: exportDotAttention, shapes: [][]int{{3, 5, 4}, {3, 6, 4}}},
	"array_ops":                        {build: exportArrayOps, shapes: [][]int{{3, 5, 4, 3}}},
	// Keras' own files (tools/keras_reference/interop_vectors.py), loaded then exported.
	"keras_cnn":    {build: exportLoaded("cnn.keras"), shapes: [][]int{{3, 28, 28, 1}}},
	"keras_resnet": {build: exportLoaded("resnet.keras"), shapes: [][]int{{3, 32, 32, 3}}},
	"keras_nested": {build: exportLoaded("nested.keras"), shapes: [][]int{{3, 4}}},
	"keras_two_io": {build: exportLoaded("two_io.keras"), shapes: [][]int{{3, 6}, {3, 5}}},
	// keras.applications models from tools/keras_reference/zoo_vectors.py.
	"zoo_mobilenet_v3_small": {build: exportLoaded("../zoo/mobilenet_v3_small.keras"), shapes: [][]int{{2, 32, 32, 3}}},
	"zoo_efficientnet_b0":    {build: exportLoaded("../zoo/efficientnet_b0.keras"), shapes: [][]int{{2, 32, 32, 3}}},
	"zoo_convnext_tiny":      {build: exportLoaded("../zoo/convnext_tiny.keras"), shapes: [][]int{{2, 32, 32, 3}}},
	// Keras' timestep masks (Embedding mask_zero, Masking: mask arguments in the file), Attention, TimeDistributed.
	"zoo_emb_lstm":           {build: exportLoaded("../zoo/emb_lstm.keras"), shapes: [][]int{{4, 7}}, ids: 20},
	"zoo_emb_gru_pool":       {build: exportLoaded("../zoo/emb_gru_pool.keras"), shapes: [][]int{{4, 7}}, ids: 20},
	"zoo_emb_dropout_bilstm": {build: exportLoaded("../zoo/emb_dropout_bilstm.keras"), shapes: [][]int{{4, 7}}, ids: 20},
	"zoo_emb_attention":      {build: exportLoaded("../zoo/emb_attention.keras"), shapes: [][]int{{4, 6}}, ids: 20},
	"zoo_masking_lstm":       {build: exportLoaded("../zoo/masking_lstm.keras"), shapes: [][]int{{4, 6, 3}}, zeroSteps: true},
	// Keras' grouped Conv2D and Conv1D (groups, strides, dilation, causal).
	"zoo_grouped_conv": {build: exportLoaded("../zoo/grouped_conv.keras"), shapes: [][]int{{2, 9, 8, 6}, {2, 10, 4}}},
	// Keras' keras.ops calls as operation nodes: shapes, indexing, reductions, comparisons, casts, matmul, activations.
	"zoo_op_graph": {build: exportLoaded("../zoo/op_graph.keras"), shapes: [][]int{{3, 4, 6}}},
}

// AddExportCase adds a model that package keras' tests cannot build to
// the onnxruntime cases: keras/applications imports keras, so its models
// come from the external test package (export_applications_test.go).
func AddExportCase(name string, build func(t *testing.T) *Model, shapes ...[]int) {
	exportCases[name] = exportCase{build: build, shapes: shapes}
}

// exportMaskPropagation builds mask_propagation_test.go's model name
// with the weights Keras gave it.
func exportMaskPropagation(name string) func(t *testing.T) *Model {
	return func(t *testing.T) *Model {
		ins, out := maskPropagationModels[name]()
		m, err := NewModel(ins, []*layers.KerasTensor{out})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.LoadWeights(filepath.Join("testdata", "keras", "mask_propagation_"+name+".weights.h5")); err != nil {
			t.Fatal(err)
		}
		return m
	}
}

func exportLoaded(file string) func(t *testing.T) *Model {
	return func(t *testing.T) *Model {
		m, err := LoadModel(filepath.Join("testdata", "interop", file))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// exportRandomize gives the batch normalizations statistics and the
// biases values other than their initial ones, so that the export of
// every weight shows in the predictions.
func exportRandomize(m *Model, r *rand.Rand) {
	for _, v := range m.Weights() {
		n := v.Name()
		lo, hi := 0.0, 0.0
		switch {
		case strings.HasSuffix(n, "/moving_variance"), strings.HasSuffix(n, "/gamma"):
			lo, hi = 0.5, 1.5
		case strings.HasSuffix(n, "/moving_mean"), strings.HasSuffix(n, "/beta"), strings.HasSuffix(n, "/bias"):
			lo, hi = -0.3, 0.3
		default:
			continue
		}
		data := make([]float32, v.Shape().Size())
		for i := range data {
			data[i] = float32(lo + (hi-lo)*r.Float64())
		}
		if err := v.Assign(data); err != nil {
			panic(err)
		}
	}
}

type exportArray struct {
	Name  string
	Shape []int
	Data  []float32
}

type exportCaseFile struct {
	Name, File      string
	Inputs, Outputs []exportArray
}

// exportInputs makes the input batch of case c.
func exportInputs(r *rand.Rand, c exportCase) []interopArray {
	var ins []interopArray
	for _, s := range c.shapes {
		a := ioRandom(r, s, 1, 0)
		if c.ids > 0 {
			for i := range a.Data {
				a.Data[i] = float32(r.IntN(c.ids))
				if i%5 == 4 {
					a.Data[i] = 0 // masked steps
				}
				if steps := s[len(s)-1]; len(s) == 2 && (i/steps)%2 == 1 && i%steps >= steps-2 {
					a.Data[i] = 0 // odd rows padded at the end
				}
			}
		}
		if c.zeroSteps && len(s) == 3 {
			steps, feat := s[1], s[2]
			for b := range s[0] {
				for t := range steps {
					if t == steps/2 || b%2 == 1 && t >= steps-2 || b == 2 && t == 0 {
						clear(a.Data[(b*steps+t)*feat : (b*steps+t+1)*feat])
					}
				}
			}
		}
		ins = append(ins, a)
	}
	return ins
}

// TestExportMaskedCaseInputs: the masked cases' batches have what they
// are there for: Masking's rows with a zeroed step before unmasked ones
// (the middle, the first) and rows ending in zeroed steps (padding);
// token rows with a 0 in the middle and at the end. gokeras' predictions
// on them are finite.
func TestExportMaskedCaseInputs(t *testing.T) {
	for _, name := range []string{"masked_recurrent", "zoo_masking_lstm", "zoo_emb_lstm", "masked_wrappers"} {
		c := exportCases[name]
		in := exportInputs(rand.New(rand.NewPCG(1, 7)), c)[0]
		steps, feat := in.Shape[1], 1
		if len(in.Shape) == 3 {
			feat = in.Shape[2]
		}
		masked := func(b, s int) bool {
			for _, v := range in.Data[(b*steps+s)*feat : (b*steps+s+1)*feat] {
				if v != 0 {
					return false
				}
			}
			return true
		}
		middle, end := false, false
		for b := range in.Shape[0] {
			for s := range steps - 1 {
				middle = middle || masked(b, s) && !masked(b, s+1)
			}
			end = end || masked(b, steps-1)
		}
		if !middle || !end {
			t.Errorf("%s: masked steps in the middle %v, at the end %v", name, middle, end)
		}
		for _, o := range ioOutputs(t, c.build(t), []interopArray{in}) {
			for i, v := range o.Data {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%s: gokeras' prediction %d is %v", name, i, v)
				}
			}
		}
	}
}

func TestExportONNXForOnnxruntime(t *testing.T) {
	dir := os.Getenv("GOKERAS_ONNX_OUT")
	if dir == "" {
		t.Skip("set GOKERAS_ONNX_OUT=DIR to write exported models for tools/onnx_reference/check.py")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(exportCases))
	for name := range exportCases {
		names = append(names, name)
	}
	sort.Strings(names)
	for i, name := range names {
		c, k := exportCases[name], i+1
		t.Run(name, func(t *testing.T) {
			layers.SetRandomSeed(uint64(k))
			m := c.build(t)
			r := rand.New(rand.NewPCG(uint64(k), 7))
			if !strings.HasPrefix(name, "keras_") && !strings.HasPrefix(name, "zoo_") {
				exportRandomize(m, r)
			}
			ins := exportInputs(r, c)
			ref := m
			if c.twin != nil {
				ref = c.twin(t)
				if err := ref.SetWeights(m.GetWeights()); err != nil {
					t.Fatal(err)
				}
			}
			outs := ioOutputs(t, ref, ins)
			if err := m.Export(filepath.Join(dir, name+".onnx"), "onnx"); err != nil {
				t.Fatal(err)
			}
			g, err := m.exportGraph()
			if err != nil {
				t.Fatal(err)
			}
			f := exportCaseFile{Name: name, File: name + ".onnx"}
			for i, a := range ins {
				f.Inputs = append(f.Inputs, exportArray{Name: g.Inputs[i].Name, Shape: a.Shape, Data: a.Data})
			}
			for i, a := range outs {
				f.Outputs = append(f.Outputs, exportArray{Name: g.Outputs[i].Name, Shape: a.Shape, Data: a.Data})
			}
			b, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestExportRefusesUnsupportedLayers: a model with a layer the exporter
// cannot write (a wrapper around a layer without a converter,
// GroupQueryAttention, a nested model's masked recurrent layer whose
// activation ONNX's nodes do not have) is an error naming the layer and
// its class, and writes no file.
func TestExportRefusesUnsupportedLayers(t *testing.T) {
	td := MustSequential(layers.NewLSTM(4, layers.WithReturnSequences(true), layers.WithInputShape(5, 3)),
		layers.NewTimeDistributed(layers.NewUnitNormalization()), layers.NewDense(2))
	q := layers.Input([]int{5, 4})
	gqa, err := NewModel([]*layers.KerasTensor{q}, []*layers.KerasTensor{layers.Apply(layers.NewGroupQueryAttention(2, 2, 1), q, q)})
	if err != nil {
		t.Fatal(err)
	}
	inner := MustSequential(layers.NewEmbedding(10, 2, layers.WithMaskZero(true), layers.WithInputShape(5)), layers.NewGRU(3, layers.WithActivation("gelu")))
	x := layers.Input([]int{5})
	outer, err := NewModel([]*layers.KerasTensor{x}, []*layers.KerasTensor{layers.Apply(layers.NewDense(2), inner.Apply(x))})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m                 *Model
		layer, class, msg string
	}{
		{td, td.Layers()[1].Name(), "TimeDistributed", "UnitNormalization"},
		{gqa, "", "GroupQueryAttention", "the exporter writes"},
		{outer, inner.Name() + "/" + inner.Layers()[1].Name(), "GRU", `activation "gelu"`},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "m.onnx")
		err := c.m.Export(path, "onnx")
		if err == nil {
			t.Fatalf("%s: exported a model with a %s layer", c.m.Name(), c.class)
		}
		if !errors.Is(err, onnx.ErrUnsupported) {
			t.Errorf("%s: error %v does not wrap onnx.ErrUnsupported", c.m.Name(), err)
		}
		var le *onnx.LayerError
		if !errors.As(err, &le) || le.Class != c.class || (c.layer != "" && le.Layer != c.layer) {
			t.Errorf("%s: error %v; want one naming layer %q of class %s", c.m.Name(), err, c.layer, c.class)
		}
		if !strings.Contains(err.Error(), c.class) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("error %q does not name the class %s or say %q", err, c.class, c.msg)
		}
		if files, _ := os.ReadDir(dir); len(files) != 0 {
			t.Errorf("%s: a failed export left %d files", c.m.Name(), len(files))
		}
	}
}

// TestExportFormats: "onnx" only; Keras' other formats and unbuilt
// models are clear errors.
func TestExportFormats(t *testing.T) {
	m := ioCNN(t)
	dir := t.TempDir()
	for _, f := range []string{"", "tf_saved_model", "openvino", "ONNX", "tflite"} {
		err := m.Export(filepath.Join(dir, "m"), f)
		if err == nil || !strings.Contains(err.Error(), `"onnx"`) {
			t.Errorf("format %q: error %v; want one pointing to \"onnx\"", f, err)
		}
	}
	unbuilt := MustSequential(layers.NewDense(3))
	if err := unbuilt.Export(filepath.Join(dir, "u.onnx"), "onnx"); err == nil || !strings.Contains(err.Error(), "not built") {
		t.Errorf("unbuilt model: error %v", err)
	}
	path := filepath.Join(dir, "cnn.onnx")
	if err := m.Export(path, "onnx"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// 1.2 million float32 weights, stored raw.
	if params := 320 + 18496 + 204928 + 1290; st.Size() < 4*int64(params) || st.Size() > 4*int64(params)+64<<10 {
		t.Errorf("cnn.onnx is %d bytes for %d float32 weights", st.Size(), params)
	}
}

// TestExportGraphInlinesNestedModels: a nested model's calls appear in
// the outer graph under its name, one set per call of it, reading the
// outer tensors; a layer called twice gets a second name.
func TestExportGraphInlinesNestedModels(t *testing.T) {
	m := exportShared(t)
	g, err := m.exportGraph()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range g.Nodes {
		names = append(names, n.Name)
	}
	inner := m.Layers()[2].Name() // the nested Sequential
	dense := m.Layers()[1].Name()
	innerLayers := m.Layers()[2].(*ModelLayer).Model().Layers()
	want := []string{dense, inner + "/" + innerLayers[0].Name(), inner + "/" + innerLayers[1].Name(),
		dense + "_call1", inner + "/" + innerLayers[0].Name(), inner + "/" + innerLayers[1].Name(), m.Layers()[3].Name()}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("nodes %v, want %v", names, want)
	}
	// The two calls of the inner model read different tensors and
	// write different ones.
	if g.Nodes[1].Inputs[0] == g.Nodes[4].Inputs[0] || g.Nodes[2].Output == g.Nodes[5].Output {
		t.Errorf("the inner model's two calls share tensors: %+v", g.Nodes)
	}
	last := g.Nodes[len(g.Nodes)-1]
	if last.Inputs[0] != g.Nodes[2].Output || last.Inputs[1] != g.Nodes[5].Output {
		t.Errorf("the Add reads tensors %v, want the inner model's outputs %d and %d", last.Inputs, g.Nodes[2].Output, g.Nodes[5].Output)
	}
	if len(g.Inputs) != 1 || g.Inputs[0].Name != m.Inputs()[0].Node().Layer.Name() || len(g.Outputs) != 1 || g.Outputs[0].Name != last.Layer.Name() {
		t.Errorf("ports %+v -> %+v", g.Inputs, g.Outputs)
	}
	if err := m.Export(filepath.Join(t.TempDir(), "shared.onnx"), "onnx"); err != nil {
		t.Fatal(err)
	}
}
