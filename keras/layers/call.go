package layers

import (
	"fmt"

	"github.com/gokeras/gokeras/ops"
)

// Call calls layer l on tensors inside another layer's (or model's) Call,
// as `self.dense(x, training=training)` does in a Keras layer's call: l is
// built for the inputs' shapes (batch unknown) the first time, as Keras
// builds a sublayer at its first call, and tracked (see [Track]); under
// a mixed dtype policy it casts as Keras' Layer.__call__ does. It
// panics with an *ops.Error naming l and the shapes on misuse; the model
// boundary (Apply, Fit, Predict, keras.CallLayer) returns it as an error.
func Call(l Layer, training bool, inputs ...ops.Tensor) ops.Tensor {
	if l == nil {
		panic(&ops.Error{Op: "layers.Call", Msg: "nil layer"})
	}
	Track(l)
	if !l.Built() {
		shapes := make([]ops.Shape, len(inputs))
		for i, x := range inputs {
			shapes[i] = x.Shape().Clone()
			if len(shapes[i]) > 0 {
				shapes[i][0] = -1
			}
		}
		if _, err := OutputShape(l, shapes); err != nil {
			panic(&ops.Error{Op: fmt.Sprintf("layer %q (%s)", l.Name(), l.ClassName()), Msg: err.Error()})
		}
	}
	return maskedCall(l, inputs, training)
}

// CallWithPolicy calls a built layer under its dtype policy (see [Call]),
// without building or tracking it: what a model does for each node of its
// graph.
func CallWithPolicy(l Layer, training bool, inputs ...ops.Tensor) ops.Tensor {
	return maskedCall(l, inputs, training)
}

// maskedCall calls l under its dtype policy, as Keras' __call__ autocasts
// (mixed_call.go), adds its activity_regularizer's loss
// (options_constraints.go) and gives the output the timestep mask Keras'
// compute_mask gives it (mask_propagation.go).
func maskedCall(l Layer, inputs []ops.Tensor, training bool) ops.Tensor {
	y := withActivityLoss(l, policyCall(l, inputs, training))
	propagateMask(l, inputs, y)
	return y
}
