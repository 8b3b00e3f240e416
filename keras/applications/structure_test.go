package applications

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// constructors are the Go constructors by Keras' name.
var constructors = map[string]func(...Option) (*keras.Model, error){
	"ResNet50": ResNet50, "ResNet101": ResNet101, "ResNet152": ResNet152,
	"ResNet50V2": ResNet50V2, "ResNet101V2": ResNet101V2, "ResNet152V2": ResNet152V2,
	"VGG16": VGG16, "VGG19": VGG19, "MobileNet": MobileNet, "MobileNetV2": MobileNetV2,
	"DenseNet121": DenseNet121, "DenseNet169": DenseNet169, "DenseNet201": DenseNet201,
	"MobileNetV3Small": MobileNetV3Small, "MobileNetV3Large": MobileNetV3Large,
	"EfficientNetB0": EfficientNetB0, "EfficientNetB1": EfficientNetB1, "EfficientNetB2": EfficientNetB2, "EfficientNetB3": EfficientNetB3,
	"EfficientNetB4": EfficientNetB4, "EfficientNetB5": EfficientNetB5, "EfficientNetB6": EfficientNetB6, "EfficientNetB7": EfficientNetB7,
	"EfficientNetV2B0": EfficientNetV2B0, "EfficientNetV2B1": EfficientNetV2B1, "EfficientNetV2B2": EfficientNetV2B2,
	"EfficientNetV2B3": EfficientNetV2B3, "EfficientNetV2S": EfficientNetV2S,
	"InceptionV3":       InceptionV3,
	"Xception":          Xception,
	"InceptionResNetV2": InceptionResNetV2,
	"ConvNeXtTiny":      ConvNeXtTiny, "ConvNeXtSmall": ConvNeXtSmall, "ConvNeXtBase": ConvNeXtBase,
	"NASNetMobile": NASNetMobile,
}

// structCase is one case of testdata/keras/structure.json.gz, written by
// tools/keras_reference/applications_vectors.py from Keras 3.15.1: a
// constructor, its arguments, and the model Keras builds for them.
type structCase struct {
	Constructor  string
	Kwargs       map[string]any
	Name         string
	Trainable    int
	NonTrainable int `json:"non_trainable"`
	// Layers are model.layers: name, class, "variable:shape" per
	// variable, and "#outputshape#params" for the cases with summary rows.
	Layers [][]string
}

func readStructure(t *testing.T) []structCase {
	t.Helper()
	f, err := os.Open("testdata/keras/structure.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Manifest map[string]any
		Cases    []structCase
	}
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) == 0 {
		t.Fatal("no cases")
	}
	t.Logf("Keras %v, TensorFlow %v", doc.Manifest["keras"], doc.Manifest["tensorflow"])
	return doc.Cases
}

// kwargsOptions maps a case's Keras keyword arguments to options;
// weights is always None.
func kwargsOptions(t *testing.T, kw map[string]any) []Option {
	t.Helper()
	opts := []Option{WithWeights("")}
	for k, v := range kw {
		switch k {
		case "include_top":
			opts = append(opts, WithIncludeTop(v.(bool)))
		case "pooling":
			opts = append(opts, WithPooling(v.(string)))
		case "classes":
			opts = append(opts, WithClasses(int(v.(float64))))
		case "classifier_activation":
			s, _ := v.(string)
			opts = append(opts, WithClassifierActivation(s))
		case "input_shape":
			var dims []int
			for _, d := range v.([]any) {
				dims = append(dims, int(d.(float64)))
			}
			opts = append(opts, WithInputShape(dims...))
		case "alpha":
			opts = append(opts, WithAlpha(v.(float64)))
		case "depth_multiplier":
			opts = append(opts, WithDepthMultiplier(int(v.(float64))))
		case "minimalistic":
			opts = append(opts, WithMinimalistic(v.(bool)))
		case "include_preprocessing":
			opts = append(opts, WithIncludePreprocessing(v.(bool)))
		default:
			t.Fatalf("the test knows no keyword %q", k)
		}
	}
	return opts
}

func caseName(ctor string, kw map[string]any) string {
	if len(kw) == 0 {
		return ctor
	}
	keys := make([]string, 0, len(kw))
	for k := range kw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := []string{ctor}
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, kw[k]))
	}
	return strings.ReplaceAll(strings.Join(parts, ","), " ", "")
}

