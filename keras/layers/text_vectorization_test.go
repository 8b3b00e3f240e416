package layers

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestTextVectorizationGoFuncs checks a Go standardize and split function,
// n-gram widths and output_sequence_length by hand, and that the config
// (with the functions named) reads back to a layer giving the same ids.
func TestTextVectorizationGoFuncs(t *testing.T) {
	s := TextVectorizationSettings{
		Standardize:     "none",
		StandardizeFunc: strings.ToUpper, StandardizeName: "upper",
		SplitFunc: func(x string) []string { return strings.Split(x, "|") }, SplitName: "bars",
		NgramWidths:          []int{1, 2},
		OutputSequenceLength: 4,
		Vocabulary:           []string{"A", "B", "A B"},
	}
	l := NewTextVectorization(s)
	// 0 "", 1 [UNK], 2 A, 3 B, 4 "A B"
	y, err := l.Call([]string{"a|b", "b|c|a|b", ""})
	if err != nil {
		t.Fatal(err)
	}
	// "a|b": A B "A B" then padding; "b|c|a|b": B C A B, then bigrams cut
	// off; "": one empty token, which is the mask "" (0).
	want := []float32{2, 3, 4, 0, 3, 1, 2, 3, 0, 0, 0, 0}
	if got := y.Data().([]float32); !slices.Equal(got, want) || !slices.Equal([]int(y.Shape()), []int{3, 4}) {
		t.Errorf("ids %v shape %v, want %v (3, 4)", got, y.Shape(), want)
	}
	b, err := json.Marshal(l.GetConfig())
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if _, err := TextVectorizationFromConfig(c, TextVectorizationFuncs{}); err == nil || !strings.Contains(err.Error(), `"upper"`) {
		t.Errorf("config with a Go function but none given: %v", err)
	}
	back, err := TextVectorizationFromConfig(c, TextVectorizationFuncs{Standardize: strings.ToUpper,
		Split: func(x string) []string { return strings.Split(x, "|") }})
	if err != nil {
		t.Fatal(err)
	}
	y2, err := back.Call([]string{"a|b", "b|c|a|b", ""})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(y2.Data().([]float32), want) {
		t.Errorf("read back: ids %v, want %v", y2.Data(), want)
	}
	if got := fmt.Sprint(back.GetConfig()["ngrams"]); got != "[1 2]" {
		t.Errorf("read back ngrams %s, want [1 2]", got)
	}
}

// TestTextVectorizationEmpty checks batches with no tokens: Keras gives
// (n, 0) ids, which a gorgonia tensor cannot hold, so it is an error that
// says so; with an output_sequence_length the ids are all padding.
func TestTextVectorizationEmpty(t *testing.T) {
	l := NewTextVectorization(TextVectorizationSettings{})
	if err := l.Adapt([]string{"a b", "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Call([]string{"", " ,. "}); err == nil || !strings.Contains(err.Error(), "(2, 0)") {
		t.Errorf("documents without tokens: %v", err)
	}
	if _, err := l.Call(nil); err == nil {
		t.Error("empty batch: no error")
	}
	if got := l.GetVocabulary(true); !slices.Equal(got, []string{"", "[UNK]", "b", "a"}) {
		t.Errorf("vocabulary %q", got)
	}
	p := NewTextVectorization(TextVectorizationSettings{OutputSequenceLength: 2, Vocabulary: []string{"a"}})
	y, err := p.Call([]string{"", "..."})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]int(y.Shape()), []int{2, 2}) || !slices.Equal(y.Data().([]float32), []float32{0, 0, 0, 0}) {
		t.Errorf("padding only: %v %v", y.Shape(), y.Data())
	}
}

// TestTextVectorizationErrors checks that bad settings are errors naming
// the layer and the setting.
func TestTextVectorizationErrors(t *testing.T) {
	for _, tc := range []struct {
		s    TextVectorizationSettings
		want string
	}{
		{TextVectorizationSettings{Standardize: "upper"}, "standardize"},
		{TextVectorizationSettings{Split: "comma"}, "split"},
		{TextVectorizationSettings{Ngrams: 2, NgramWidths: []int{2}}, "Ngrams"},
		{TextVectorizationSettings{NgramWidths: []int{0}}, "ngram"},
		{TextVectorizationSettings{Split: "none", Ngrams: 2}, "ngrams"},
		{TextVectorizationSettings{OutputMode: "count", OutputSequenceLength: 3}, "output_sequence_length"},
		{TextVectorizationSettings{Split: "none", OutputSequenceLength: 3}, "output_sequence_length"},
		{TextVectorizationSettings{OutputMode: "one_hot"}, "one_hot"},
		{TextVectorizationSettings{MaxTokens: 1}, "max_tokens"},
		{TextVectorizationSettings{OutputMode: "tf_idf", Vocabulary: []string{"a"}}, "idf_weights"},
	} {
		l := NewTextVectorization(tc.s)
		if err := l.Err(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "TextVectorization") {
			t.Errorf("%+v: error %v, want one naming TextVectorization and %s", tc.s, err, tc.want)
		}
		if _, err := l.Call([]string{"a"}); err == nil {
			t.Errorf("%+v: Call after a settings error gave no error", tc.s)
		}
		if err := l.Adapt([]string{"a"}); err == nil {
			t.Errorf("%+v: Adapt after a settings error gave no error", tc.s)
		}
	}
	if _, err := TextVectorizationFromConfig(map[string]any{"ngrams": 1.5}, TextVectorizationFuncs{}); err == nil {
		t.Error("ngrams 1.5: no error")
	}
	if _, err := TextVectorizationFromConfig(map[string]any{"ragged": true}, TextVectorizationFuncs{}); err == nil {
		t.Error("ragged: no error")
	}
}
