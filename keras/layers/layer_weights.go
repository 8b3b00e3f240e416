package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// GetWeights returns copies of l's weights in l.Weights' order, as Keras'
// layer.get_weights().
func GetWeights(l Layer) []*tensor.Dense {
	ws := l.Weights()
	out := make([]*tensor.Dense, len(ws))
	for i, w := range ws {
		out[i] = tensor.New(tensor.WithShape(w.Shape()...), tensor.WithBacking(w.Numpy()))
	}
	return out
}

// SetWeights sets l's weights from ws, in l.Weights' order, as Keras'
// layer.set_weights(): every entry must be a float32 tensor of its
// weight's shape; nothing is assigned otherwise.
func SetWeights(l Layer, ws []*tensor.Dense) error {
	vars := l.Weights()
	if len(ws) != len(vars) {
		return fmt.Errorf("layers: SetWeights: layer %q has %d weights, got %d", l.Name(), len(vars), len(ws))
	}
	vals := make([][]float32, len(vars))
	for i, v := range vars {
		if ws[i] == nil {
			return fmt.Errorf("layers: SetWeights: layer %q: weight %d (%s) is nil", l.Name(), i, v.Name())
		}
		if !ops.Shape(ws[i].Shape()).Equal(v.Shape()) {
			return fmt.Errorf("layers: SetWeights: layer %q: %s has shape %v, got %v", l.Name(), v.Name(), v.Shape(), ws[i].Shape())
		}
		d, ok := ws[i].Data().([]float32)
		if !ok {
			return fmt.Errorf("layers: SetWeights: layer %q: %s: want float32 values, got %T", l.Name(), v.Name(), ws[i].Data())
		}
		vals[i] = d
	}
	for i, v := range vars {
		if err := v.Assign(vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// GetWeights returns copies of the layer's weights (see [GetWeights]).
// A layer that overrides Weights has its GetWeights use them too.
func (b *Base) GetWeights() []*tensor.Dense {
	if l, ok := b.self.(Layer); ok {
		return GetWeights(l)
	}
	return GetWeights(baseOnly{b})
}

// baseOnly is a Base seen as a Layer for GetWeights, whatever embeds it.
type baseOnly struct{ *Base }

func (baseOnly) Call([]ops.Tensor, bool) ops.Tensor { return ops.Tensor{} }

// GetWeights returns copies of the layer's weights (its cell's).
func (l *RNN) GetWeights() []*tensor.Dense { return GetWeights(l) }

// GetWeights returns copies of the layer's weights (both directions').
func (l *Bidirectional) GetWeights() []*tensor.Dense { return GetWeights(l) }

// GetWeights returns copies of the wrapped layer's weights.
func (l *TimeDistributed) GetWeights() []*tensor.Dense { return GetWeights(l) }
