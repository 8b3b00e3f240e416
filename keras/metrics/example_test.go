package metrics_test

import (
	"fmt"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/ops"
)

// A metric updated by a traced step: every run of the compiled program
// adds its batch.
func Example() {
	tr := ops.NewTrace(false, 0, 1)
	labels := tr.Input("labels", ops.Shape{2})
	logits := tr.Input("logits", ops.Shape{2, 3})
	acc := metrics.NewSparseCategoricalAccuracy()
	acc.UpdateState(labels, ops.Softmax(logits))

	p, err := engine.Compile(tr, []ops.Tensor{logits})
	if err != nil {
		fmt.Println(err)
		return
	}
	batches := []struct{ ids, logits []float32 }{
		{[]float32{0, 1}, []float32{2, 1, 0, 0, 3, 1}}, // predicts 0, 1: both right
		{[]float32{2, 1}, []float32{0, 0, 5, 4, 1, 1}}, // predicts 2, 0: one right
	}
	for _, b := range batches {
		in := []ops.Value{{Shape: ops.Shape{2}, Data: b.ids}, {Shape: ops.Shape{2, 3}, Data: b.logits}}
		if _, err := p.Run(engine.Single{}, in); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("%s: %.2f\n", acc.Name(), acc.Result())
	acc.ResetState()
	fmt.Printf("after reset: %.2f\n", acc.Result())
	// Output:
	// sparse_categorical_accuracy: 0.75
	// after reset: 0.00
}

func ExampleMean() {
	loss := metrics.NewMean(metrics.Name("loss"))
	loss.UpdateScalar(0.9, 32) // a batch of 32
	loss.UpdateScalar(0.6, 16) // a last batch of 16
	fmt.Printf("%s: %.1f\n", loss.Name(), loss.Result())
	// Output:
	// loss: 0.8
}

func ExampleAccuracyFor() {
	for _, s := range [][2]ops.Shape{
		{{-1}, {-1, 10}},
		{{-1, 10}, {-1, 10}},
		{{-1, 1}, {-1, 1}},
	} {
		m := metrics.AccuracyFor(s[0], s[1])
		fmt.Printf("%v %v: %T named %q\n", s[0], s[1], m, m.Name())
	}
	// Output:
	// (None,) (None, 10): *metrics.SparseCategoricalAccuracy named "accuracy"
	// (None, 10) (None, 10): *metrics.CategoricalAccuracy named "accuracy"
	// (None, 1) (None, 1): *metrics.BinaryAccuracy named "accuracy"
}

func ExampleBinaryAccuracy_Update() {
	m := metrics.NewBinaryAccuracy()
	err := m.Update(ops.Value{Shape: ops.Shape{4}, Data: []float32{1, 0, 1, 1}}, ops.Value{Shape: ops.Shape{3, 1}, Data: []float32{0.9, 0.2, 0.6}})
	fmt.Println(err)
	// Output:
	// metrics: binary_accuracy: labels of shape (4,) do not match predictions of shape (3, 1)
}
