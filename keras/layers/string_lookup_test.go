package layers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func floatsOf(t *testing.T, y any, err error) []float32 {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	d, ok := y.(interface{ Data() any })
	if !ok {
		t.Fatalf("output %T has no data", y)
	}
	v, _ := d.Data().([]float32)
	return v
}

// TestStringLookupHand checks ids, encodings and inversion on a vocabulary
// whose indices are worked out by hand.
func TestStringLookupHand(t *testing.T) {
	l := NewStringLookup(StringLookupSettings{Mask: true, MaskToken: "<pad>", Vocabulary: []string{"x", "y", "z"}})
	// 0 <pad>, 1 [UNK], 2 x, 3 y, 4 z
	y, err := l.Call([]string{"z", "<pad>", "q", "x"})
	if got := floatsOf(t, y, err); !slices.Equal(got, []float32{4, 0, 1, 2}) {
		t.Errorf("ids %v, want [4 0 1 2]", got)
	}
	y, err = l.CallRows([][]string{{"x", "y"}, {"q", "<pad>"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]int(y.Shape()), []int{2, 2}) {
		t.Errorf("CallRows shape %v, want (2, 2)", y.Shape())
	}
	c := NewStringLookup(StringLookupSettings{OutputMode: "count", Vocabulary: []string{"x", "y"}})
	// 0 [UNK], 1 x, 2 y: no mask index outside int mode.
	y, err = c.CallRows([][]string{{"y", "y", "q"}, {"x", "q", "q"}})
	if got := floatsOf(t, y, err); !slices.Equal(got, []float32{1, 0, 2, 2, 1, 0}) {
		t.Errorf("counts %v, want [1 0 2 2 1 0]", got)
	}
	inv := NewStringLookup(StringLookupSettings{Invert: true, Vocabulary: []string{"x", "y"}})
	s, err := inv.Inverse([]int{2, 1, 0, 3, -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"y", "x", "[UNK]", "[UNK]", "[UNK]"}; !slices.Equal(s, want) {
		t.Errorf("Inverse = %q, want %q", s, want)
	}
	if _, err := l.Call(nil); err == nil || !strings.Contains(err.Error(), "no values") {
		t.Errorf("empty batch: %v", err)
	}
}

// TestStringLookupAdaptAgain checks that a second Adapt replaces the
// vocabulary and that the adapted order is count, then reverse bytes.
func TestStringLookupAdaptAgain(t *testing.T) {
	l := NewStringLookup(StringLookupSettings{})
	if err := l.Adapt([]string{"a", "b", "b"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Adapt([]string{"m", "n", "k", "n", "[UNK]"}); err != nil {
		t.Fatal(err)
	}
	if got, want := l.GetVocabulary(false), []string{"n", "m", "k"}; !slices.Equal(got, want) {
		t.Errorf("vocabulary %q, want %q", got, want)
	}
}

// TestStringLookupErrors checks that bad settings and inputs are errors
// naming the layer and the problem, never panics.
func TestStringLookupErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    StringLookupSettings
		want string
	}{
		{"mode", StringLookupSettings{OutputMode: "bag"}, "output_mode"},
		{"max_tokens", StringLookupSettings{MaxTokens: 1}, "max_tokens"},
		{"pad", StringLookupSettings{PadToMaxTokens: true}, "pad_to_max_tokens"},
		{"invert", StringLookupSettings{Invert: true, OutputMode: "count"}, "invert"},
		{"idf", StringLookupSettings{OutputMode: "tf_idf", Vocabulary: []string{"a"}}, "idf_weights"},
		{"idf mode", StringLookupSettings{IDFWeights: []float64{1}, Vocabulary: []string{"a"}}, "idf_weights"},
		{"repeat", StringLookupSettings{Vocabulary: []string{"a", "b", "a"}}, "repeats"},
		{"mask in vocab", StringLookupSettings{Mask: true, Vocabulary: []string{"a", ""}}, "mask token"},
		{"too big", StringLookupSettings{MaxTokens: 3, Vocabulary: []string{"a", "b", "c"}}, "max_tokens"},
		{"oov count", StringLookupSettings{NumOOVIndices: -2}, "num_oov_indices"},
		{"idf length", StringLookupSettings{OutputMode: "tf_idf", Vocabulary: []string{"a", "b"}, IDFWeights: []float64{1}}, "idf_weights"},
	} {
		l := NewStringLookup(tc.s)
		if err := l.Err(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "StringLookup") {
			t.Errorf("%s: error %v, want one naming StringLookup and %s", tc.name, err, tc.want)
		}
		if _, err := l.Call([]string{"a"}); err == nil {
			t.Errorf("%s: Call after a settings error gave no error", tc.name)
		}
	}
	strict := NewStringLookup(StringLookupSettings{NoOOVIndex: true, Vocabulary: []string{"a"}})
	if _, err := strict.Call([]string{"a", "b"}); err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("unknown token with no OOV index: %v", err)
	}
	if err := strict.Adapt([]string{"a"}); err == nil {
		t.Error("Adapt of a layer made with a vocabulary: no error")
	}
	mh := NewStringLookup(StringLookupSettings{OutputMode: "multi_hot"})
	if _, err := mh.Call([]string{"a"}); err == nil || !strings.Contains(err.Error(), "Adapt") {
		t.Errorf("multi_hot before a vocabulary: %v", err)
	}
	if _, err := mh.CallRows([][]string{{"a"}, {"a", "b"}}); err == nil {
		t.Error("rows of unequal length: no error")
	}
	if _, err := mh.Inverse([]int{1}); err == nil {
		t.Error("Inverse without Invert: no error")
	}
	for _, n := range []any{-1.0, 1.5, "2"} {
		if _, err := StringLookupFromConfig(map[string]any{"num_oov_indices": n}); err == nil || !strings.Contains(err.Error(), "num_oov_indices") {
			t.Errorf("num_oov_indices %v: %v", n, err)
		}
	}
	if _, err := StringLookupFromConfig(map[string]any{"num_oov_indices": 2.0, "salt": 7.0}); err == nil || !strings.Contains(err.Error(), "salt") {
		t.Errorf("salt: %v", err)
	}
	if _, err := StringLookupFromConfig(map[string]any{"max_tokens": "many"}); err == nil {
		t.Error("max_tokens as a string: no error")
	}
}

// TestStringLookupAssets saves an adapted tf_idf lookup's vocabulary as
// Keras' vocabulary.txt, loads it into a layer made from the config, and
// checks both encode alike.
func TestStringLookupAssets(t *testing.T) {
	l := NewStringLookup(StringLookupSettings{OutputMode: "tf_idf", Mask: true})
	if err := l.AdaptRows([][]string{{"a", "b", "a"}, {"c", "a", ""}, {"b", "d", "d"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := l.SaveAssets(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "vocabulary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(l.GetVocabulary(true), "\n"); string(b) != want {
		t.Errorf("vocabulary.txt %q, want %q", b, want)
	}
	cj, err := json.Marshal(l.GetConfig())
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(cj, &c); err != nil {
		t.Fatal(err)
	}
	back, err := StringLookupFromConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.LoadAssets(dir, l.IDFWeights()); err != nil {
		t.Fatal(err)
	}
	in := [][]string{{"a", "d", "zz"}, {"", "b", "b"}}
	y1, err := l.CallRows(in)
	if err != nil {
		t.Fatal(err)
	}
	y2, err := back.CallRows(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(y1.Data().([]float32), y2.Data().([]float32)) {
		t.Errorf("after LoadAssets %v, before %v", y2.Data(), y1.Data())
	}
}
