package keras

import "github.com/gokeras/gokeras/ops"

// Losses returns the model's extra losses in trace tr, Keras' model.losses:
// the penalties of the layers' weight regularizers and the losses layers
// added with ops.AddLoss while called in tr (activity regularization). A
// custom step adds them to its loss:
//
//	loss := lossFn.Call(y, logits)
//	for _, l := range model.Losses(logits.Trace()) {
//		loss = ops.Add(loss, l)
//	}
func (m *Model) Losses(tr *ops.Trace) []ops.Tensor {
	if m == nil {
		return nil
	}
	if tr == nil {
		return nil
	}
	return append(m.RegularizationLosses(tr), tr.AddedLosses()...)
}
