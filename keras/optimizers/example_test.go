package optimizers_test

import (
	"fmt"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// Minimise sum(w²) with SGD and momentum, feeding its gradient 2w by hand.
func Example() {
	w := ops.NewVariable("w", ops.Shape{2}, []float32{1, -1}, true)
	opt := optimizers.NewSGD(optimizers.LearningRate(0.1), optimizers.Momentum(0.9))
	for range 3 {
		d := w.Data(0)
		grad := []float32{2 * d[0], 2 * d[1]}
		if err := opt.Apply(engine.Single{}, [][]float32{grad}, []*ops.Variable{w}); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("step %d: w = %.4f\n", opt.Iterations(), w.Numpy())
	}
	// Output:
	// step 1: w = [0.8000 -0.8000]
	// step 2: w = [0.4600 -0.4600]
	// step 3: w = [0.0620 -0.0620]
}

// A traced step: the optimizer's hook updates the variable after each replay.
func ExampleOptimizer_applyGradients() {
	w := ops.NewVariable("w", ops.Shape{2}, []float32{1, -2}, true)
	tr := ops.NewTrace(true, 0, 1)
	loss := ops.Sum(ops.Square(tr.Read(w)), false)
	grads, _ := ops.Gradients(loss, []*ops.Variable{w})
	opt := optimizers.NewSGD(optimizers.LearningRate(0.25))
	if err := opt.ApplyGradients(grads, []*ops.Variable{w}); err != nil {
		fmt.Println(err)
		return
	}
	p, _ := engine.Compile(tr, []ops.Tensor{loss})
	for range 2 {
		outs, _ := p.Run(engine.Single{}, nil)
		fmt.Printf("loss %.4f, then w = %.4f\n", outs[0].Data[0], w.Numpy())
	}
	// Output:
	// loss 5.0000, then w = [0.5000 -1.0000]
	// loss 1.2500, then w = [0.2500 -0.5000]
}

func ExampleExponentialDecay() {
	s, _ := optimizers.ExponentialDecay(0.1, 100, 0.5, true)
	opt := optimizers.NewAdam(optimizers.LearningRateSchedule(s))
	fmt.Println(opt.CurrentLearningRate(), s.At(150), s.At(200))
	// Output: 0.1 0.05 0.025
}
