package layers

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestDiscretizationAndCategoryEncodingErrors: bad settings and data give
// errors, never panics.
func TestDiscretizationAndCategoryEncodingErrors(t *testing.T) {
	for _, s := range []DiscretizationSettings{
		{},
		{NumBins: -1},
		{BinBoundaries: []float64{1, 0}},
		{BinBoundaries: []float64{0}, OutputMode: "tf_idf"},
		{NumBins: 3, Epsilon: 2},
	} {
		if NewDiscretization(s).Err() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if err := NewDiscretization(DiscretizationSettings{BinBoundaries: []float64{0}}).Adapt(ops.Shape{2}, []float32{1, 2}); err == nil {
		t.Error("Adapt without num_bins accepted")
	}
	d := NewDiscretization(DiscretizationSettings{NumBins: 2})
	if err := d.Adapt(ops.Shape{3}, []float32{1, 2}); err == nil {
		t.Error("Adapt with too few values accepted")
	}
	nan := float32(0)
	nan /= nan
	if err := d.Adapt(ops.Shape{2}, []float32{1, nan}); err == nil {
		t.Error("Adapt on NaN accepted")
	}
	for _, s := range []CategoryEncodingSettings{{}, {NumTokens: 3, OutputMode: "int"}} {
		if NewCategoryEncoding(s).Err() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if _, err := OutputShape(NewCategoryEncoding(CategoryEncodingSettings{NumTokens: 3}), []ops.Shape{{-1, 2, 2}}); err == nil {
		t.Error("multi_hot of a rank-3 input accepted")
	}
}
