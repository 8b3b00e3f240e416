package datasets

import (
	"fmt"
	"strings"
	"testing"
)

// TestTFDataSemantics checks cardinalities and elements against tf.data
// (tensorflow 2.21), recorded with:
//
//	r = tf.data.Dataset.range(5)
//	r.repeat().cardinality()                    # -1
//	r.take(-1).cardinality(), list(r.take(-1))  # 5, [0 1 2 3 4]
//	list(r.repeat().take(7))                    # [0 1 2 3 4 0 1]
//	r.skip(-1).cardinality()                    # 0
//	list(r.repeat(2).skip(3))                   # [3 4 0 1 2 3 4]
//	r.prefetch(tf.data.AUTOTUNE).cardinality()  # 5 (AUTOTUNE is -1)
//	tf.data.Dataset.range(0).repeat().cardinality()  # 0
func TestTFDataSemantics(t *testing.T) {
	r := Range(5)
	for _, c := range []struct {
		name string
		ds   *Dataset
		card int
		want string // elements; "" for an infinite dataset
	}{
		{"repeat()", r.Repeat(), Infinite, ""},
		{"take(-1)", r.Take(-1), 5, "[0 1 2 3 4]"},
		{"repeat().take(7)", r.Repeat().Take(7), 7, "[0 1 2 3 4 0 1]"},
		{"skip(-1)", r.Skip(-1), 0, "[]"},
		{"repeat(2).skip(3)", r.Repeat(2).Skip(3), 7, "[3 4 0 1 2 3 4]"},
		{"prefetch(AUTOTUNE)", r.Prefetch(Autotune), 5, "[0 1 2 3 4]"},
		{"range(0).repeat()", Range(0).Repeat(), 0, "[]"},
	} {
		if got := c.ds.Cardinality(); got != c.card {
			t.Errorf("%s: cardinality %d, want %d", c.name, got, c.card)
		}
		if c.want == "" {
			continue
		}
		es, err := collect(t, c.ds)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		vals := make([]string, len(es))
		for i, e := range es {
			vals[i] = fmt.Sprint(e[0].Data())
		}
		if got := "[" + strings.Join(vals, " ") + "]"; got != c.want {
			t.Errorf("%s: elements %s, want %s", c.name, got, c.want)
		}
	}
	if _, err := collect(t, r.Repeat(1, 2)); err == nil || !strings.Contains(err.Error(), "Repeat") {
		t.Errorf("Repeat(1, 2): error %v", err)
	}
}
