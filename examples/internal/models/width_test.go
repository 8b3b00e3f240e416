package models

import (
	"math"
	"strings"
	"testing"
)

// TestMNISTCNNWidth: the filters scale, the dense units stay, and the
// parameter counts are the hand counts (width 1 is the seed's 225,034).
func TestMNISTCNNWidth(t *testing.T) {
	for _, c := range []struct {
		width  float64
		params string
	}{
		// conv1 9·f+f, conv2 9·f·2f+2f, dense 25·2f·128+128, dense 128·10+10, f = 32·width
		{0.5, "Total params: 108,618"},
		{1, "Total params: 225,034"},
		{2, "Total params: 485,514"},
		{4, "Total params: 1,117,066"},
	} {
		m, err := MNISTCNNWidth(c.width)
		if err != nil {
			t.Fatalf("width %v: %v", c.width, err)
		}
		s, err := m.SummaryString()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s, c.params+"\n") {
			t.Errorf("width %v: summary lacks %q:\n%s", c.width, c.params, s)
		}
	}
	for _, w := range []float64{0, -1, 0.3, 1.0 / 64, math.NaN(), math.Inf(1)} {
		if _, err := MNISTCNNWidth(w); err == nil {
			t.Errorf("width %v: no error", w)
		}
	}
}
