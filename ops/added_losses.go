package ops

// addedLossesKey is the trace attribute holding the losses of AddLoss.
type addedLossesKey struct{}

// AddLoss adds a scalar loss to loss's trace, for the step to add to its
// objective: what a Keras layer's self.add_loss(x) does in call (an
// activity regularizer). [Trace.AddedLosses] returns them; a model's
// Losses adds its weight regularizers.
func AddLoss(loss Tensor) {
	tr := sameTrace("AddLoss", loss)
	if len(loss.Shape()) != 0 {
		fail("AddLoss", "loss must be a scalar, got shape %v (reduce it first)", loss.Shape())
	}
	ls, _ := tr.Attr(addedLossesKey{}).([]Tensor)
	tr.SetAttr(addedLossesKey{}, append(ls, loss))
}

// AddedLosses returns the losses AddLoss added to tr, in order.
func (tr *Trace) AddedLosses() []Tensor {
	ls, _ := tr.Attr(addedLossesKey{}).([]Tensor)
	return append([]Tensor(nil), ls...)
}
