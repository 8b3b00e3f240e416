package models

import (
	"math"
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

// TestResNetTorchInit: the PyTorch-style initialisation bounds every
// kernel and bias by 1/sqrt(fan_in) of its layer, and reaches the bound
// (Keras' glorot_uniform limit is larger for every 3x3 convolution here).
func TestResNetTorchInit(t *testing.T) {
	m, err := ResNetSeedWith(TorchInit)
	if err != nil {
		t.Fatal(err)
	}
	convs := 0
	for _, l := range m.Layers() {
		ws := l.TrainableWeights()
		if len(ws) != 2 || len(ws[0].Shape()) < 2 || l.ClassName() == "BatchNormalization" {
			continue
		}
		convs++
		s := ws[0].Shape()
		fanIn := 1
		for _, d := range s[:len(s)-1] {
			fanIn *= d
		}
		limit := 1 / math.Sqrt(float64(fanIn))
		for i, w := range ws {
			maxAbs := 0.0
			for _, x := range w.Numpy() {
				maxAbs = math.Max(maxAbs, math.Abs(float64(x)))
			}
			if maxAbs > limit || (i == 0 && maxAbs < 0.95*limit) {
				t.Errorf("%s: |%s| up to %v, limit 1/sqrt(%d) = %v", l.Name(), w.Name(), maxAbs, fanIn, limit)
			}
		}
	}
	if convs != 17 {
		t.Errorf("%d convolutions and dense layers checked, want 17", convs)
	}
}
