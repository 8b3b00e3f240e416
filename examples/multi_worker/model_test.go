package main

import (
	"strings"
	"testing"
)

// TestBuildModel: -model builds the tutorial's CNN or the seed ResNet
// (Keras' 2,796,490 parameters), refuses other names, and the custom
// loop takes only the CNN.
func TestBuildModel(t *testing.T) {
	for name, params := range map[string]int{"cnn": 2770634, "resnet_seed": 2796490, "resnet50": 23608202} {
		m, err := buildModel(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.CountParams(); got != params {
			t.Errorf("%s: %d parameters, want %d", name, got, params)
		}
	}
	if _, err := buildModel("vgg"); err == nil || !strings.Contains(err.Error(), "vgg") {
		t.Errorf("buildModel(vgg): %v", err)
	}
	c := config{epochs: 1, perWorkerBatch: 64, replicas: 1, learningRate: 0.001, model: "resnet_seed", customLoop: true}
	if err := validate(c); err == nil || !strings.Contains(err.Error(), "custom loop") {
		t.Errorf("validate(resnet_seed, custom loop): %v", err)
	}
	c.customLoop = false
	if err := validate(c); err != nil {
		t.Errorf("validate(resnet_seed): %v", err)
	}
	x, y := syntheticImages(5, 1)
	if s := x.Shape(); len(s) != 4 || s[0] != 5 || s[1] != 32 || s[3] != 3 || y.Shape()[0] != 5 {
		t.Errorf("synthetic images %v, labels %v", x.Shape(), y.Shape())
	}
}
