package optimizers

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// lossScaleKeras is testdata/keras/loss_scale_optimizer.json, written by
// tools/keras_reference/mixed_vectors.py: Keras 3's LossScaleOptimizer
// around Adam(0.01), initial_scale 8, dynamic_growth_steps 2, applying
// six sets of scaled gradients, two of them with an inf or a NaN.
type lossScaleKeras struct {
	Kernel0       []float32 `json:"kernel0"`
	Bias0         []float32 `json:"bias0"`
	InitialScale  float64   `json:"initial_scale"`
	GrowthSteps   int       `json:"dynamic_growth_steps"`
	LearningRate  float64   `json:"learning_rate"`
	ScaleBefore   float64   `json:"scale_loss_1_5_before_build"`
	Config        map[string]any
	DefaultConfig map[string]any `json:"default_config"`
	Steps         []struct {
		Grads        [][]any
		Kernel, Bias []float32
		DynamicScale float64 `json:"dynamic_scale"`
		StepCounter  int64   `json:"step_counter"`
		Iterations   int64
		ScaleLoss    float64 `json:"scale_loss_1_5"`
	}
}

func readLossScaleKeras(t *testing.T) lossScaleKeras {
	t.Helper()
	raw, err := os.ReadFile("testdata/keras/loss_scale_optimizer.json")
	if err != nil {
		t.Fatal(err)
	}
	var c lossScaleKeras
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) < 3 {
		t.Fatalf("%d steps in the vectors", len(c.Steps))
	}
	return c
}

func jsonFloats(t *testing.T, v []any) []float32 {
	t.Helper()
	out := make([]float32, len(v))
	for i, x := range v {
		switch x := x.(type) {
		case float64:
			out[i] = float32(x)
		case string:
			switch x {
			case "inf":
				out[i] = float32(math.Inf(1))
			case "-inf":
				out[i] = float32(math.Inf(-1))
			case "nan":
				out[i] = float32(math.NaN())
			default:
				t.Fatalf("bad value %q", x)
			}
		}
	}
	return out
}

// scaleLossValue runs ScaleLoss on a constant in a trace.
func scaleLossValue(t *testing.T, o *LossScaleOptimizer, loss float32) float64 {
	t.Helper()
	tr := ops.NewTrace(false, 0, 0)
	y := o.ScaleLoss(tr.Constant(ops.Shape{}, []float32{loss}))
	p, err := engine.Compile(tr, []ops.Tensor{y})
	if err != nil {
		t.Fatal(err)
	}
	vals, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return float64(vals[0].Data[0])
}

// TestLossScaleOptimizerMatchesKeras applies Keras' gradients through
// ApplyGradients' hook (a traced step feeding the gradients) and compares
// weights, scale, counter and iterations after every step.
func TestLossScaleOptimizerMatchesKeras(t *testing.T) {
	c := readLossScaleKeras(t)
	inner := NewAdam(LearningRate(c.LearningRate))
	o := NewLossScaleOptimizer(inner, InitialScale(c.InitialScale), DynamicGrowthSteps(c.GrowthSteps))
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}
	if got := scaleLossValue(t, o, 1.5); got != c.ScaleBefore {
		t.Errorf("scale_loss(1.5) before any step = %g, Keras %g", got, c.ScaleBefore)
	}
	k := ops.NewVariable("dense/kernel", ops.Shape{3, 2}, append([]float32(nil), c.Kernel0...), true)
	b := ops.NewVariable("dense/bias", ops.Shape{2}, append([]float32(nil), c.Bias0...), true)
	tr := ops.NewTrace(true, 0, 0)
	gk, gb := tr.Input("gk", ops.Shape{3, 2}), tr.Input("gb", ops.Shape{2})
	if err := o.ApplyGradients([]ops.Tensor{gk, gb}, []*ops.Variable{k, b}); err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{gk})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, step int, got, want []float32) {
		for j := range want {
			if math.Abs(float64(got[j]-want[j])) > 2e-6*math.Max(1, math.Abs(float64(want[j]))) {
				t.Errorf("step %d: %s[%d] = %.8g, Keras %.8g", step+1, what, j, got[j], want[j])
			}
		}
	}
	for i, s := range c.Steps {
		in := []ops.Value{{Shape: ops.Shape{3, 2}, Data: jsonFloats(t, s.Grads[0])}, {Shape: ops.Shape{2}, Data: jsonFloats(t, s.Grads[1])}}
		if _, err := p.Run(engine.Single{}, in); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		near("kernel", i, k.Data(0), s.Kernel)
		near("bias", i, b.Data(0), s.Bias)
		if got := o.DynamicScale(); got != s.DynamicScale {
			t.Errorf("step %d: dynamic_scale %g, Keras %g", i+1, got, s.DynamicScale)
		}
		if got := o.StepCounter(); got != s.StepCounter {
			t.Errorf("step %d: step_counter %d, Keras %d", i+1, got, s.StepCounter)
		}
		if got := o.Iterations(); got != s.Iterations {
			t.Errorf("step %d: iterations %d, Keras %d", i+1, got, s.Iterations)
		}
		if got := scaleLossValue(t, o, 1.5); got != s.ScaleLoss {
			t.Errorf("step %d: scale_loss(1.5) = %g, Keras %g", i+1, got, s.ScaleLoss)
		}
	}
}

