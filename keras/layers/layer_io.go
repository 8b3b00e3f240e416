package layers

// firstCall is the symbolic inputs and output of a layer's first call in
// a functional graph (Keras' layer.input and layer.output).
type firstCall struct {
	in  []*KerasTensor
	out *KerasTensor
}

// recordCall keeps the first call's tensors; Apply calls it.
func (b *Base) recordCall(in []*KerasTensor, out *KerasTensor) {
	if b.calls.out == nil {
		b.calls = firstCall{in: append([]*KerasTensor(nil), in...), out: out}
	}
}

// Input returns the symbolic input of the layer's first call on
// KerasTensors (Keras' layer.input): its first input when it took
// several (see [Base.Inputs]); an InputLayer's own tensor. It is nil
// before the layer is called.
func (b *Base) Input() *KerasTensor {
	if b.calls.in == nil && b.calls.out != nil {
		return b.calls.out // an InputLayer: its input is its output
	}
	if len(b.calls.in) == 0 {
		return nil
	}
	return b.calls.in[0]
}

// Inputs returns every symbolic input of the layer's first call.
func (b *Base) Inputs() []*KerasTensor {
	if b.calls.in == nil && b.calls.out != nil {
		return []*KerasTensor{b.calls.out}
	}
	return append([]*KerasTensor(nil), b.calls.in...)
}

// Output returns the symbolic output of the layer's first call on
// KerasTensors (Keras' layer.output), nil before the layer is called. A
// model built from the output of a layer inside another model, as
// keras.Model(inputs=base.input, outputs=base.get_layer("conv").output),
// extracts features.
func (b *Base) Output() *KerasTensor { return b.calls.out }
