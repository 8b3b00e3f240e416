package optimizers

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

func TestAdamWDefaults(t *testing.T) {
	// Default weight_decay 0.004 with lr 0.001: first decay factor 1-4e-6.
	run(t, NewAdamW(), adamRef(0.001, 0.9, 0.999, 1e-7, 0.004, false, stepGrads))
}

func TestAdamW(t *testing.T) {
	opt := NewAdamW(LearningRate(0.1), WeightDecay(0.5), Amsgrad(true))
	run(t, opt, adamRef(0.1, 0.9, 0.999, 1e-7, 0.5, true, stepGrads))
	if opt.Name() != "adamw" || opt.GetConfig()["weight_decay"] != 0.5 {
		t.Errorf("name %q config %v", opt.Name(), opt.GetConfig())
	}
}

func TestAdamWDecayBeforeStep(t *testing.T) {
	// With a zero gradient Adam's step is 0, leaving only the decay:
	// w = 1 - 1*0.5*0.1.
	opt := NewAdamW(LearningRate(0.1), WeightDecay(0.5))
	v := newVar("w", 1)
	if err := opt.Apply(nil, [][]float32{{0}}, nil); err == nil {
		t.Error("length mismatch accepted")
	}
	if err := opt.Apply(nil, [][]float32{{0}}, []*ops.Variable{v}); err != nil {
		t.Fatal(err)
	}
	approx(t, "w", v.Data(0), []float64{0.95})
}
