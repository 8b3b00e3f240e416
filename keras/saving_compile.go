package keras

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// typeName is the Go type's name, which is the Keras class name for the
// optimizers, losses and metrics of this module.
func typeName(x any) string {
	t := reflect.TypeOf(x)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

func serializeObject(module string, x any, cfg map[string]any) map[string]any {
	return map[string]any{"module": module, "class_name": typeName(x), "config": cfg, "registered_name": nil}
}

// pyFloat is a float64 that JSON-encodes as Python writes a float: with a
// fraction or exponent ("1.0", not "1"), so that Keras reads a float
// where it checks for one (an optimizer's learning_rate).
type pyFloat float64

// MarshalJSON implements json.Marshaler.
func (f pyFloat) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(float64(f))
	if err == nil && !bytes.ContainsAny(b, ".eEn") {
		b = append(b, ".0"...)
	}
	return b, err
}

// pythonFloats returns v with every float64 (in maps and lists, copied)
// as a pyFloat.
func pythonFloats(v any) any {
	switch x := v.(type) {
	case float64:
		return pyFloat(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = pythonFloats(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pythonFloats(e)
		}
		return out
	}
	return v
}

func (m *Model) compileConfig() (map[string]any, error) {
	cc := map[string]any{
		"optimizer": nil, "loss": nil, "metrics": nil, "loss_weights": nil, "weighted_metrics": nil,
		"run_eagerly": false, "steps_per_execution": 1, "jit_compile": false,
	}
	if opt := m.configOptimizer(); opt != nil { // mixed_saving.go: a LossScaleOptimizer's inner one when Compile wrapped it, as Keras
		cc["optimizer"] = serializeObject("keras.optimizers", opt, pythonFloats(opt.GetConfig()).(map[string]any))
	}
	switch {
	case m.outputLosses != nil:
		// A loss per output is a list, as Keras writes compile(loss=[...]).
		ls := make([]any, len(m.outputLosses))
		for i, l := range m.outputLosses {
			ls[i] = serializeObject("keras.losses", l, l.GetConfig())
		}
		cc["loss"] = ls
	case m.loss != nil:
		cc["loss"] = serializeObject("keras.losses", m.loss, m.loss.GetConfig())
	}
	if m.lossWeights != nil {
		cc["loss_weights"] = append([]float64(nil), m.lossWeights...)
	}
	if len(m.metricSpecs) > 0 {
		ms := make([]any, len(m.metricSpecs))
		for i, s := range m.metricSpecs {
			switch s := s.(type) {
			case string:
				ms[i] = s
			case metrics.LabelMetric:
				ms[i] = serializeObject("keras.metrics", s, s.GetConfig())
			default:
				return nil, fmt.Errorf("metric %T cannot be serialised", s)
			}
		}
		cc["metrics"] = ms
	}
	if len(m.weightedSpecs) > 0 {
		ws, err := serializeMetricSpecs(m.weightedSpecs)
		if err != nil {
			return nil, err
		}
		cc["weighted_metrics"] = ws
	}
	if err := m.outputMetricsConfig(cc); err != nil { // config_model.go: MetricsByOutput, as Keras' dicts by output
		return nil, err
	}
	return cc, nil
}

func (m *Model) compileFromConfig(cc map[string]any) error {
	var cfg CompileConfig
	cc, err := outputMetricsFromConfig(cc, &cfg) // config_model.go: per-output metrics first; the flat lists remain
	if err != nil {
		return err
	}
	if cfg.Optimizer, err = optimizerFromConfig(cc["optimizer"]); err != nil {
		return err
	}
	readLoss := func(v any) (any, error) {
		switch l := v.(type) {
		case string:
			return l, nil
		case map[string]any:
			return lossFromConfig(l)
		}
		return nil, fmt.Errorf("loss: cannot read %v", v)
	}
	switch l := cc["loss"].(type) {
	case nil:
	case []any:
		list := make([]any, len(l))
		for i, x := range l {
			if list[i], err = readLoss(x); err != nil {
				return err
			}
		}
		cfg.Loss = list
	default:
		if cfg.Loss, err = readLoss(l); err != nil {
			return err
		}
	}
	switch w := cc["loss_weights"].(type) {
	case nil:
	case []any:
		for _, x := range w {
			f, ok := toFloat(x)
			if !ok {
				return fmt.Errorf("loss_weights: cannot read %v", w)
			}
			cfg.LossWeights = append(cfg.LossWeights, f)
		}
	default:
		return fmt.Errorf("loss_weights: cannot read %v (want a list)", w)
	}
	if ms, ok := cc["metrics"].([]any); ok {
		for _, s := range ms {
			switch s := s.(type) {
			case string:
				cfg.Metrics = append(cfg.Metrics, s)
			case map[string]any:
				mt, err := metricFromConfig(s)
				if err != nil {
					return err
				}
				cfg.Metrics = append(cfg.Metrics, mt)
			default:
				return fmt.Errorf("metrics: cannot read %v", s)
			}
		}
	}
	if cfg.WeightedMetrics, err = readMetricSpecs(cc["weighted_metrics"]); err != nil {
		return err
	}
	return m.Compile(cfg)
}

func classAndConfig(v map[string]any) (string, map[string]any) {
	class, _ := v["class_name"].(string)
	cfg, _ := v["config"].(map[string]any)
	if cfg == nil {
		cfg = map[string]any{}
	}
	return class, cfg
}

func optimizerFromConfig(v any) (any, error) {
	var class string
	var c map[string]any
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return v, nil
	case map[string]any:
		class, c = classAndConfig(v)
	default:
		return nil, fmt.Errorf("optimizer: cannot read %v", v)
	}
	if strings.EqualFold(class, "LossScaleOptimizer") {
		return lossScaleOptimizerFromConfig(c) // mixed_saving.go
	}
	var opts []optimizers.Option
	if s, ok := c["name"].(string); ok && s != "" {
		opts = append(opts, optimizers.Name(s))
	}
	switch lr := c["learning_rate"].(type) {
	case nil:
	case map[string]any:
		s, err := scheduleFromConfig(lr)
		if err != nil {
			return nil, fmt.Errorf("optimizer %s: %w", class, err)
		}
		opts = append(opts, optimizers.LearningRateSchedule(s))
	default:
		f, ok := toFloat(lr)
		if !ok {
			return nil, fmt.Errorf("optimizer %s: bad learning_rate %v", class, lr)
		}
		opts = append(opts, optimizers.LearningRate(f))
	}
	floats := map[string]func(float64) optimizers.Option{
		"weight_decay": optimizers.WeightDecay, "clipnorm": optimizers.ClipNorm,
		"clipvalue": optimizers.ClipValue, "global_clipnorm": optimizers.GlobalClipNorm,
	}
	bools := map[string]func(bool) optimizers.Option{}
	var ctor func(...optimizers.Option) optimizers.Optimizer
	switch strings.ToLower(class) {
	case "adam", "adamw":
		floats["beta_1"], floats["beta_2"], floats["epsilon"] = optimizers.Beta1, optimizers.Beta2, optimizers.Epsilon
		bools["amsgrad"] = optimizers.Amsgrad
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewAdam(o...) }
		if strings.ToLower(class) == "adamw" {
			ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewAdamW(o...) }
		}
	case "sgd":
		floats["momentum"] = optimizers.Momentum
		bools["nesterov"] = optimizers.Nesterov
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewSGD(o...) }
	case "rmsprop":
		floats["rho"], floats["momentum"], floats["epsilon"] = optimizers.Rho, optimizers.Momentum, optimizers.Epsilon
		bools["centered"] = optimizers.Centered
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewRMSprop(o...) }
	case "adagrad":
		floats["initial_accumulator_value"], floats["epsilon"] = optimizers.InitialAccumulatorValue, optimizers.Epsilon
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewAdagrad(o...) }
	case "adamax", "nadam":
		floats["beta_1"], floats["beta_2"], floats["epsilon"] = optimizers.Beta1, optimizers.Beta2, optimizers.Epsilon
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewAdamax(o...) }
		if strings.ToLower(class) == "nadam" {
			ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewNadam(o...) }
		}
	case "adadelta":
		floats["rho"], floats["epsilon"] = optimizers.Rho, optimizers.Epsilon
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewAdadelta(o...) }
	case "lion":
		floats["beta_1"], floats["beta_2"] = optimizers.Beta1, optimizers.Beta2
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewLion(o...) }
	case "ftrl":
		floats["learning_rate_power"] = optimizers.LearningRatePower
		floats["initial_accumulator_value"] = optimizers.InitialAccumulatorValue
		floats["l1_regularization_strength"] = optimizers.L1RegularizationStrength
		floats["l2_regularization_strength"] = optimizers.L2RegularizationStrength
		floats["l2_shrinkage_regularization_strength"] = optimizers.L2ShrinkageRegularizationStrength
		floats["beta"] = optimizers.Beta
		ctor = func(o ...optimizers.Option) optimizers.Optimizer { return optimizers.NewFtrl(o...) }
	default:
		return nil, fmt.Errorf("unknown optimizer class %q", class)
	}
	for _, k := range sortedKeys(floats) {
		if x, ok := c[k]; ok && x != nil {
			f, ok := toFloat(x)
			if !ok {
				return nil, fmt.Errorf("optimizer %s: bad %s %v", class, k, x)
			}
			opts = append(opts, floats[k](f))
		}
	}
	for _, k := range sortedKeys(bools) {
		if x, ok := c[k].(bool); ok {
			opts = append(opts, bools[k](x))
		}
	}
	more, err := commonOptimizerOptions(c) // optimizer_common_config.go
	if err != nil {
		return nil, fmt.Errorf("optimizer %s: %w", class, err)
	}
	opt := ctor(append(opts, more...)...)
	if e, ok := opt.(interface{ Err() error }); ok && e.Err() != nil {
		return nil, e.Err()
	}
	return opt, nil
}

