package keras

import (
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/mixedprecision"
)

// dtypeOption reads a layer config's "dtype": Keras 3's DTypePolicy
// dict ({"module": "keras", "class_name": "DTypePolicy", "config":
// {"name": "mixed_bfloat16"}, ...}), Keras 2's "Policy" dict, or a name.
func dtypeOption(v any) (layers.Option, error) {
	p, err := mixedprecision.FromConfig(v)
	if err != nil {
		return nil, err
	}
	return layers.WithPolicy(p), nil
}

// modelDTypeConfig is a Sequential config's "dtype": the global policy
// as Keras 3's DTypePolicy dict (a model takes the global policy, as its
// layers do; each layer's own policy is in its config).
func modelDTypeConfig() map[string]any { return mixedprecision.GlobalPolicy().Config() }
