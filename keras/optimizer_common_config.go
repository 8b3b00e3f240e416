package keras

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/optimizers"
)

// commonOptimizerOptions reads the options of Keras 3's base optimizer
// beyond clipping and weight decay from an optimizer config: use_ema,
// ema_momentum, ema_overwrite_frequency and gradient_accumulation_steps
// (absent or null: Keras' defaults). loss_scale_factor is refused, not
// ignored.
func commonOptimizerOptions(c map[string]any) ([]optimizers.Option, error) {
	var opts []optimizers.Option
	if v, ok := c["use_ema"]; ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("use_ema: want a boolean, got %v", v)
		}
		opts = append(opts, optimizers.UseEMA(b))
	}
	if v, ok := c["ema_momentum"]; ok && v != nil {
		f, ok := toFloat(v)
		if !ok {
			return nil, fmt.Errorf("ema_momentum: want a number, got %v", v)
		}
		opts = append(opts, optimizers.EMAMomentum(f))
	}
	for key, opt := range map[string]func(int) optimizers.Option{
		"ema_overwrite_frequency":     optimizers.EMAOverwriteFrequency,
		"gradient_accumulation_steps": optimizers.GradientAccumulationSteps,
	} {
		if v, ok := c[key]; ok && v != nil {
			n, ok := toInt(v)
			if !ok {
				return nil, fmt.Errorf("%s: want an integer, got %v", key, v)
			}
			opts = append(opts, opt(n))
		}
	}
	if v, ok := c["loss_scale_factor"]; ok && v != nil {
		return nil, fmt.Errorf("loss_scale_factor = %v is not supported", v)
	}
	return opts, nil
}
