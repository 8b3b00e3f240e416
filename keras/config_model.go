package keras

import (
	"fmt"
	"maps"

	"github.com/gokeras/gokeras/keras/layers"
)

// GetConfig returns the model's config, as Keras' model.get_config(): for
// a Sequential model its name and layers, for a functional model its
// layers with their inbound nodes and its input and output layers, in
// the JSON form of a .keras archive's config.json "config" (nested
// models nest their own). [ModelFromConfig] makes a new model from it,
// with fresh weights, as Keras' from_config. A subclassed model's config
// is its name, trainable flag and [SubclassConfigurer]'s arguments, what
// the function given to [RegisterSubclass] takes.
func (m *Model) GetConfig() (map[string]any, error) {
	if err := m.usable("GetConfig"); err != nil {
		return nil, err
	}
	if m.subclass != nil {
		return m.subclassConfig()
	}
	if m.sequential {
		return m.sequentialConfig()
	}
	return m.functionalConfig()
}

// ModelFromConfig makes a model from a config: what [Model.GetConfig]
// returns (a Sequential config holds "layers"; a functional one also
// "input_layers" and "output_layers"), or a whole serialized model, a
// map with "class_name" and "config" (config.json of a .keras archive).
// The weights are new, as Keras' Model.from_config.
func ModelFromConfig(cfg map[string]any) (*Model, error) {
	if cfg == nil {
		return nil, fmt.Errorf("keras: ModelFromConfig: nil config")
	}
	top := cfg
	if _, ok := cfg["class_name"].(string); !ok {
		class := "Sequential"
		if _, ok := cfg["input_layers"]; ok {
			class = "Functional"
		}
		top = map[string]any{"class_name": class, "config": cfg}
	}
	m, err := modelFromConfig(top, nil)
	if err != nil {
		return nil, fmt.Errorf("keras: ModelFromConfig: %w", err)
	}
	return m, nil
}

// A model nested in another (see [ModelLayer]) is a layer of class
// Sequential or Functional in the outer model's config, with the inner
// model's config, as Keras writes it.
func init() {
	for _, class := range []string{"Sequential", "Functional"} {
		RegisterLayer(class, func(cfg map[string]any) (layers.Layer, error) {
			m, err := modelFromConfig(map[string]any{"class_name": class, "config": cfg}, nil)
			if err != nil {
				return nil, err
			}
			return m.AsLayer(), nil
		})
	}
}

// nestedModelEntry sets the module (and registered name) Keras 3 writes
// for a model nested in another model's config: "keras" for a
// Sequential, "keras.src.models.functional" (registered as "Functional")
// for a functional model, so that Keras' load_model finds the class.
func nestedModelEntry(e map[string]any) {
	if e["class_name"] == "Functional" {
		e["module"], e["registered_name"] = "keras.src.models.functional", "Functional"
		return
	}
	e["module"] = "keras"
}

// outputMetricsConfig writes a model's per-output metrics (MetricsByOutput
// or one list per output) into a compile config as Keras 3 writes
// compile(metrics={"out_a": [...], ...}): dicts by output name under
// "metrics" and "weighted_metrics". It does nothing for metrics shared by
// every output. saving_compile.go's compileConfig calls it.
func (m *Model) outputMetricsConfig(cc map[string]any) error {
	if m.outputMetricSpecs == nil {
		return nil
	}
	names := m.OutputNames()
	write := func(key string, per [][]any) error {
		out := map[string]any{}
		for i, n := range names {
			if i >= len(per) || len(per[i]) == 0 {
				continue
			}
			s, err := serializeMetricSpecs(per[i])
			if err != nil {
				return fmt.Errorf("%s of output %q: %w", key, n, err)
			}
			out[n] = s
		}
		if len(out) > 0 {
			cc[key] = out
		}
		return nil
	}
	if err := write("metrics", m.outputMetricSpecs); err != nil {
		return err
	}
	return write("weighted_metrics", m.outputWeightedSpecs)
}

// outputMetricsFromConfig reads per-output metrics from a compile config
// into cfg: dicts by output name (Keras' metrics={...}) into
// MetricsByOutput and WeightedMetricsByOutput, and a list of one list per
// output (metrics=[[...], [...]]) into Metrics. It returns the config
// without the entries it read, for the reader of flat lists.
// saving_compile.go's compileFromConfig calls it first.
func outputMetricsFromConfig(cc map[string]any, cfg *CompileConfig) (map[string]any, error) {
	rest := maps.Clone(cc)
	for _, key := range []string{"metrics", "weighted_metrics"} {
		switch v := cc[key].(type) {
		case map[string]any:
			per := map[string][]any{}
			for name, specs := range v {
				list, err := readMetricSpecs(specs)
				if err != nil {
					return nil, fmt.Errorf("%s of output %q: %w", key, name, err)
				}
				per[name] = list
			}
			if key == "metrics" {
				cfg.MetricsByOutput = per
			} else {
				cfg.WeightedMetricsByOutput = per
			}
			delete(rest, key)
		case []any:
			nested := len(v) > 0
			for _, e := range v {
				if _, ok := e.([]any); !ok {
					nested = false
				}
			}
			if !nested {
				continue
			}
			lists := make([]any, len(v))
			for i, e := range v {
				list, err := readMetricSpecs(e)
				if err != nil {
					return nil, fmt.Errorf("%s of output %d: %w", key, i, err)
				}
				lists[i] = list
			}
			if key == "metrics" {
				cfg.Metrics = lists
			} else {
				cfg.WeightedMetrics = lists
			}
			delete(rest, key)
		}
	}
	return rest, nil
}
