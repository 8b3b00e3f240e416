package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// TestConstraintValues checks each constraint against its formula on a
// 2x2 kernel whose columns (axis 0, Keras' default) have norms 5 and 0.5.
func TestConstraintValues(t *testing.T) {
	w := func() []float32 { return []float32{3, 0.3, -4, 0.4} } // columns (3, -4) and (0.3, 0.4)
	s := ops.Shape{2, 2}
	const eps = 1e-7
	cases := []struct {
		c    layers.Constraint
		want []float64
	}{
		// columns scaled to norm min(n, 2)
		{layers.MaxNorm(2), []float64{3 * 2 / (5 + eps), 0.3 * 0.5 / (0.5 + eps), -4 * 2 / (5 + eps), 0.4 * 0.5 / (0.5 + eps)}},
		// rows (axis 1): norms sqrt(9.09) and sqrt(16.16)
		{layers.MaxNorm(1, 1), []float64{3 / math.Sqrt(9.09), 0.3 / math.Sqrt(9.09), -4 / math.Sqrt(16.16), 0.4 / math.Sqrt(16.16)}},
		{layers.NonNeg(), []float64{3, 0.3, 0, 0.4}},
		{layers.UnitNorm(), []float64{3 / 5.0, 0.3 / 0.5, -4 / 5.0, 0.4 / 0.5}},
		// norms 5 -> 0.5*min(5, 1)+0.5*5 = 3; 0.5 -> 0.5*0.6+0.25 = 0.55
		{layers.MinMaxNorm(0.6, 1, 0.5), []float64{3 * 3 / 5.0, 0.3 * 0.55 / 0.5, -4 * 3 / 5.0, 0.4 * 0.55 / 0.5}},
		// the whole kernel (axes 0 and 1): norm sqrt(25.25)
		{layers.UnitNorm(0, 1), []float64{3 / math.Sqrt(25.25), 0.3 / math.Sqrt(25.25), -4 / math.Sqrt(25.25), 0.4 / math.Sqrt(25.25)}},
	}
	for _, c := range cases {
		got := w()
		c.c.Project(got, s)
		layertest.AllClose(t, c.c.Name(), got, c.want, 1e-6)
	}
	// Zero columns stay zero (the epsilon).
	z := []float32{0, 0, 0, 0}
	layers.UnitNorm().Project(z, s)
	layertest.AllClose(t, "UnitNorm of zeros", z, []float64{0, 0, 0, 0}, 0)
}

func TestGetConstraint(t *testing.T) {
	for _, c := range []layers.Constraint{layers.MaxNorm(3, 0, 1), layers.NonNeg(), layers.UnitNorm(-1), layers.MinMaxNorm(0.1, 2, 0.5)} {
		back, err := layers.GetConstraint(c.Name(), c.Config())
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		if back.Name() != c.Name() {
			t.Errorf("%s came back as %s", c.Name(), back.Name())
		}
		w := []float32{1, -2, 3, -4, 5, -6}
		v := append([]float32(nil), w...)
		c.Project(w, ops.Shape{2, 3})
		back.Project(v, ops.Shape{2, 3})
		layertest.AllClose(t, c.Name()+" from its config", v, f64s(w), 0)
	}
	if c, err := layers.GetConstraint("max_norm", map[string]any{"axis": nil}); err != nil || c.Config()["axis"] != nil {
		t.Errorf("max_norm with axis None: %v, %v", c, err)
	}
	for _, bad := range []map[string]any{{"axis": "x"}, {"max_value": "big"}, {"axis": []any{0.5}}} {
		if _, err := layers.GetConstraint("MaxNorm", bad); err == nil {
			t.Errorf("MaxNorm %v made", bad)
		}
	}
	if _, err := layers.GetConstraint("Clip", nil); err == nil {
		t.Error("unknown constraint made")
	}
}
