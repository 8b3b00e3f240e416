package layers

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"gorgonia.org/tensor"
)

// kerasTextCase is one case of testdata/keras/text.json, written by
// tools/keras_reference/text_vectors.py: a StringLookup or
// TextVectorization config, what it was adapted on (documents, or rows of
// tokens) or the vocabulary set, Keras' vocabulary and idf weights, and
// an input with Keras' output; or, for invert, ids and Keras' strings.
type kerasTextCase struct {
	Name          string
	ClassName     string `json:"class_name"`
	Config        map[string]any
	Adapt         json.RawMessage
	SetVocabulary []string `json:"set_vocabulary"`
	Vocabulary    []string
	IDFWeights    []float32 `json:"idf_weights"`
	Input         json.RawMessage
	OutputShape   []int `json:"output_shape"`
	Output        []float32
	InverseInput  []int    `json:"inverse_input"`
	InverseOutput []string `json:"inverse_output"`
}

// stringsOrRows decodes a JSON list of strings or of lists of strings.
func stringsOrRows(t *testing.T, raw json.RawMessage) ([]string, [][]string) {
	t.Helper()
	var flat []string
	if err := json.Unmarshal(raw, &flat); err == nil {
		return flat, nil
	}
	var rows [][]string
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatalf("input %s is neither strings nor rows of strings", raw)
	}
	return nil, rows
}

// jsonNormal is v as JSON decodes it (ints become float64, []string []any).
func jsonNormal(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTextLayersMatchKeras makes each StringLookup and TextVectorization
// from Keras' own get_config(), adapts it on Keras' data (or sets Keras'
// vocabulary) and compares with Keras: the vocabulary and its order (ties
// included), the idf weights (1e-6 relative: Keras averages in float32),
// the output's shape and values (ids exactly, TF-IDF to 1e-6), the
// inverted strings, and GetConfig with every key of Keras' config.
func TestTextLayersMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[kerasTextCase](t, "testdata/keras/text.json")
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.ClassName] = true
		t.Run(tc.Name, func(t *testing.T) {
			var (
				adapt     func([]string) error
				adaptRows func([][]string) error
				setVocab  func([]string, []float64) error
				call      func([]string) (*tensor.Dense, error)
				callRows  func([][]string) (*tensor.Dense, error)
				vocab     func(bool) []string
				config    func() map[string]any
				lookup    *StringLookup
			)
			switch tc.ClassName {
			case "StringLookup":
				l, err := StringLookupFromConfig(tc.Config)
				if err != nil {
					t.Fatal(err)
				}
				adapt, adaptRows, setVocab, call, callRows = l.Adapt, l.AdaptRows, l.SetVocabulary, l.Call, l.CallRows
				vocab, config, lookup = l.GetVocabulary, l.GetConfig, l
			case "TextVectorization":
				l, err := TextVectorizationFromConfig(tc.Config, TextVectorizationFuncs{})
				if err != nil {
					t.Fatal(err)
				}
				adapt, setVocab, call = l.Adapt, l.SetVocabulary, l.Call
				vocab, config, lookup = l.GetVocabulary, l.GetConfig, l.Lookup()
			default:
				t.Fatalf("no case for class %s", tc.ClassName)
			}
			if len(tc.Adapt) > 0 {
				flat, rows := stringsOrRows(t, tc.Adapt)
				var err error
				if rows != nil {
					if adaptRows == nil {
						t.Fatal("rows to adapt on for a layer without AdaptRows")
					}
					err = adaptRows(rows)
				} else {
					err = adapt(flat)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if tc.SetVocabulary != nil {
				if err := setVocab(tc.SetVocabulary, nil); err != nil {
					t.Fatal(err)
				}
			}
			if got := vocab(true); !slices.Equal(got, tc.Vocabulary) {
				t.Errorf("vocabulary\n got %q\nKeras %q", got, tc.Vocabulary)
			}
			if tc.IDFWeights != nil {
				got := lookup.IDFWeights()
				if len(got) != len(tc.IDFWeights) {
					t.Errorf("idf weights %v, Keras %v", got, tc.IDFWeights)
				}
				for i := range min(len(got), len(tc.IDFWeights)) {
					if w := tc.IDFWeights[i]; !(math.Abs(float64(got[i]-w)) <= 1e-6*math.Abs(float64(w))) {
						t.Errorf("idf[%d] = %.9g, Keras %.9g", i, got[i], w)
					}
				}
			}
			got := jsonNormal(t, config()).(map[string]any)
			for k, want := range tc.Config {
				if g, ok := got[k]; !ok {
					t.Errorf("GetConfig has no %q (Keras: %v)", k, want)
				} else if !reflect.DeepEqual(g, want) {
					t.Errorf("GetConfig()[%q] = %v, Keras %v", k, g, want)
				}
			}
			if tc.InverseInput != nil {
				out, err := lookup.Inverse(tc.InverseInput)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(out, tc.InverseOutput) {
					t.Errorf("Inverse(%v) = %q, Keras %q", tc.InverseInput, out, tc.InverseOutput)
				}
				return
			}
			flat, rows := stringsOrRows(t, tc.Input)
			var y *tensor.Dense
			var err error
			if rows != nil {
				if callRows == nil {
					t.Fatal("rows input for a layer without CallRows")
				}
				y, err = callRows(rows)
			} else {
				y, err = call(flat)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal([]int(y.Shape()), tc.OutputShape) {
				t.Fatalf("output shape %v, Keras %v", y.Shape(), tc.OutputShape)
			}
			data, _ := y.Data().([]float32)
			if y.Shape().TotalSize() == 0 {
				data = nil
			}
			if len(data) != len(tc.Output) {
				t.Fatalf("%d outputs, Keras %d", len(data), len(tc.Output))
			}
			for i, w := range tc.Output {
				if !(math.Abs(float64(data[i]-w)) <= 1e-6*math.Abs(float64(w))) {
					t.Errorf("output[%d] = %.9g, Keras %.9g", i, data[i], w)
				}
			}
		})
	}
	for _, c := range []string{"StringLookup", "TextVectorization"} {
		if !seen[c] {
			t.Errorf("no Keras case for %s", c)
		}
	}
}
