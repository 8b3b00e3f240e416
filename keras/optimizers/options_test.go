package optimizers

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

func TestOptionErrors(t *testing.T) {
	cases := []struct {
		name string
		opt  interface {
			Optimizer
			Err() error
		}
		want string
	}{
		{"beta_1 on SGD", NewSGD(Beta1(0.5)), "beta_1"},
		{"rho on Adam", NewAdam(Rho(0.5)), "rho"},
		{"momentum on AdamW", NewAdamW(Momentum(0.5)), "momentum"},
		{"clipnorm and global", NewAdam(ClipNorm(1), GlobalClipNorm(1)), "only one"},
		{"clipnorm and clipvalue", NewRMSprop(ClipNorm(1), ClipValue(1)), "only one"},
		{"zero clipnorm", NewSGD(ClipNorm(0)), "clipnorm must be > 0"},
		{"SGD momentum", NewSGD(Momentum(1.5)), "[0, 1]"},
		{"negative lr", NewSGD(LearningRate(-1)), "learning_rate"},
		{"negative decay", NewAdamW(WeightDecay(-1)), "weight_decay"},
		{"nil schedule", NewAdam(LearningRateSchedule(nil)), "nil"},
	}
	v := newVar("w", 1)
	for _, c := range cases {
		err := c.opt.Err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Err() = %v, want mention of %q", c.name, err, c.want)
			continue
		}
		if err2 := c.opt.Apply(nil, [][]float32{{1}}, []*ops.Variable{v}); err2 != err {
			t.Errorf("%s: Apply returned %v", c.name, err2)
		}
		if err2 := c.opt.ApplyGradients([]ops.Tensor{{}}, []*ops.Variable{v}); err2 != err {
			t.Errorf("%s: ApplyGradients returned %v", c.name, err2)
		}
	}
	approx(t, "w", v.Data(0), []float64{1})
	for _, o := range []interface{ Err() error }{
		NewSGD(Momentum(1), Nesterov(true), ClipValue(2), WeightDecay(0), Name("x")),
		NewAdam(Beta1(0.5), Beta2(0.5), Epsilon(1), Amsgrad(true), GlobalClipNorm(2)),
		NewRMSprop(Rho(0.5), Momentum(3), Epsilon(1), Centered(true)),
	} {
		if o.Err() != nil {
			t.Errorf("valid options rejected: %v", o.Err())
		}
	}
}

func TestLastLearningRateOptionWins(t *testing.T) {
	s, _ := ExponentialDecay(1, 1, 0.5, false)
	if lr := NewSGD(LearningRateSchedule(s), LearningRate(0.2)).CurrentLearningRate(); lr != 0.2 {
		t.Errorf("lr %v, want 0.2", lr)
	}
	if lr := NewSGD(LearningRate(0.2), LearningRateSchedule(s)).CurrentLearningRate(); lr != 1 {
		t.Errorf("lr %v, want the schedule's 1", lr)
	}
}

func TestGetConfig(t *testing.T) {
	cases := []struct {
		opt  Optimizer
		want map[string]any
	}{
		{NewSGD(), map[string]any{"name": "SGD", "learning_rate": 0.01, "momentum": 0.0, "nesterov": false,
			"weight_decay": nil, "clipnorm": nil, "clipvalue": nil, "global_clipnorm": nil}},
		{NewAdam(ClipNorm(1)), map[string]any{"name": "adam", "learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999,
			"epsilon": 1e-7, "amsgrad": false, "weight_decay": nil, "clipnorm": 1.0, "clipvalue": nil, "global_clipnorm": nil}},
		{NewAdamW(), map[string]any{"name": "adamw", "learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999,
			"epsilon": 1e-7, "amsgrad": false, "weight_decay": 0.004, "clipnorm": nil, "clipvalue": nil, "global_clipnorm": nil}},
		{NewRMSprop(Name("r"), ClipValue(0.5)), map[string]any{"name": "r", "learning_rate": 0.001, "rho": 0.9, "momentum": 0.0,
			"epsilon": 1e-7, "centered": false, "weight_decay": nil, "clipnorm": nil, "clipvalue": 0.5, "global_clipnorm": nil}},
	}
	for _, c := range cases {
		got := c.opt.GetConfig()
		if len(got) != len(c.want) {
			t.Errorf("%s: config %v, want %v", c.opt.Name(), got, c.want)
		}
		for k, w := range c.want {
			if g, ok := got[k]; !ok || g != w {
				t.Errorf("%s: config[%q] = %v (%T), want %v (%T)", c.opt.Name(), k, g, g, w, w)
			}
		}
	}
}
