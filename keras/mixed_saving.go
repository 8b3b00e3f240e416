package keras

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gokeras/gokeras/internal/hdf5"

	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// compiledOptimizer is the optimizer a compile config records: a
// LossScaleOptimizer's inner optimizer, as Keras 3 records the optimizer
// given to compile (Compile wraps it again under mixed_float16 when the
// model is loaded). It is also the optimizer whose iterations, learning
// rate and slots the saved files hold.
func compiledOptimizer(opt optimizers.Optimizer) optimizers.Optimizer {
	if l, ok := opt.(*optimizers.LossScaleOptimizer); ok && l.Err() == nil {
		return l.InnerOptimizer()
	}
	return opt
}

// configOptimizer is the optimizer the compile config records: the one
// given to Compile, as Keras records compile's argument. A
// LossScaleOptimizer that Compile wrapped around it under mixed_float16
// is not recorded (Compile wraps the loaded model's again); one given to
// Compile is, with its inner optimizer, initial_scale and
// dynamic_growth_steps.
func (m *Model) configOptimizer() optimizers.Optimizer {
	if m.lossScaleAuto {
		return compiledOptimizer(m.optimizer)
	}
	return m.optimizer
}

// lossScaleOptimizerFromConfig builds a LossScaleOptimizer from the config
// Keras 3 writes: name, inner_optimizer (a serialized optimizer),
// initial_scale and dynamic_growth_steps.
func lossScaleOptimizerFromConfig(c map[string]any) (optimizers.Optimizer, error) {
	innerCfg, ok := c["inner_optimizer"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("optimizer LossScaleOptimizer: inner_optimizer is %T, not a serialized optimizer", c["inner_optimizer"])
	}
	if cls, _ := classAndConfig(innerCfg); strings.EqualFold(cls, "LossScaleOptimizer") {
		return nil, fmt.Errorf("optimizer LossScaleOptimizer: the inner optimizer is a LossScaleOptimizer")
	}
	o, err := optimizerFromConfig(innerCfg)
	if err != nil {
		return nil, fmt.Errorf("optimizer LossScaleOptimizer: inner_optimizer: %w", err)
	}
	inner, ok := o.(optimizers.Optimizer)
	if !ok {
		return nil, fmt.Errorf("optimizer LossScaleOptimizer: inner_optimizer %v is not an optimizer", o)
	}
	var opts []optimizers.LossScaleOption
	if s, ok := c["name"].(string); ok && s != "" {
		opts = append(opts, optimizers.LossScaleName(s))
	}
	if x, ok := c["initial_scale"]; ok && x != nil {
		f, ok := toFloat(x)
		if !ok {
			return nil, fmt.Errorf("optimizer LossScaleOptimizer: bad initial_scale %v", x)
		}
		opts = append(opts, optimizers.InitialScale(f))
	}
	if x, ok := c["dynamic_growth_steps"]; ok && x != nil {
		f, ok := toFloat(x)
		if !ok || f != math.Trunc(f) || f < 1 || f > 1<<31 {
			return nil, fmt.Errorf("optimizer LossScaleOptimizer: bad dynamic_growth_steps %v", x)
		}
		opts = append(opts, optimizers.DynamicGrowthSteps(int(f)))
	}
	lso := optimizers.NewLossScaleOptimizer(inner, opts...)
	if err := lso.Err(); err != nil {
		return nil, err
	}
	return lso, nil
}

