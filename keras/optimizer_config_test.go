package keras_test

import (
	"encoding/json"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestOptimizerConfigRoundTrip: an optimizer's config, through JSON as the
// parameter servers receive it, builds an optimizer with the same config.
func TestOptimizerConfigRoundTrip(t *testing.T) {
	for _, opt := range []optimizers.Optimizer{
		optimizers.NewSGD(optimizers.LearningRate(0.05), optimizers.Momentum(0.9)),
		optimizers.NewAdam(optimizers.LearningRate(0.002), optimizers.ClipNorm(1)),
		optimizers.NewRMSprop(),
	} {
		b, err := json.Marshal(keras.OptimizerConfig(opt))
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		got, err := keras.OptimizerFromConfig(cfg)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		want, have := opt.GetConfig(), got.GetConfig()
		for k, v := range want {
			if have[k] != v {
				t.Errorf("%s: %s = %v, want %v", opt.Name(), k, have[k], v)
			}
		}
	}
	if _, err := keras.OptimizerFromConfig(map[string]any{"class_name": "Nope"}); err == nil {
		t.Error("unknown class accepted")
	}
}
