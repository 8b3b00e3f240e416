package keras

import (
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
)

// Reading the weight constraints, the gamma/beta regularizers and the
// activity regularizer of a layer config (issue 31): a config that
// carries one loads with it instead of being refused.

// constraint reads a constraint: Keras' serialised form (class_name and
// config) or a bare class name ("max_norm").
func (c *cfgReader) constraint(key string) layers.Constraint {
	var class string
	var args map[string]any
	switch v := c.m[key].(type) {
	case nil:
		return nil
	case string:
		class, args = v, map[string]any{}
	case map[string]any:
		class, args = classAndConfig(v)
	default:
		c.fail("%s: cannot read %v", key, v)
		return nil
	}
	k, err := layers.GetConstraint(class, args)
	if err != nil {
		c.fail("%s: %v", key, err)
		return nil
	}
	return k
}

// weightOptions reads the constraint and regularizer keys given (each
// "<weight>_constraint" or "gamma_regularizer"/"beta_regularizer") into
// the options that attach them.
func (c *cfgReader) weightOptions(keys ...string) []layers.Option {
	var o []layers.Option
	for _, k := range keys {
		if !c.present(k) {
			continue
		}
		if strings.HasSuffix(k, "_regularizer") {
			r := c.regularizer(k)
			switch k {
			case "gamma_regularizer":
				o = append(o, layers.WithGammaRegularizer(r))
			case "beta_regularizer":
				o = append(o, layers.WithBetaRegularizer(r))
			default:
				c.fail("%s is not supported", k)
			}
			continue
		}
		cs := c.constraint(k)
		if cs == nil {
			continue
		}
		switch k {
		case "kernel_constraint":
			o = append(o, layers.WithKernelConstraint(cs))
		case "bias_constraint":
			o = append(o, layers.WithBiasConstraint(cs))
		case "recurrent_constraint":
			o = append(o, layers.WithRecurrentConstraint(cs))
		case "alpha_constraint":
			o = append(o, layers.WithAlphaConstraint(cs))
		case "depthwise_constraint":
			o = append(o, layers.WithDepthwiseConstraint(cs))
		case "pointwise_constraint":
			o = append(o, layers.WithPointwiseConstraint(cs))
		case "embeddings_constraint":
			o = append(o, layers.WithEmbeddingsConstraint(cs))
		case "gamma_constraint":
			o = append(o, layers.WithGammaConstraint(cs))
		case "beta_constraint":
			o = append(o, layers.WithBetaConstraint(cs))
		default:
			c.fail("%s is not supported", k)
		}
	}
	return o
}

// activityRegularizer reads activity_regularizer, which every Keras layer
// takes.
func (c *cfgReader) activityRegularizer() []layers.Option {
	if r := c.regularizer("activity_regularizer"); r != nil {
		return []layers.Option{layers.WithActivityRegularizer(r)}
	}
	return nil
}
