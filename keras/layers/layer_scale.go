package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// LayerScale is the layer scale of ConvNeXt (keras.src.applications.convnext
// LayerScale, registered as "LayerScale"; Touvron et al., "Going deeper
// with Image Transformers"): the input times a learned per-channel scale
// gamma of projection_dim values, made equal to init_values.
//
//	LayerScale(init_values=1e-6, projection_dim=96)
//	layers.NewLayerScale(1e-6, 96)
type LayerScale struct {
	Base
	initValues    float64
	projectionDim int
	Gamma         *ops.Variable
}

// LayerScaleModule is the Keras module of LayerScale, as its config entry
// names it: the class is not in keras.layers.
const LayerScaleModule = "keras.src.applications.convnext"

// NewLayerScale makes a LayerScale of projectionDim channels starting at
// initValues. Options: WithName, WithInputShape, WithTrainable.
func NewLayerScale(initValues float64, projectionDim int, opts ...Option) *LayerScale {
	l := &LayerScale{initValues: initValues, projectionDim: projectionDim}
	l.init("LayerScale", nil, opts)
	if projectionDim <= 0 && l.err == nil {
		l.err = fmt.Errorf("layers: LayerScale %q: projection_dim must be positive, got %d", l.name, projectionDim)
	}
	return l
}

// Module is LayerScaleModule: saving writes it as the class's module.
func (l *LayerScale) Module() string { return LayerScaleModule }

// Build implements Layer: gamma, of projection_dim values; the input's last
// axis must be of that size (or 1), as x * gamma broadcasts.
func (l *LayerScale) Build(in []ops.Shape) error {
	if len(in) != 1 || len(in[0]) < 2 {
		return fmt.Errorf("needs one input of rank 2 or more, got %v", shapesStr(in))
	}
	if d := in[0][len(in[0])-1]; d != l.projectionDim && d != 1 && d != None {
		return fmt.Errorf("input %v: the last axis has %d channels, projection_dim is %d", in[0], d, l.projectionDim)
	}
	// Keras' LayerScale adds its weight without a name: Keras calls it
	// "variable", "variable_1", ... in the order they are made.
	l.Gamma = l.AddWeight(UniqueName("variable"), ops.Shape{l.projectionDim}, Constant(float32(l.initValues)), true, nil)
	l.built = true
	return nil
}

// Call implements Layer: x * gamma.
func (l *LayerScale) Call(in []ops.Tensor, _ bool) ops.Tensor {
	x := in[0]
	return ops.Mul(x, x.Trace().Read(l.Gamma))
}

// GetConfig implements Layer.
func (l *LayerScale) GetConfig() map[string]any {
	m := l.baseConfig()
	m["init_values"] = l.initValues
	m["projection_dim"] = l.projectionDim
	return m
}