// lossScaleEntries are a LossScaleOptimizer's groups in a weights file or
// checkpoint, in Keras 3's layout (as a file Keras saves after fit under
// mixed_float16 holds them): "optimizer/vars" with the wrapper's own
// iteration and learning rate (Keras keeps them at 0: the inner optimizer
// counts the steps), its step_counter (int64) and dynamic_scale, then the
// inner optimizer's variables inner (its iteration, learning rate and
// slots); and "optimizer/inner_optimizer/vars" with the inner optimizer's
// variables again. Loading reads both; the inner group's values are the
// ones assigned last (Keras' order), equal to the first copy in files
// either program wrote.
func lossScaleEntries(lso *optimizers.LossScaleOptimizer, inner []structVar) []structEntry {
	vs := lso.Variables() // the inner optimizer's, then step_counter and dynamic_scale
	counter, scale := vs[len(vs)-2], vs[len(vs)-1]
	own := []structVar{
		{kind: kindZeroInt},
		{kind: kindZeroFloat},
		{kind: kindIntVariable, v: counter, shape: counter.Shape()},
		{kind: kindLossScale, v: scale, shape: scale.Shape()},
	}
	name := ""
	if in := lso.InnerOptimizer(); in != nil {
		name = in.Name()
	}
	return []structEntry{
		{path: "optimizer", name: lso.Name(), vars: append(own, inner...), optimizer: true},
		{path: "optimizer/inner_optimizer", name: name, vars: inner, optimizer: true},
	}
}

// optimizerFileVars is how many "optimizer/vars" datasets a file of the
// optimizer holds at most with its current slots: its variables and the
// learning rate, plus, for a LossScaleOptimizer, its own iteration and
// learning rate (its Variables already count step_counter and
// dynamic_scale). A file with more holds slots the optimizer has not made
// yet (it has not trained).
func optimizerFileVars(opt optimizers.Optimizer) int {
	n := len(opt.Variables()) + 1
	if _, ok := opt.(*optimizers.LossScaleOptimizer); ok {
		n += 2
	}
	return n
}

// checkLossScale checks a dynamic_scale read from a file (at path, the
// variable v): one value, positive and finite; a scale of 0, a negative
// one or an inf or NaN would make every later step non-finite or wrong.
func checkLossScale(path string, v *ops.Variable, vals []float32) error {
	if len(vals) != 1 {
		return fmt.Errorf("%s: %d values where the loss scale (%s) is a scalar", path, len(vals), v.Name())
	}
	if s := float64(vals[0]); !(s > 0) || math.IsInf(s, 0) {
		return fmt.Errorf("%s: the loss scale (%s) is %g; it must be positive and finite", path, v.Name(), s)
	}
	return nil
}

// lossScaleCheckpointVars splits a LossScaleOptimizer's variables for a
// Checkpoint: the inner optimizer's (keyed "optimizer/<i>" as any
// optimizer's, so that slots made later do not shift them), and its
// step_counter and dynamic_scale, keyed by name. ok is false for another
// optimizer.
func lossScaleCheckpointVars(opt optimizers.Optimizer) (inner []*ops.Variable, counter, scale *ops.Variable, ok bool) {
	if _, ok := opt.(*optimizers.LossScaleOptimizer); !ok {
		return nil, nil, nil, false
	}
	vs := opt.Variables() // the inner optimizer's, then step_counter and dynamic_scale
	n := len(vs)
	return vs[:n-2], vs[n-2], vs[n-1], true
}

// Checkpoint keys of a LossScaleOptimizer's own variables.
const (
	ckptStepCounterKey  = "optimizer/step_counter"
	ckptDynamicScaleKey = "optimizer/dynamic_scale"
)

// checkLossScaleKeys checks a checkpoint restored into a
// LossScaleOptimizer: it holds both its step_counter and its
// dynamic_scale or neither (a checkpoint of another optimizer, whose
// scale then stays as it is, with a warning).
func checkLossScaleKeys(r *npzReader, vars map[string]*ops.Variable) error {
	v, ok := vars[ckptDynamicScaleKey]
	if !ok {
		return nil
	}
	hasC, hasS := r.has(ckptStepCounterKey), r.has(ckptDynamicScaleKey)
	switch {
	case hasC && !hasS:
		return fmt.Errorf("%s (%s) is missing: the file holds the loss scale's step counter but not the scale", ckptDynamicScaleKey, v.Name())
	case hasS && !hasC:
		return fmt.Errorf("%s (%s) is missing: the file holds the loss scale but not its step counter", ckptStepCounterKey, vars[ckptStepCounterKey].Name())
	case !hasS && r.has("optimizer/0"):
		warnf("keras: the checkpoint holds no loss scale (saved without a LossScaleOptimizer?): %s keeps its scale", v.Name())
	}
	return nil
}

