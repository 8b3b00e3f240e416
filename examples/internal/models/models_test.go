package models

import (
	"strings"
	"testing"
)

// The parameter counts Keras prints for the tutorials' models.
func TestSummaryCounts(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func() (interface{ SummaryString() (string, error) }, error)
		want  []string
	}{
		{"mnist_cnn", func() (interface{ SummaryString() (string, error) }, error) { return MNISTCNN() },
			[]string{"Total params: 225,034", "Trainable params: 225,034", "Non-trainable params: 0"}},
		{"resnet_seed", func() (interface{ SummaryString() (string, error) }, error) { return ResNetSeed() },
			[]string{"Total params: 2,796,490", "Trainable params: 2,791,882", "Non-trainable params: 4,608", "Connected to"}},
	} {
		m, err := c.build()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s, err := m.SummaryString()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(s, w+"\n") && !strings.Contains(s, w) {
				t.Errorf("%s: summary lacks %q:\n%s", c.name, w, s)
			}
		}
	}
}