// TestLossScaleOptimizerApplyMatchesKeras is the same through Apply.
func TestLossScaleOptimizerApplyMatchesKeras(t *testing.T) {
	c := readLossScaleKeras(t)
	o := NewLossScaleOptimizer(NewAdam(LearningRate(c.LearningRate)), InitialScale(c.InitialScale), DynamicGrowthSteps(c.GrowthSteps))
	k := ops.NewVariable("dense/kernel", ops.Shape{3, 2}, append([]float32(nil), c.Kernel0...), true)
	b := ops.NewVariable("dense/bias", ops.Shape{2}, append([]float32(nil), c.Bias0...), true)
	for i, s := range c.Steps {
		if err := o.Apply(nil, [][]float32{jsonFloats(t, s.Grads[0]), jsonFloats(t, s.Grads[1])}, []*ops.Variable{k, b}); err != nil {
			t.Fatal(err)
		}
		for j, w := range s.Bias {
			if math.Abs(float64(b.Data(0)[j]-w)) > 2e-6 {
				t.Errorf("step %d: bias %v, Keras %v", i+1, b.Data(0), s.Bias)
				break
			}
		}
		if o.DynamicScale() != s.DynamicScale || o.Iterations() != s.Iterations {
			t.Errorf("step %d: scale %g iterations %d, Keras %g %d", i+1, o.DynamicScale(), o.Iterations(), s.DynamicScale, s.Iterations)
		}
	}
}

// TestLossScaleOptimizerOverflowSkips: an inf gradient leaves the weights
// and the inner optimizer's slots and iterations alone and halves the
// scale; the next finite step updates with the halved scale.
func TestLossScaleOptimizerOverflowSkips(t *testing.T) {
	o := NewLossScaleOptimizer(NewSGD(LearningRate(0.5), Momentum(0.9)))
	if o.DynamicScale() != 32768 {
		t.Fatalf("initial scale %g, want 2^15", o.DynamicScale())
	}
	w := ops.NewVariable("w", ops.Shape{2}, []float32{1, 2}, true)
	if err := o.Apply(nil, [][]float32{{1, float32(math.Inf(1))}}, []*ops.Variable{w}); err != nil {
		t.Fatal(err)
	}
	if w.Data(0)[0] != 1 || w.Data(0)[1] != 2 {
		t.Errorf("weights changed on an overflow: %v", w.Data(0))
	}
	if o.Iterations() != 0 || o.DynamicScale() != 16384 || o.StepCounter() != 0 {
		t.Errorf("after overflow: iterations %d scale %g counter %d, want 0 16384 0", o.Iterations(), o.DynamicScale(), o.StepCounter())
	}
	for _, v := range o.Variables() {
		if strings.Contains(v.Name(), "momentum") && (v.Data(0)[0] != 0 || v.Data(0)[1] != 0) {
			t.Errorf("slot %s changed on an overflow: %v", v.Name(), v.Data(0))
		}
	}
	if err := o.Apply(nil, [][]float32{{16384, -32768}}, []*ops.Variable{w}); err != nil {
		t.Fatal(err)
	}
	// Unscaled gradient (1, -2); SGD with momentum from zero: w -= 0.5 g.
	if w.Data(0)[0] != 0.5 || w.Data(0)[1] != 3 {
		t.Errorf("weights after a finite step %v, want [0.5 3]", w.Data(0))
	}
	if o.Iterations() != 1 || o.StepCounter() != 1 {
		t.Errorf("after a finite step: iterations %d counter %d, want 1 1", o.Iterations(), o.StepCounter())
	}
}

