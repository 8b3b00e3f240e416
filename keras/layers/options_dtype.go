package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/mixedprecision"
)

// WithPolicy sets the layer's dtype policy (Keras' dtype= with a
// DTypePolicy), as WithDtype does with a policy name: a layer made
// without either takes the global policy (mixedprecision.GlobalPolicy) at
// construction, as Keras' layers do.
func WithPolicy(p mixedprecision.DTypePolicy) Option {
	return WithDtype(p.Name())
}

// initPolicy sets the layer's policy from its dtype option, or the global
// policy; a name that is not a policy is the layer's construction error.
func (b *Base) initPolicy() {
	if b.cfg == nil || !b.cfg.set["dtype"] {
		b.policy = mixedprecision.GlobalPolicy()
		return
	}
	p, err := mixedprecision.NewPolicy(b.cfg.input.dtype)
	if err != nil {
		if b.err == nil {
			b.err = fmt.Errorf("layers: %s: dtype: %w", b.class, err)
		}
		return
	}
	b.policy = p
}

// DTypePolicy returns the layer's dtype policy (Keras' layer.dtype_policy):
// the one given with WithDtype or WithPolicy, else the global policy when
// the layer was made.
func (b *Base) DTypePolicy() mixedprecision.DTypePolicy { return b.policy }

// ComputeDType is the dtype the layer computes in (Keras'
// layer.compute_dtype): "bfloat16" under "mixed_bfloat16".
func (b *Base) ComputeDType() string { return b.policy.ComputeDType() }

// VariableDType is the dtype of the layer's weights (Keras'
// layer.variable_dtype): "float32" under the mixed policies.
func (b *Base) VariableDType() string { return b.policy.VariableDType() }
