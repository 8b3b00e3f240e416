package callbacks

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"gorgonia.org/tensor"
)

func TestLambdaCallback(t *testing.T) {
	m := model(t, 1, nil)
	x, y := data(16, 1) // 2 batches of 8
	var calls []string
	rec := func(s string) { calls = append(calls, s) }
	cb := &LambdaCallback{
		TrainBegin: func(keras.Logs) error { rec("train_begin"); return nil },
		TrainEnd:   func(keras.Logs) error { rec("train_end"); return nil },
		EpochBegin: func(e int, _ keras.Logs) error { rec(fmt.Sprint("epoch_begin ", e)); return nil },
		EpochEnd: func(e int, l keras.Logs) error {
			_, ok := l.Get("loss")
			rec(fmt.Sprint("epoch_end ", e, ok))
			return nil
		},
		TrainBatchBegin: func(b int, _ keras.Logs) error { rec(fmt.Sprint("batch_begin ", b)); return nil },
		TrainBatchEnd:   func(b int, _ keras.Logs) error { rec(fmt.Sprint("batch_end ", b)); return nil },
		TestBegin:       func(keras.Logs) error { rec("test_begin"); return nil },
		TestBatchEnd:    func(b int, _ keras.Logs) error { rec(fmt.Sprint("test_batch_end ", b)); return nil },
		TestEnd:         func(keras.Logs) error { rec("test_end"); return nil },
		PredictBegin:    func(keras.Logs) error { rec("predict_begin"); return nil },
		PredictEnd:      func(keras.Logs) error { rec("predict_end"); return nil },
	}
	if _, err := m.Fit(x, y, quiet(2, cb)); err != nil {
		t.Fatal(err)
	}
	want := []string{"train_begin",
		"epoch_begin 0", "batch_begin 0", "batch_end 0", "batch_begin 1", "batch_end 1", "epoch_end 0 true",
		"epoch_begin 1", "batch_begin 0", "batch_end 0", "batch_begin 1", "batch_end 1", "epoch_end 1 true",
		"train_end"}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %q\nwant %q", calls, want)
	}
	if cb.Model != m || cb.Params.Epochs != 2 || cb.Params.Steps != 2 {
		t.Errorf("model %p params %+v", cb.Model, cb.Params)
	}
	calls = nil
	if _, err := m.Evaluate(x, y, keras.EvaluateConfig{BatchSize: 8, Verbose: keras.VerboseSilent, Callbacks: []keras.Callback{cb}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent, Callbacks: []keras.Callback{cb}}); err != nil {
		t.Fatal(err)
	}
	want = []string{"test_begin", "test_batch_end 0", "test_batch_end 1", "test_end", "predict_begin", "predict_end"}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %q\nwant %q", calls, want)
	}
	// An error stops Fit.
	boom := errors.New("boom")
	stop := &LambdaCallback{EpochEnd: func(int, keras.Logs) error { return boom }}
	if _, err := m.Fit(x, y, quiet(3, stop)); !errors.Is(err, boom) {
		t.Errorf("Fit error %v", err)
	}
}

// LambdaCallback(on_predict_batch_end=lambda b, logs: keep(logs["outputs"])):
// the batches' outputs, in order before each batch's end, are Predict's.
func TestLambdaCallbackPredictOutputs(t *testing.T) {
	m := model(t, 1, nil)
	x, _ := data(12, 1)
	var calls []string
	var rows []float32
	cb := &LambdaCallback{
		PredictBatchBegin: func(b int, _ keras.Logs) error { calls = append(calls, fmt.Sprint("begin ", b)); return nil },
		PredictBatchEnd:   func(b int, _ keras.Logs) error { calls = append(calls, fmt.Sprint("end ", b)); return nil },
		PredictBatchOutputs: func(b int, outs []*tensor.Dense) error {
			calls = append(calls, fmt.Sprint("outputs ", b, " ", outs[0].Shape()))
			rows = append(rows, outs[0].Data().([]float32)...)
			return nil
		},
	}
	p, err := m.Predict(x, keras.PredictConfig{BatchSize: 8, Verbose: keras.VerboseSilent, Callbacks: []keras.Callback{cb}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"begin 0", "outputs 0 (8, 3)", "end 0", "begin 1", "outputs 1 (4, 3)", "end 1"}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %q\nwant %q", calls, want)
	}
	if !reflect.DeepEqual(rows, p.Data().([]float32)) {
		t.Errorf("outputs %v, Predict %v", rows, p.Data())
	}
}
