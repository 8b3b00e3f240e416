package callbacks

import (
	"fmt"
	"math"

	"github.com/gokeras/gokeras/keras"
)

// TerminateOnNaN is Keras' TerminateOnNaN: when a batch's loss is NaN or
// infinite it prints "Batch N: Invalid loss, terminating training" and
// calls Model.StopTraining. Options: Output.
//
// Keras' fit checks stop_training after every batch; keras.Model.Fit
// checks it after every epoch, so the epoch under way is finished first.
type TerminateOnNaN struct {
	keras.CallbackBase
	s   settings
	err error
}

// NewTerminateOnNaN makes a TerminateOnNaN callback.
func NewTerminateOnNaN(opts ...Option) *TerminateOnNaN {
	s, err := newSettings("TerminateOnNaN", nil, opts)
	return &TerminateOnNaN{s: s, err: err}
}

// Err returns the error of the options the callback was made with.
func (c *TerminateOnNaN) Err() error { return c.err }

// OnTrainBegin implements keras.Callback.
func (c *TerminateOnNaN) OnTrainBegin(keras.Logs) error { return c.err }

// OnTrainBatchEnd implements keras.Callback.
func (c *TerminateOnNaN) OnTrainBatchEnd(batch int, logs keras.Logs) error {
	if loss, ok := logs.Get("loss"); ok && (math.IsNaN(loss) || math.IsInf(loss, 0)) {
		fmt.Fprintf(c.s.out, "Batch %d: Invalid loss, terminating training\n", batch)
		c.Model.StopTraining()
	}
	return nil
}