func scheduleFromConfig(v map[string]any) (optimizers.Schedule, error) {
	class, c := classAndConfig(v)
	f := func(k string, def float64) float64 {
		if x, ok := toFloat(c[k]); ok {
			return x
		}
		return def
	}
	n := func(k string) int64 { x, _ := toInt(c[k]); return int64(x) }
	switch class {
	case "ExponentialDecay":
		st, _ := c["staircase"].(bool)
		return optimizers.ExponentialDecay(f("initial_learning_rate", 0), n("decay_steps"), f("decay_rate", 0), st)
	case "PiecewiseConstantDecay":
		bs, err := toInts(c["boundaries"])
		if err != nil {
			return nil, fmt.Errorf("PiecewiseConstantDecay boundaries: %w", err)
		}
		b64 := make([]int64, len(bs))
		for i, b := range bs {
			b64[i] = int64(b)
		}
		vl, _ := c["values"].([]any)
		vals := make([]float64, len(vl))
		for i, x := range vl {
			var ok bool
			if vals[i], ok = toFloat(x); !ok {
				return nil, fmt.Errorf("PiecewiseConstantDecay: bad value %v", x)
			}
		}
		return optimizers.PiecewiseConstantDecay(b64, vals)
	case "CosineDecay":
		if t, ok := toFloat(c["warmup_target"]); ok {
			return optimizers.CosineDecayWithWarmup(f("initial_learning_rate", 0), n("decay_steps"), f("alpha", 0), t, n("warmup_steps"))
		}
		return optimizers.CosineDecay(f("initial_learning_rate", 0), n("decay_steps"), f("alpha", 0))
	case "CosineDecayRestarts":
		return optimizers.CosineDecayRestarts(f("initial_learning_rate", 0), n("first_decay_steps"), f("t_mul", 2), f("m_mul", 1), f("alpha", 0))
	case "PolynomialDecay":
		cy, _ := c["cycle"].(bool)
		return optimizers.PolynomialDecay(f("initial_learning_rate", 0), n("decay_steps"), f("end_learning_rate", 0.0001), f("power", 1), cy)
	case "InverseTimeDecay":
		st, _ := c["staircase"].(bool)
		return optimizers.InverseTimeDecay(f("initial_learning_rate", 0), n("decay_steps"), f("decay_rate", 0), st)
	}
	return nil, fmt.Errorf("unknown learning rate schedule %q", class)
}

func lossFromConfig(v map[string]any) (losses.Loss, error) {
	class, c := classAndConfig(v)
	opts, err := losses.ConfigOptions(c) // name, reduction, from_logits, label_smoothing, axis, delta, alpha, gamma, ...
	if err != nil {
		return nil, fmt.Errorf("loss %s: %w", class, err)
	}
	l, err := losses.Get(class, opts...)
	if err != nil {
		return nil, fmt.Errorf("loss: %w", err)
	}
	return l, nil
}

func metricFromConfig(v map[string]any) (metrics.LabelMetric, error) {
	class, c := classAndConfig(v)
	opts, err := metrics.ConfigOptions(c)
	if err != nil {
		return nil, fmt.Errorf("metric %s: %w", class, err)
	}
	mt, err := metrics.Get(class, opts...)
	if err != nil {
		return nil, fmt.Errorf("metric: %w", err)
	}
	return mt, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