// TestLossScaleOptimizerGrowth: the scale doubles after
// dynamic_growth_steps finite steps in a row, and a NaN resets the count.
func TestLossScaleOptimizerGrowth(t *testing.T) {
	o := NewLossScaleOptimizer(NewSGD(), InitialScale(4), DynamicGrowthSteps(3))
	w := ops.NewVariable("w", ops.Shape{1}, []float32{0}, true)
	apply := func(g float32) {
		t.Helper()
		if err := o.Apply(nil, [][]float32{{g}}, []*ops.Variable{w}); err != nil {
			t.Fatal(err)
		}
	}
	want := []float64{4, 4, 8, 8, 8, 16}
	for i, s := range want {
		apply(1)
		if o.DynamicScale() != s {
			t.Fatalf("after %d finite steps: scale %g, want %g", i+1, o.DynamicScale(), s)
		}
	}
	apply(1)
	apply(float32(math.NaN()))
	if o.DynamicScale() != 8 || o.StepCounter() != 0 {
		t.Fatalf("after a NaN: scale %g counter %d, want 8 0", o.DynamicScale(), o.StepCounter())
	}
	apply(1)
	apply(1)
	if o.DynamicScale() != 8 {
		t.Fatalf("the NaN did not reset the count: scale %g", o.DynamicScale())
	}
	apply(1)
	if o.DynamicScale() != 16 {
		t.Fatalf("scale %g after 3 finite steps, want 16", o.DynamicScale())
	}
	if o.Iterations() != 10 {
		t.Errorf("iterations %d, want 10 (one step skipped)", o.Iterations())
	}
}

