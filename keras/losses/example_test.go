package losses_test

import (
	"fmt"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/ops"
)

// A sparse categorical crossentropy on logits, per example and reduced.
func Example() {
	tr := ops.NewTrace(false, 0, 1)
	labels := tr.Input("labels", ops.Shape{2})
	logits := tr.Input("logits", ops.Shape{2, 3})

	loss := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))
	perExample := loss.PerExample(labels, logits)
	mean := loss.Call(labels, logits)

	p, err := engine.Compile(tr, []ops.Tensor{perExample, mean})
	if err != nil {
		fmt.Println(err)
		return
	}
	outs, err := p.Run(engine.Single{}, []ops.Value{
		{Shape: ops.Shape{2}, Data: []float32{0, 1}},
		{Shape: ops.Shape{2, 3}, Data: []float32{2, 1, 0.1, 0.5, 2.5, 0.2}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s per example: %.4f\n", loss.Name(), outs[0].Data)
	fmt.Printf("%s: %.4f\n", loss.GetReduction(), outs[1].Data[0])
	// Output:
	// sparse_categorical_crossentropy per example: [0.4170 0.2116]
	// sum_over_batch_size: 0.3143
}

// Labels whose shape does not fit the predictions are reported by a panic
// with an *ops.Error, which the model boundary turns into an error.
func ExampleSparseCategoricalCrossentropy_shapeMismatch() {
	defer func() { fmt.Println(recover()) }()
	tr := ops.NewTrace(false, 0, 1)
	losses.NewSparseCategoricalCrossentropy().Call(tr.Input("labels", ops.Shape{32}), tr.Input("probs", ops.Shape{64, 10}))
	// Output:
	// ops: losses: SparseCategoricalCrossentropy: labels of shape (32,) do not match predictions of shape (64, 10): want labels of shape (64,) or (64, 1)
}

func ExampleGet() {
	for _, name := range []string{"mse", "binary_crossentropy", "ctc"} {
		l, err := losses.Get(name)
		if err != nil {
			fmt.Println("error:", err != nil)
			continue
		}
		fmt.Println(l.Name(), l.GetConfig()["reduction"])
	}
	// Output:
	// mean_squared_error sum_over_batch_size
	// binary_crossentropy sum_over_batch_size
	// error: true
}
