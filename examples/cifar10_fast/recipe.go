package main

import (
	"fmt"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// Recipe is the training recipe: the net's widths and the optimisation
// settings, in Keras' conventions (loss averaged over the batch, weight
// decay decoupled as Keras' optimizers apply it).
type Recipe struct {
	Widths         []int   // filters of the stem and the three blocks
	NoAugment      bool    // leave out the RandomTranslation and RandomFlip layers
	LearningRate   float64 // peak learning rate, after the warm-up
	WarmupFraction float64 // fraction of all steps warming up linearly from 0
	Momentum       float64 // Nesterov momentum
	WeightDecay    float64 // Keras' weight_decay: w -= w*wd*lr each step
	LabelSmoothing float64
	EMA            float64 // ema_momentum; 0 is no use_ema
}

func (r Recipe) check() error {
	switch {
	case len(r.Widths) != 4:
		return fmt.Errorf("cifar10_fast: %d widths, want 4 (stem and three blocks)", len(r.Widths))
	case !(r.LearningRate > 0):
		return fmt.Errorf("-lr %v: want more than 0", r.LearningRate)
	case !(r.WarmupFraction >= 0 && r.WarmupFraction < 1):
		return fmt.Errorf("-warmup %v: want a fraction in [0, 1)", r.WarmupFraction)
	case !(r.Momentum >= 0 && r.Momentum < 1):
		return fmt.Errorf("-momentum %v: want a value in [0, 1)", r.Momentum)
	case !(r.WeightDecay >= 0):
		return fmt.Errorf("-weight-decay %v: want 0 or more", r.WeightDecay)
	case !(r.LabelSmoothing >= 0 && r.LabelSmoothing <= 1):
		return fmt.Errorf("-label-smoothing %v: want a value in [0, 1]", r.LabelSmoothing)
	case !(r.EMA >= 0 && r.EMA < 1):
		return fmt.Errorf("-ema %v: want a value in [0, 1)", r.EMA)
	}
	return nil
}

// convBN is Conv2D (3x3, same padding, no bias: the batch normalization
// after it has the offset) then BatchNormalization. Batch normalization is
// synchronized so that its statistics are over the global batch: with it,
// N replicas compute what one replica does on the same batch.
func convBN(x *layers.KerasTensor, filters int) *layers.KerasTensor {
	x = layers.Apply(layers.NewConv2D(filters, 3, layers.WithPadding("same"), layers.WithUseBias(false)), x)
	// momentum 0.9 (PyTorch's 0.1): with ~100 steps an epoch Keras' 0.99
	// leaves the moving statistics behind the weights for the first epochs.
	return layers.Apply(layers.NewBatchNormalization(layers.WithMomentum(0.9), layers.WithSynchronized(true)), x)
}

// BuildModel returns airbench94's body without its whitening layer:
// a 3x3 stem, then three blocks of conv, 2x2 max pooling, BN, GELU, conv,
// BN, GELU (32 -> 16 -> 8 -> 4 pixels), global max pooling, a bias-free
// Dense(10) and the logits scaled by 1/8 (ResNet-9's final Mul(0.125),
// which keeps the first logits small under glorot initialisation).
// Unless r.NoAugment, the inputs first go through
// RandomTranslation(0.125, 0.125, fill_mode="reflect", interpolation=
// "nearest") and RandomFlip("horizontal"): Keras' layers for a random
// crop of a reflect-padded image (4 pixels each way) and a mirror image,
// which act in training only.
func BuildModel(r Recipe) (*keras.Model, error) {
	if len(r.Widths) != 4 {
		return nil, fmt.Errorf("cifar10_fast: %d widths, want 4 (stem and three blocks)", len(r.Widths))
	}
	inputs := layers.Input([]int{32, 32, 3})
	x := inputs
	if !r.NoAugment {
		x = layers.Apply(layers.NewRandomTranslation(0.125, 0.125, layers.WithFillMode("reflect"), layers.WithInterpolation("nearest")), x)
		x = layers.Apply(layers.NewRandomFlip("horizontal"), x)
	}
	x = layers.Apply(layers.NewActivation("gelu"), convBN(x, r.Widths[0]))
	for _, f := range r.Widths[1:] {
		x = layers.Apply(layers.NewConv2D(f, 3, layers.WithPadding("same"), layers.WithUseBias(false)), x)
		x = layers.Apply(layers.NewMaxPooling2D(), x)
		x = layers.Apply(layers.NewBatchNormalization(layers.WithMomentum(0.9), layers.WithSynchronized(true)), x)
		x = layers.Apply(layers.NewActivation("gelu"), x)
		x = layers.Apply(layers.NewActivation("gelu"), convBN(x, f))
	}
	x = layers.Apply(layers.NewGlobalMaxPooling2D(), x)
	x = layers.Apply(layers.NewDense(10, layers.WithUseBias(false)), x)
	// float32 logits under a mixed policy, as Keras' mixed-precision guide
	// has the last layer.
	outputs := layers.Apply(layers.NewRescaling(0.125, layers.WithDtype("float32")), x)
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs})
}

// Schedule is the learning rate: linear from 0 to r.LearningRate over the
// first WarmupFraction of totalSteps, then a half cosine down to 0 (Keras'
// CosineDecay with warmup_target).
func (r Recipe) Schedule(totalSteps int64) (optimizers.Schedule, error) {
	warm := int64(r.WarmupFraction * float64(totalSteps))
	return optimizers.CosineDecayWithWarmup(0, max(totalSteps-warm, 1), 0, r.LearningRate, warm)
}

// Optimizer is SGD with Nesterov momentum, the schedule over totalSteps,
// Keras' weight decay and, with r.EMA > 0, use_ema.
func (r Recipe) Optimizer(totalSteps int64) (optimizers.Optimizer, error) {
	s, err := r.Schedule(totalSteps)
	if err != nil {
		return nil, err
	}
	opts := []optimizers.Option{optimizers.LearningRateSchedule(s), optimizers.Momentum(r.Momentum), optimizers.Nesterov(true)}
	if r.WeightDecay > 0 {
		opts = append(opts, optimizers.WeightDecay(r.WeightDecay))
	}
	if r.EMA > 0 {
		opts = append(opts, optimizers.UseEMA(true), optimizers.EMAMomentum(r.EMA))
	}
	o := optimizers.NewSGD(opts...)
	return o, o.Err()
}

// Loss is the cross-entropy of the logits against one-hot labels smoothed
// by r.LabelSmoothing (Keras' CategoricalCrossentropy: Keras' sparse
// cross-entropy has no label smoothing).
func (r Recipe) Loss() losses.Loss {
	return losses.NewCategoricalCrossentropy(losses.FromLogits(true), losses.LabelSmoothing(r.LabelSmoothing))
}

// Compile builds the model and compiles it with the recipe over
// totalSteps; call it inside a strategy's scope.
func (r Recipe) Compile(totalSteps int64) (*keras.Model, error) {
	m, err := BuildModel(r)
	if err != nil {
		return nil, err
	}
	opt, err := r.Optimizer(totalSteps)
	if err != nil {
		return nil, err
	}
	err = m.Compile(keras.CompileConfig{Optimizer: opt, Loss: r.Loss(), Metrics: []any{"accuracy"}})
	return m, err
}
