package layers

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestIntegerLookupErrors: unsupported and inconsistent settings, and bad
// Adapt data, give errors.
func TestIntegerLookupErrors(t *testing.T) {
	zero := int64(0)
	for name, s := range map[string]IntegerLookupSettings{
		"mode":           {OutputMode: "bad"},
		"negative oov":   {NumOOVIndices: -2},
		"max_tokens 1":   {MaxTokens: 1},
		"repeat":         {Vocabulary: []int64{3, 3}},
		"mask in vocab":  {Vocabulary: []int64{3, 0}, MaskToken: &zero},
		"too many":       {Vocabulary: []int64{3, 4, 5}, MaxTokens: 3},
		"tf_idf no idf":  {Vocabulary: []int64{3}, OutputMode: "tf_idf"},
		"idf not tf_idf": {Vocabulary: []int64{3}, IDFWeights: []float64{1}},
		"idf length":     {Vocabulary: []int64{3, 4}, OutputMode: "tf_idf", IDFWeights: []float64{1}},
		"huge token":     {Vocabulary: []int64{1 << 30}},
	} {
		if NewIntegerLookup(s).Err() == nil {
			t.Errorf("%s: %+v accepted", name, s)
		}
	}
	l := NewIntegerLookup(IntegerLookupSettings{})
	if err := l.Adapt(ops.Shape{2}, []float32{1, 2.5}); err == nil {
		t.Error("Adapt on 2.5 accepted")
	}
	if err := l.Adapt(ops.Shape{1, 1, 2}, []float32{1, 2}); err == nil {
		t.Error("Adapt on rank 3 accepted")
	}
	if err := l.Adapt(ops.Shape{5}, []float32{4, 7, 7, 4, 9}); err != nil {
		t.Fatal(err)
	}
	// Counts 2, 2, 1: ties by the larger token first.
	if v := l.Vocabulary(); len(v) != 3 || v[0] != 7 || v[1] != 4 || v[2] != 9 {
		t.Errorf("vocabulary %v, want [7 4 9]", v)
	}
	if err := NewIntegerLookup(IntegerLookupSettings{Vocabulary: []int64{1}}).Adapt(ops.Shape{1}, []float32{1}); err == nil {
		t.Error("Adapt with a given vocabulary accepted")
	}
}