// TestLossScaleOptimizerReplicasSkipTogether: one replica's gradient holds
// an inf, the other's is finite; both skip and both halve their scale,
// the copies staying equal.
func TestLossScaleOptimizerReplicasSkipTogether(t *testing.T) {
	o := NewLossScaleOptimizer(NewAdam(), InitialScale(64))
	w := ops.NewVariable("w", ops.Shape{2}, []float32{1, -1}, true)
	w.Mirror(2)
	g := newGroup(2)
	grads := [][][]float32{{{1, float32(math.Inf(-1))}}, {{2, 3}}, {{1, 2}}, {{3, 4}}}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for r := range 2 {
		wg.Go(func() {
			errs[r] = o.Apply(member{g, r}, grads[r], []*ops.Variable{w})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for r := range 2 {
		if w.Data(r)[0] != 1 || w.Data(r)[1] != -1 {
			t.Errorf("replica %d stepped on an inf of replica 0: %v", r, w.Data(r))
		}
		if s := o.scale.Data(r)[0]; s != 32 {
			t.Errorf("replica %d scale %g, want 32", r, s)
		}
	}
	for r := range 2 {
		wg.Go(func() {
			errs[r] = o.Apply(member{g, r}, grads[2+r], []*ops.Variable{w})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if w.Data(0)[0] == 1 || math.Float32bits(w.Data(0)[0]) != math.Float32bits(w.Data(1)[0]) {
		t.Errorf("finite step: copies %v %v", w.Data(0), w.Data(1))
	}
	if o.Iterations() != 1 {
		t.Errorf("iterations %d, want 1", o.Iterations())
	}
}

// TestLossScaleOptimizerConfig compares GetConfig with Keras' get_config.
func TestLossScaleOptimizerConfig(t *testing.T) {
	c := readLossScaleKeras(t)
	o := NewLossScaleOptimizer(NewAdam(LearningRate(c.LearningRate)), InitialScale(c.InitialScale), DynamicGrowthSteps(c.GrowthSteps))
	got := o.GetConfig()
	for _, k := range []string{"name", "initial_scale"} {
		if got[k] != c.Config[k] {
			t.Errorf("config %s = %v, Keras %v", k, got[k], c.Config[k])
		}
	}
	if float64(got["dynamic_growth_steps"].(int64)) != c.Config["dynamic_growth_steps"] {
		t.Errorf("dynamic_growth_steps %v, Keras %v", got["dynamic_growth_steps"], c.Config["dynamic_growth_steps"])
	}
	inner, _ := got["inner_optimizer"].(map[string]any)
	kin, _ := c.Config["inner_optimizer"].(map[string]any)
	if inner["class_name"] != kin["class_name"] || inner["module"] != kin["module"] {
		t.Errorf("inner_optimizer %v, Keras %v", inner, kin)
	}
	def := NewLossScaleOptimizer(NewSGD()).GetConfig()
	if def["initial_scale"] != c.DefaultConfig["initial_scale"] || float64(def["dynamic_growth_steps"].(int64)) != c.DefaultConfig["dynamic_growth_steps"] {
		t.Errorf("defaults %v, Keras %v", def, c.DefaultConfig)
	}
}

func TestLossScaleOptimizerErrors(t *testing.T) {
	w := ops.NewVariable("w", ops.Shape{1}, []float32{0}, true)
	var nilAdam *Adam
	for _, c := range []struct {
		o    *LossScaleOptimizer
		want string
	}{
		{NewLossScaleOptimizer(nil), "nil"},
		{NewLossScaleOptimizer(nilAdam), "nil"},
		{NewLossScaleOptimizer(NewLossScaleOptimizer(NewSGD())), "already a LossScaleOptimizer"},
		{NewLossScaleOptimizer(NewSGD(), InitialScale(0)), "initial_scale"},
		{NewLossScaleOptimizer(NewSGD(), InitialScale(math.Inf(1))), "initial_scale"},
		{NewLossScaleOptimizer(NewSGD(), DynamicGrowthSteps(0)), "dynamic_growth_steps"},
	} {
		if err := c.o.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Err() = %v, want one containing %q", err, c.want)
		}
		if err := c.o.Apply(nil, [][]float32{{1}}, []*ops.Variable{w}); err == nil {
			t.Errorf("Apply with a bad optimizer succeeded (%q)", c.want)
		}
		_ = c.o.Variables()
		_ = c.o.Iterations()
	}
	o := NewLossScaleOptimizer(NewSGD())
	if err := o.Apply(nil, [][]float32{{1, 2}}, []*ops.Variable{w}); err == nil {
		t.Error("a gradient of the wrong size was accepted")
	}
}

// TestLossScaleOptimizerCustomLoop: a custom loop's gradients of
// ScaleLoss(loss), unscaled by GetUnscaledGradients, are the gradients of
// loss; given to ApplyGradients scaled, they make the same step as the
// inner optimizer given the unscaled ones.
func TestLossScaleOptimizerCustomLoop(t *testing.T) {
	o := NewLossScaleOptimizer(NewSGD(LearningRate(0.1)), InitialScale(1024))
	ref := NewSGD(LearningRate(0.1))
	w := ops.NewVariable("w", ops.Shape{3}, []float32{1, -2, 0.5}, true)
	w2 := ops.NewVariable("w2", ops.Shape{3}, []float32{1, -2, 0.5}, true)
	build := func(v *ops.Variable, scaled bool) (*ops.Trace, ops.Tensor, []ops.Tensor) {
		tr := ops.NewTrace(true, 0, 0)
		loss := ops.Sum(ops.Square(tr.Read(v)), false)
		target := loss
		if scaled {
			target = o.GetScaledLoss(loss)
		}
		g, err := ops.Gradients(target, []*ops.Variable{v})
		if err != nil {
			t.Fatal(err)
		}
		return tr, loss, g
	}
	tr, _, g := build(w, true)
	un := o.GetUnscaledGradients(g)
	if err := o.ApplyGradients(g, []*ops.Variable{w}); err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{g[0], un[0]})
	if err != nil {
		t.Fatal(err)
	}
	tr2, _, g2 := build(w2, false)
	if err := ref.ApplyGradients(g2, []*ops.Variable{w2}); err != nil {
		t.Fatal(err)
	}
	p2, err := engine.Compile(tr2, []ops.Tensor{g2[0]})
	if err != nil {
		t.Fatal(err)
	}
	for step := range 3 {
		vals, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		refVals, err := p2.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			if vals[1].Data[j] != refVals[0].Data[j] || vals[0].Data[j] != 1024*refVals[0].Data[j] {
				t.Errorf("step %d: scaled %v unscaled %v, want %v", step, vals[0].Data, vals[1].Data, refVals[0].Data)
			}
			if w.Data(0)[j] != w2.Data(0)[j] {
				t.Errorf("step %d: weights %v, inner optimizer alone %v", step, w.Data(0), w2.Data(0))
			}
		}
	}
}