// build makes the case's model in a fresh session (layer names restart,
// as in the Keras process that wrote the case after clear_session).
func build(t *testing.T, ctor string, kw map[string]any) *keras.Model {
	t.Helper()
	f := constructors[ctor]
	if f == nil {
		t.Skipf("%s: not built in Go yet", ctor)
	}
	layers.ClearSession()
	m, err := f(kwargsOptions(t, kw)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// kerasRows are the model's layers as the case lists them: model.layers
// without the operation nodes Keras does not list.
func kerasRows(m *keras.Model, withSummary bool, summary map[string][2]string) [][]string {
	paths := kerasPaths(m)
	var rows [][]string
	for _, l := range m.Layers() {
		if _, ok := l.(*layers.Operation); ok {
			continue
		}
		row := []string{l.Name(), l.ClassName()}
		for _, v := range l.Weights() {
			p := paths[v]
			row = append(row, p[strings.LastIndex(p, "/")+1:]+":"+shapeText(v.Shape()))
		}
		if withSummary {
			s := summary[l.Name()+" ("+l.ClassName()+")"]
			row = append(row, "#"+s[0]+"#"+s[1])
		}
		rows = append(rows, row)
	}
	return rows
}

// kerasPaths are the model's variables' paths in Keras 3
// ("conv1_conv/kernel", "convnext_tiny_stem/convnext_tiny_stem_conv/kernel"
// for a nested model's): gokeras names its variables as Keras 3 does
// (DepthwiseConv2D's "kernel", LayerScale's unnamed "variable",
// "variable_1", ...), so a path is the layer's name and the variable's.
func kerasPaths(m *keras.Model) map[*ops.Variable]string {
	out := map[*ops.Variable]string{}
	for _, l := range m.Layers() {
		for _, v := range l.Weights() {
			name, nested := strings.CutPrefix(v.Name(), l.Name()+"/")
			if !nested {
				name = v.Name() // a nested model's layer's variable
			}
			out[v] = l.Name() + "/" + name
		}
	}
	return out
}

func shapeText(s []int) string {
	if len(s) == 0 {
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, "x")
}

// summaryRows reads the rows of Model.Summary's table (Keras 2's layout,
// cells wrapped onto following lines): layer "name (Class)" to its
// output shape, written as the case writes Keras' ("None,112,112,64"),
// and parameter count.
func summaryRows(t *testing.T, m *keras.Model) (map[string][2]string, string) {
	t.Helper()
	text, err := m.SummaryString()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][2]string{}
	lines := strings.Split(text, "\n")
	var cell [3]strings.Builder
	flush := func() {
		if cell[0].Len() > 0 {
			shape := strings.Trim(cell[1].String(), "[]()")
			shape = strings.ReplaceAll(strings.ReplaceAll(shape, " ", ""), "-1", "None")
			rows[cell[0].String()] = [2]string{shape, cell[2].String()}
		}
		for i := range cell {
			cell[i].Reset()
		}
	}
	in := false
	for _, ln := range lines {
		switch {
		case strings.HasPrefix(ln, "==="):
			flush()
			in = !in
			continue
		case !in:
			continue
		case strings.TrimSpace(ln) == "":
			flush()
			continue
		}
		ln += strings.Repeat(" ", 100)
		cell[0].WriteString(strings.TrimSpace(ln[:32]))
		cell[1].WriteString(strings.TrimSpace(ln[32:53]))
		cell[2].WriteString(strings.TrimSpace(ln[53:65]))
	}
	return rows, text
}

// TestStructureMatchesKeras: every constructor builds Keras' model for
// Keras' defaults and a few other arguments: the model's name, its
// trainable and non-trainable parameter counts, and model.layers in
// order with their names, classes and variables (names and shapes, in
// the order Keras saves them), which is what Keras' weight files are
// keyed by; for some cases also the rows of the summary (each layer's
// output shape and parameter count).
func TestStructureMatchesKeras(t *testing.T) {
	for _, c := range readStructure(t) {
		t.Run(caseName(c.Constructor, c.Kwargs), func(t *testing.T) {
			m := build(t, c.Constructor, c.Kwargs)
			if m.Name() != c.Name {
				t.Errorf("model name %q, Keras %q", m.Name(), c.Name)
			}
			tr, non := 0, 0
			for _, v := range m.TrainableVariables() {
				tr += v.Shape().Size()
			}
			for _, v := range m.NonTrainableVariables() {
				non += v.Shape().Size()
			}
			if tr != c.Trainable || non != c.NonTrainable {
				t.Errorf("parameters: %d trainable, %d non-trainable; Keras %d, %d", tr, non, c.Trainable, c.NonTrainable)
			}
			withSummary := len(c.Layers) > 0 && strings.HasPrefix(c.Layers[0][len(c.Layers[0])-1], "#")
			var summary map[string][2]string
			if withSummary {
				var text string
				summary, text = summaryRows(t, m)
				total := fmt.Sprintf("Total params: %s\n", commas(c.Trainable+c.NonTrainable))
				if !strings.Contains(text, total) || !strings.Contains(text, fmt.Sprintf("Non-trainable params: %s\n", commas(c.NonTrainable))) {
					t.Errorf("summary totals differ from Keras' (%s):\n%s", strings.TrimSpace(total), text[len(text)-200:])
				}
			}
			got := kerasRows(m, withSummary, summary)
			bad := 0
			for i := 0; i < max(len(got), len(c.Layers)); i++ {
				var g, w []string
				if i < len(got) {
					g = got[i]
				}
				if i < len(c.Layers) {
					w = c.Layers[i]
				}
				if !slices.Equal(g, w) {
					if bad++; bad <= 5 {
						t.Errorf("layer %d: %q, Keras %q", i, g, w)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d layers differ (Go %d layers)", bad, len(c.Layers), len(got))
			}
		})
	}
}

func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
