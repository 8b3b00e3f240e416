package callbacks

import (
	"github.com/gokeras/gokeras/keras"
	"gorgonia.org/tensor"
)

// LambdaCallback is Keras' LambdaCallback: a callback made of functions,
// each optional. Set the fields; the embedded CallbackBase gives them the
// model (through the callback) and the run's params. An error a function
// returns stops Fit, Evaluate or Predict with that error.
type LambdaCallback struct {
	keras.CallbackBase

	TrainBegin, TrainEnd     func(logs keras.Logs) error
	EpochBegin, EpochEnd     func(epoch int, logs keras.Logs) error
	TrainBatchBegin          func(batch int, logs keras.Logs) error
	TrainBatchEnd            func(batch int, logs keras.Logs) error
	TestBegin, TestEnd       func(logs keras.Logs) error
	TestBatchBegin           func(batch int, logs keras.Logs) error
	TestBatchEnd             func(batch int, logs keras.Logs) error
	PredictBegin, PredictEnd func(logs keras.Logs) error
	PredictBatchBegin        func(batch int, logs keras.Logs) error
	PredictBatchEnd          func(batch int, logs keras.Logs) error
	// PredictBatchOutputs takes a predict batch's outputs, Keras'
	// logs["outputs"] in on_predict_batch_end (Logs hold numbers only):
	// it is called right before PredictBatchEnd of the same batch, with
	// copies it may keep (see keras.PredictBatchOutputsCallback).
	PredictBatchOutputs func(batch int, outputs []*tensor.Dense) error
}

func callLogs(f func(keras.Logs) error, logs keras.Logs) error {
	if f == nil {
		return nil
	}
	return f(logs)
}

func callN(f func(int, keras.Logs) error, n int, logs keras.Logs) error {
	if f == nil {
		return nil
	}
	return f(n, logs)
}

// OnTrainBegin implements keras.Callback.
func (c *LambdaCallback) OnTrainBegin(logs keras.Logs) error { return callLogs(c.TrainBegin, logs) }

// OnTrainEnd implements keras.Callback.
func (c *LambdaCallback) OnTrainEnd(logs keras.Logs) error { return callLogs(c.TrainEnd, logs) }

// OnEpochBegin implements keras.Callback.
func (c *LambdaCallback) OnEpochBegin(epoch int, logs keras.Logs) error {
	return callN(c.EpochBegin, epoch, logs)
}

// OnEpochEnd implements keras.Callback.
func (c *LambdaCallback) OnEpochEnd(epoch int, logs keras.Logs) error {
	return callN(c.EpochEnd, epoch, logs)
}

// OnTrainBatchBegin implements keras.Callback.
func (c *LambdaCallback) OnTrainBatchBegin(batch int, logs keras.Logs) error {
	return callN(c.TrainBatchBegin, batch, logs)
}

// OnTrainBatchEnd implements keras.Callback.
func (c *LambdaCallback) OnTrainBatchEnd(batch int, logs keras.Logs) error {
	return callN(c.TrainBatchEnd, batch, logs)
}

// OnTestBegin implements keras.Callback.
func (c *LambdaCallback) OnTestBegin(logs keras.Logs) error { return callLogs(c.TestBegin, logs) }

// OnTestEnd implements keras.Callback.
func (c *LambdaCallback) OnTestEnd(logs keras.Logs) error { return callLogs(c.TestEnd, logs) }

// OnTestBatchBegin implements keras.Callback.
func (c *LambdaCallback) OnTestBatchBegin(batch int, logs keras.Logs) error {
	return callN(c.TestBatchBegin, batch, logs)
}

// OnTestBatchEnd implements keras.Callback.
func (c *LambdaCallback) OnTestBatchEnd(batch int, logs keras.Logs) error {
	return callN(c.TestBatchEnd, batch, logs)
}

// OnPredictBegin implements keras.Callback.
func (c *LambdaCallback) OnPredictBegin(logs keras.Logs) error { return callLogs(c.PredictBegin, logs) }

// OnPredictEnd implements keras.Callback.
func (c *LambdaCallback) OnPredictEnd(logs keras.Logs) error { return callLogs(c.PredictEnd, logs) }

// OnPredictBatchBegin implements keras.Callback.
func (c *LambdaCallback) OnPredictBatchBegin(batch int, logs keras.Logs) error {
	return callN(c.PredictBatchBegin, batch, logs)
}

// OnPredictBatchEnd implements keras.Callback.
func (c *LambdaCallback) OnPredictBatchEnd(batch int, logs keras.Logs) error {
	return callN(c.PredictBatchEnd, batch, logs)
}

// OnPredictBatchOutputs implements keras.PredictBatchOutputsCallback.
func (c *LambdaCallback) OnPredictBatchOutputs(batch int, outputs []*tensor.Dense) error {
	if c.PredictBatchOutputs == nil {
		return nil
	}
	return c.PredictBatchOutputs(batch, outputs)
}

var _ keras.PredictBatchOutputsCallback = (*LambdaCallback)(nil)
