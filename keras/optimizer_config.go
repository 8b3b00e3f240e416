package keras

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/optimizers"
)

// OptimizerConfig returns opt's Keras serialization, {"module":
// "keras.optimizers", "class_name": "Adam", "config": {...}}, the form a
// .keras compile_config holds and [OptimizerFromConfig] reads. A
// distribute.ParameterServerStrategy sends it to the parameter servers,
// which build their own optimizer from it.
func OptimizerConfig(opt optimizers.Optimizer) map[string]any {
	return serializeObject("keras.optimizers", opt, opt.GetConfig())
}

// OptimizerFromConfig builds the optimizer that cfg describes, in the form
// [OptimizerConfig] writes (a Keras class name and config; "module" and
// "registered_name" are ignored). An unknown class or a bad value is an
// error.
func OptimizerFromConfig(cfg map[string]any) (optimizers.Optimizer, error) {
	o, err := optimizerFromConfig(cfg)
	if err != nil {
		return nil, err
	}
	opt, ok := o.(optimizers.Optimizer)
	if !ok {
		return nil, fmt.Errorf("keras: optimizer config %v does not describe an optimizer", cfg["class_name"])
	}
	return opt, nil
}
