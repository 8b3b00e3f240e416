package keras

import (
	"fmt"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// isIntegerWeight reports whether v is one of the weights Keras keeps as
// integers in the model's layers (a layer's IntegerWeights:
// Normalization's count, an int64 in Keras' files, as in the
// EfficientNet ImageNet weights), nested models' layers included.
func (m *Model) isIntegerWeight(v *ops.Variable) bool {
	var walk func(ls []layers.Layer) bool
	walk = func(ls []layers.Layer) bool {
		for _, l := range ls {
			if iw, ok := l.(interface{ IntegerWeights() []*ops.Variable }); ok {
				for _, w := range iw.IntegerWeights() {
					if w == v {
						return true
					}
				}
			}
			if n, ok := l.(nestedModel); ok && n.SavedModel() != nil && walk(n.SavedModel().Layers()) {
				return true
			}
		}
		return false
	}
	return walk(m.Layers())
}

// weightFloats is h5Float32s for a dataset of the model's variable v:
// integer values are taken for an integer weight (exactly, up to 2^24,
// which its float32 variable holds), refused for any other variable.
func (m *Model) weightFloats(v *ops.Variable, val any) ([]float32, error) {
	var ints []int64
	switch x := val.(type) {
	case []int64:
		ints = x
	case []int32:
		for _, n := range x {
			ints = append(ints, int64(n))
		}
	default:
		return h5Float32s(val)
	}
	if !m.isIntegerWeight(v) {
		return h5Float32s(val)
	}
	out := make([]float32, len(ints))
	for i, n := range ints {
		if n > 1<<24 || n < -(1<<24) {
			return nil, fmt.Errorf("integer weight %s: %d is beyond 2^24, which its float32 variable holds exactly", v.Name(), n)
		}
		out[i] = float32(n)
	}
	return out, nil
}