// checkLossScaleValue checks the value a checkpoint holds for a
// LossScaleOptimizer's step_counter or dynamic_scale (key name).
func checkLossScaleValue(name string, v *ops.Variable, data []float32) error {
	switch name {
	case ckptDynamicScaleKey:
		return checkLossScale(name, v, data)
	case ckptStepCounterKey:
		if len(data) != 1 || !(data[0] >= 0) || data[0] > 1<<24 || data[0] != float32(math.Trunc(float64(data[0]))) {
			return fmt.Errorf("%s (%s): not an integer scalar in [0, 2^24]", name, v.Name())
		}
	}
	return nil
}

// lossScaleIncomplete is the error for a LossScaleOptimizer's own group
// ("optimizer/vars", e) whose datasets are not the optimizer's while the
// file's "optimizer/inner_optimizer/vars" matches its inner optimizer: a
// file saved with such a LossScaleOptimizer that lacks (or adds)
// variables, such as its dynamic_scale. It is nil for other entries, and
// for files saved with another optimizer (no inner_optimizer group, or
// another inner optimizer), which leave the optimizer as it is with
// Keras' warning.
func lossScaleIncomplete(root *hdf5.Group, e structEntry, entries []structEntry, g *hdf5.Group) error {
	if e.path != "optimizer" || g == nil {
		return nil
	}
	var inner *structEntry
	for i := range entries {
		if entries[i].path == "optimizer/inner_optimizer" {
			inner = &entries[i]
		}
	}
	if inner == nil {
		return nil
	}
	ig, _, err := root.Lookup(inner.varsPath())
	if err != nil || ig == nil || len(ig.Datasets) != len(inner.vars) {
		return nil
	}
	// The first dataset that is absent, or not of the variable's shape and
	// type (an integer where a float is kept, or the reverse: the
	// datasets after a missing one, renumbered), names the missing one.
	for i, v := range e.vars {
		d := g.Dataset(strconv.Itoa(i))
		wantInt := v.kind == kindIterations || v.kind == kindZeroInt || v.kind == kindIntVariable
		if d == nil || !slices.Equal(normShape(d.Shape), normShape(v.shape)) || h5IsInt(d.Value) != wantInt {
			return fmt.Errorf("%s/%d (%s) is missing: the file holds %d of LossScaleOptimizer %s's %d variables", e.varsPath(), i, structVarName(e, v), len(g.Datasets), e.name, len(e.vars))
		}
	}
	return fmt.Errorf("%s: %d datasets where LossScaleOptimizer %s keeps %d (its iteration, learning rate, step_counter and dynamic_scale, then its inner optimizer's %d)", e.varsPath(), len(g.Datasets), e.name, len(e.vars), len(inner.vars))
}

// structVarName names a variable of entry e for an error: the variable's
// name, or for the values gokeras computes, Keras' name of them.
func structVarName(e structEntry, v structVar) string {
	if v.v != nil {
		return v.v.Name()
	}
	switch v.kind {
	case kindIterations, kindZeroInt:
		return e.name + "/iteration"
	case kindLearningRate, kindZeroFloat:
		return e.name + "/learning_rate"
	case kindUProduct:
		return e.name + "/u_product"
	}
	return e.name
}

// h5IsInt reports whether a dataset's values are integers.
func h5IsInt(v any) bool {
	switch v.(type) {
	case []int64, []int32, []int16, []int8, []uint64, []uint32, []uint16, []uint8:
		return true
	}
	return false
}
