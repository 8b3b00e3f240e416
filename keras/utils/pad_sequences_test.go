package utils_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/utils"
)

// PadSequences follows keras.utils.pad_sequences: rows of maxlen, padded
// and truncated at the front unless "post", the longest length by default.
func TestPadSequences(t *testing.T) {
	seqs := [][]int{{1, 2, 3}, {4}, {}, {5, 6, 7, 8, 9}}
	for _, c := range []struct {
		cfg   utils.PadConfig
		shape []int
		want  []float32
	}{
		{utils.PadConfig{}, []int{4, 5}, []float32{0, 0, 1, 2, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 5, 6, 7, 8, 9}},
		{utils.PadConfig{MaxLen: 2}, []int{4, 2}, []float32{2, 3, 0, 4, 0, 0, 8, 9}},
		{utils.PadConfig{MaxLen: 2, Truncating: "post"}, []int{4, 2}, []float32{1, 2, 0, 4, 0, 0, 5, 6}},
		{utils.PadConfig{MaxLen: 4, Padding: "post", Value: -1}, []int{4, 4}, []float32{1, 2, 3, -1, 4, -1, -1, -1, -1, -1, -1, -1, 6, 7, 8, 9}},
		{utils.PadConfig{MaxLen: 3, Padding: "post", Truncating: "post"}, []int{4, 3}, []float32{1, 2, 3, 4, 0, 0, 0, 0, 0, 5, 6, 7}},
	} {
		x, err := utils.PadSequences(seqs, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual([]int(x.Shape()), c.shape) || !reflect.DeepEqual(x.Data().([]float32), c.want) {
			t.Errorf("%+v: %v %v, want %v %v", c.cfg, x.Shape(), x.Data(), c.shape, c.want)
		}
	}
	x, err := utils.PadSequences(nil, utils.PadConfig{MaxLen: 3})
	if err != nil || x.Shape()[0] != 0 {
		t.Errorf("no sequences: %v, %v", x, err)
	}
	for _, c := range []struct {
		seqs [][]int
		cfg  utils.PadConfig
		want string
	}{
		{seqs, utils.PadConfig{Padding: "middle"}, "padding"},
		{seqs, utils.PadConfig{Truncating: "both"}, "truncating"},
		{seqs, utils.PadConfig{MaxLen: -1}, "negative"},
		{[][]int{{1 << 25}}, utils.PadConfig{}, "float32"},
		{make([][]int, 1<<20), utils.PadConfig{MaxLen: 1 << 12}, "more than"},
	} {
		if _, err := utils.PadSequences(c.seqs, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one mentioning %q", c.cfg, err, c.want)
		}
	}
}
