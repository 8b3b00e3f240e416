package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// MaskAttach passes its first input through with its second as the
// input's Keras mask ([SetMask]): the node gokeras makes for a layer call
// that a Keras file records with a mask argument, `lstm(x, mask=m)`, so
// that the called layer reads m with [Mask] as its Keras call receives
// it. Keras 3 saves the masks of Embedding(mask_zero=True) and Masking
// that way, as operation nodes (NotEqual, Any) passed to the recurrent
// layers. Saving a model folds the node back into the call's mask
// argument; a model built in Go has no need of it (masks travel with the
// tensors).
type MaskAttach struct{ Base }

// NewMaskAttach makes a MaskAttach layer. Options: WithName.
func NewMaskAttach(opts ...Option) *MaskAttach {
	l := &MaskAttach{}
	l.init("MaskAttach", nil, opts)
	l.built = true
	return l
}

// Build implements Layer.
func (l *MaskAttach) Build(in []ops.Shape) error {
	if len(in) != 2 {
		return fmt.Errorf("takes a tensor and its mask, got %d inputs", len(in))
	}
	return nil
}

// Call implements Layer: in[0] as a tensor of its own carrying the mask
// in[1], a (batch, timesteps) tensor of 1 and 0 (Keras' booleans).
func (l *MaskAttach) Call(in []ops.Tensor, _ bool) ops.Tensor {
	if len(in) != 2 {
		panic(&ops.Error{Op: "MaskAttach " + l.name, Msg: fmt.Sprintf("takes a tensor and its mask, got %d inputs", len(in))})
	}
	y := ops.Tie(in[0], in[1])
	SetMask(y, in[1])
	return y
}

// GetConfig implements Layer.
func (l *MaskAttach) GetConfig() map[string]any { return l.baseConfig() }
