package layers

import (
	"strings"
	"testing"
)

// FuzzTextVectorization adapts a TextVectorization made from fuzzed
// settings on a fuzzed corpus and calls it on fuzzed text: no panic, and
// every output has the documented shape with ids inside the vocabulary.
func FuzzTextVectorization(f *testing.F) {
	f.Add("The cat sat.\nA dog, a cat!", "the dog ran\n\nÉclair", byte(0), byte(0), byte(0))
	f.Add("a b c\nb c\nc", "c b a z", byte(3), byte(1), byte(7))
	f.Add("x\ny\nx", "x\nq", byte(0x42), byte(2), byte(3))
	f.Fuzz(func(t *testing.T, corpus, query string, mode, split, sizes byte) {
		modes := []string{"int", "multi_hot", "count", "tf_idf"}
		s := TextVectorizationSettings{
			OutputMode:     modes[mode%4],
			Split:          []string{"whitespace", "character", "none"}[split%3],
			Standardize:    []string{"lower_and_strip_punctuation", "lower", "strip_punctuation", "none"}[(mode>>2)%4],
			MaxTokens:      int(sizes%8) * 2,
			PadToMaxTokens: sizes&0x40 != 0,
		}
		if s.Split != "none" {
			s.Ngrams = int(split>>2) % 4
			if s.OutputMode == "int" {
				s.OutputSequenceLength = int(sizes>>3) % 8
			}
		}
		l := NewTextVectorization(s)
		if l.Err() != nil {
			return
		}
		if err := l.Adapt(strings.Split(corpus, "\n")); err != nil {
			t.Fatal(err)
		}
		docs := strings.Split(query, "\n")
		y, err := l.Call(docs)
		if err != nil {
			return // e.g. tf_idf padded to max_tokens before any token was learned
		}
		shape := []int(y.Shape())
		data, _ := y.Data().([]float32)
		if y.Shape().TotalSize() == 0 {
			data = nil
		}
		switch {
		case s.OutputMode == "int" && s.Split == "none":
			if len(shape) != 1 || shape[0] != len(docs) {
				t.Fatalf("shape %v for %d inputs", shape, len(docs))
			}
		case s.OutputMode == "int":
			if len(shape) != 2 || shape[0] != len(docs) || (s.OutputSequenceLength > 0 && shape[1] != s.OutputSequenceLength) {
				t.Fatalf("shape %v for %d documents, settings %+v", shape, len(docs), s)
			}
		default:
			want := l.VocabularySize()
			if s.PadToMaxTokens && s.MaxTokens > 0 {
				want = s.MaxTokens
			}
			if shape[len(shape)-1] != want {
				t.Fatalf("width %d, want %d (settings %+v)", shape[len(shape)-1], want, s)
			}
		}
		if s.OutputMode == "int" {
			for _, v := range data {
				if v < 0 || int(v) >= l.VocabularySize() {
					t.Fatalf("id %v outside a vocabulary of %d", v, l.VocabularySize())
				}
			}
		}
	})
}
