package layers

import "github.com/gokeras/gokeras/ops"

// Identity is keras.layers.Identity: it returns its input unchanged (a
// placeholder, say where an optional block is left out).
//
//	keras.layers.Identity()
//	layers.NewIdentity()
type Identity struct{ Base }

// NewIdentity makes an Identity layer. Options: WithName, WithInputShape.
func NewIdentity(opts ...Option) *Identity {
	l := &Identity{}
	l.init("Identity", nil, opts)
	return l
}

// Build implements Layer.
func (l *Identity) Build([]ops.Shape) error { l.built = true; return nil }

// Call implements Layer.
func (l *Identity) Call(in []ops.Tensor, _ bool) ops.Tensor { return in[0] }

// GetConfig implements Layer.
func (l *Identity) GetConfig() map[string]any { return l.baseConfig() }
