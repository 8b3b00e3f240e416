package keras_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// eventRecorder records the events it receives, and a predict batch's
// outputs (Keras' logs["outputs"]).
type eventRecorder struct {
	keras.CallbackBase
	events  []string
	outputs [][]int
}

func (r *eventRecorder) add(s string, a ...any) error {
	r.events = append(r.events, fmt.Sprintf(s, a...))
	return nil
}
func (r *eventRecorder) OnEpochEnd(e int, _ keras.Logs) error { return r.add("epoch_end %d", e) }
func (r *eventRecorder) OnTestBegin(keras.Logs) error         { return r.add("test_begin") }
func (r *eventRecorder) OnTestEnd(l keras.Logs) error {
	_, ok := l["loss"]
	return r.add("test_end loss=%v", ok)
}
func (r *eventRecorder) OnTestBatchBegin(b int, _ keras.Logs) error {
	return r.add("test_batch_begin %d", b)
}
func (r *eventRecorder) OnTestBatchEnd(b int, _ keras.Logs) error {
	return r.add("test_batch_end %d", b)
}
func (r *eventRecorder) OnPredictBegin(keras.Logs) error { return r.add("predict_begin") }
func (r *eventRecorder) OnPredictEnd(keras.Logs) error   { return r.add("predict_end") }
func (r *eventRecorder) OnPredictBatchBegin(b int, _ keras.Logs) error {
	return r.add("predict_batch_begin %d", b)
}
func (r *eventRecorder) OnPredictBatchEnd(b int, _ keras.Logs) error {
	return r.add("predict_batch_end %d", b)
}
func (r *eventRecorder) OnPredictBatchOutputs(b int, outs []*tensor.Dense) error {
	r.outputs = append(r.outputs, outs[0].Shape().Clone())
	return nil
}

func eventModel(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(layers.NewDense(3, layers.WithInputShape(4)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
		t.Fatal(err)
	}
	return m
}

// Fit's validation fires the test events of Fit's callbacks (begin, each
// batch, end with the validation logs), before the epoch ends, and leaves
// their params Fit's, as Keras' fit does.
func TestFitValidationFiresTestCallbacks(t *testing.T) {
	m := eventModel(t)
	x, y := synthetic(32, 4)
	vx, vy := synthetic(10, 5)
	r := &eventRecorder{}
	if _, err := m.Fit(x, y, keras.FitConfig{BatchSize: 8, ValidationData: [2]*tensor.Dense{vx, vy}, ValidationBatchSize: 5, Callbacks: []keras.Callback{r}, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	want := []string{"test_begin", "test_batch_begin 0", "test_batch_end 0", "test_batch_begin 1", "test_batch_end 1", "test_end loss=true", "epoch_end 0"}
	if !slices.Equal(r.events, want) {
		t.Errorf("events %v, want %v", r.events, want)
	}
	if r.Params.Steps != 4 {
		t.Errorf("params after Fit %+v: the validation replaced Fit's", r.Params)
	}
}

// Predict fires begin and end of every batch, hands each batch's outputs
// to a PredictBatchOutputsCallback, and prints its last bar line once
// without a terminal.
func TestPredictCallbacksAndBar(t *testing.T) {
	m := eventModel(t)
	x, _ := synthetic(10, 6)
	r := &eventRecorder{}
	var out bytes.Buffer
	if _, err := m.Predict(x, keras.PredictConfig{BatchSize: 4, Callbacks: []keras.Callback{r}, Verbose: 1, Out: &out}); err != nil {
		t.Fatal(err)
	}
	want := []string{"predict_begin", "predict_batch_begin 0", "predict_batch_end 0", "predict_batch_begin 1", "predict_batch_end 1", "predict_batch_begin 2", "predict_batch_end 2", "predict_end"}
	if !slices.Equal(r.events, want) {
		t.Errorf("events %v, want %v", r.events, want)
	}
	if want := [][]int{{4, 3}, {4, 3}, {2, 3}}; !slices.EqualFunc(r.outputs, want, slices.Equal[[]int]) {
		t.Errorf("batch outputs of shapes %v, want %v", r.outputs, want)
	}
	if n := strings.Count(out.String(), "3/3"); n != 1 {
		t.Errorf("the final bar line printed %d times:\n%s", n, out.String())
	}
}
