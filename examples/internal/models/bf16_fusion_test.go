package models

import (
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// TestBF16CastFusionInSeedModels: under mixed_bfloat16 the training step
// of the seed CNN and ResNet (forward pass, loss, gradients) casts no
// output of a convolution with its bias, a batch normalization or its
// input gradient, a residual AddRelu, a max pooling's gradient, a
// convolution's input gradient or a sum of gradient terms (AddN): those
// ops round their output themselves (ops/cast_fused.go; the sum becomes
// an Add), and the casts left read weights, inputs and other ops.
func TestBF16CastFusionInSeedModels(t *testing.T) {
	fusable := map[string]bool{"Conv2DBias": true, "Conv2DBiasRelu": true, "BatchNormApply": true, "BatchNormGradInput": true,
		"AddRelu": true, "MaxPool2DGrad": true, "Conv2DBackpropInput": true, "AddN": true}
	for _, c := range []struct {
		name string
		want []string // kinds with rounding steps
	}{
		{"cnn", []string{"Conv2DBiasRelu", "Conv2DBackpropInput"}},
		{"resnet", []string{"Conv2DBias", "BatchNormApply", "BatchNormGradInput", "AddRelu", "MaxPool2DGrad", "Conv2DBackpropInput", "Add"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, x, y := seedModel(t, c.name, "mixed_bfloat16", optimizers.NewSGD(optimizers.LearningRate(0.1)), 4)
			tr := ops.NewTrace(true, 0, 1)
			xs := ops.Shape(x.Shape())
			logits := m.Call([]ops.Tensor{tr.Constant(xs, x.Data().([]float32))}, true)[0]
			labels := tr.Constant(ops.Shape{4}, y.Data().([]float32))
			loss := ops.Sum(ops.SparseSoftmaxCrossEntropyWithLogits(labels, logits), false)
			grads, err := ops.Gradients(loss, m.TrainableVariables())
			if err != nil {
				t.Fatal(err)
			}
			p, err := engine.Compile(tr, append([]ops.Tensor{loss}, grads...))
			if err != nil {
				t.Fatal(err)
			}
			pl := p.Plan()
			producer := map[int]string{}
			rounding := map[string]int{}
			casts := 0
			for _, st := range pl.Steps {
				producer[st.Out] = st.Kind
				if st.Op != nil && st.Op.RoundsBFloat16() {
					rounding[st.Kind]++
				}
				if st.Kind == "CastToBFloat16" {
					casts++
				}
			}
			for _, st := range pl.Steps {
				if st.Kind == "CastToBFloat16" && fusable[producer[st.Ins[0]]] {
					t.Errorf("a CastToBFloat16 step rounds the output of a %s step", producer[st.Ins[0]])
				}
			}
			for _, k := range c.want {
				if rounding[k] == 0 {
					t.Errorf("no %s step rounds its output (rounding steps %v)", k, rounding)
				}
			}
			t.Logf("rounding steps %v, CastToBFloat16 steps left %d", rounding, casts)
			if _, err := p.Run(engine.Single{}, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}
