package main

import (
	"fmt"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/keras/random"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Wrapping up: an end-to-end GAN example.

const latentDim = 128

// newDiscriminator creates the discriminator: 28x28x1 images to one logit.
func newDiscriminator() (*keras.Model, error) {
	inputs := layers.Input([]int{28, 28, 1})
	x := layers.Apply(layers.NewConv2D(64, 3, layers.WithStrides(2, 2), layers.WithPadding("same")), inputs)
	x = layers.Apply(layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)), x)
	x = layers.Apply(layers.NewConv2D(128, 3, layers.WithStrides(2, 2), layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)), x)
	x = layers.Apply(layers.NewGlobalMaxPooling2D(), x)
	outputs := layers.Apply(layers.NewDense(1), x)
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs}, keras.ModelName("discriminator"))
}

// newGenerator creates the generator: latent vectors to 28x28x1 images.
func newGenerator() (*keras.Model, error) {
	inputs := layers.Input([]int{latentDim})
	// We want to generate 128 coefficients to reshape into a 7x7x128 map
	x := layers.Apply(layers.NewDense(7*7*128), inputs)
	x = layers.Apply(layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)), x)
	x = layers.Apply(layers.NewReshape([]int{7, 7, 128}), x)
	x = layers.Apply(layers.NewConv2DTranspose(128, 4, layers.WithStrides(2, 2), layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)), x)
	x = layers.Apply(layers.NewConv2DTranspose(128, 4, layers.WithStrides(2, 2), layers.WithPadding("same")), x)
	x = layers.Apply(layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)), x)
	outputs := layers.Apply(layers.NewConv2D(1, 7, layers.WithPadding("same"), layers.WithActivation("sigmoid")), x)
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs}, keras.ModelName("generator"))
}

// GAN is a feature-complete GAN: its own Compile signature, and the whole
// GAN algorithm in its train step. Its *keras.Model is the model Fit runs
// (the generator followed by the discriminator), standing in for Keras'
// bare keras.Model subclass.
type GAN struct {
	*keras.Model
	discriminator *keras.Model
	generator     *keras.Model
	latentDim     int
	dLossTracker  *metrics.Mean
	gLossTracker  *metrics.Mean
	seedGenerator *random.SeedGenerator
	dOptimizer    optimizers.Optimizer
	gOptimizer    optimizers.Optimizer
	lossFn        losses.Loss
}

func NewGAN(discriminator, generator *keras.Model, latentDim int) (*GAN, error) {
	z := layers.Input([]int{latentDim})
	host, err := keras.NewModel([]*layers.KerasTensor{z}, []*layers.KerasTensor{discriminator.Apply(generator.Apply(z))}, keras.ModelName("gan"))
	if err != nil {
		return nil, err
	}
	g := &GAN{
		Model:         host,
		discriminator: discriminator,
		generator:     generator,
		latentDim:     latentDim,
		dLossTracker:  metrics.NewMean(metrics.Name("d_loss")),
		gLossTracker:  metrics.NewMean(metrics.Name("g_loss")),
		seedGenerator: random.NewSeedGenerator(1337),
	}
	host.Override(g)
	return g, nil
}

func (g *GAN) Metrics() []metrics.Metric {
	return []metrics.Metric{g.dLossTracker, g.gLossTracker}
}

func (g *GAN) Compile(dOptimizer, gOptimizer optimizers.Optimizer, lossFn losses.Loss) error {
	if err := g.Model.Compile(keras.CompileConfig{}); err != nil {
		return err
	}
	g.dOptimizer = dOptimizer
	g.gOptimizer = gOptimizer
	g.lossFn = lossFn
	return nil
}

func (g *GAN) TrainStep(data []ops.Tensor) (keras.StepLogs, error) {
	realImages := data[0]
	tr := realImages.Trace()
	// Sample random points in the latent space
	batchSize := realImages.Shape()[0]
	randomLatentVectors := random.NormalIn(tr, ops.Shape{batchSize, g.latentDim}, random.Generator(g.seedGenerator))

	// Decode them to fake images
	generatedImages := g.generator.Forward(randomLatentVectors, false)

	// Combine them with real images
	combinedImages := ops.Concat(0, generatedImages, realImages)

	// Assemble labels discriminating real from fake images
	labels := ops.Concat(0, ops.Ones(ops.Shape{batchSize, 1}), ops.Zeros(ops.Shape{batchSize, 1}))
	// Add random noise to the labels - important trick!
	labels = ops.Add(labels, ops.Scale(random.UniformIn(tr, labels.Shape(), random.Generator(g.seedGenerator)), 0.05))

	// Train the discriminator
	tape := keras.NewGradientTape()
	predictions := g.discriminator.Forward(combinedImages, false)
	dLoss := g.lossFn.Call(labels, predictions)
	grads, err := tape.Gradient(dLoss, g.discriminator.TrainableVariables())
	if err != nil {
		return nil, err
	}
	if err := g.dOptimizer.ApplyGradients(grads, g.discriminator.TrainableVariables()); err != nil {
		return nil, err
	}

	// Sample random points in the latent space
	randomLatentVectors = random.NormalIn(tr, ops.Shape{batchSize, g.latentDim}, random.Generator(g.seedGenerator))

	// Assemble labels that say "all real images" (a constant of the
	// traced step: the losses want both tensors from the step's trace)
	misleadingLabels := tr.Constant(ops.Shape{batchSize, 1}, make([]float32, batchSize))

	// Train the generator (note that we should *not* update the weights
	// of the discriminator)!
	//
	// A traced step applies every update after the step, so unlike
	// Keras' eager train_step the discriminator seen here is the one
	// from before this step's discriminator update.
	tape = keras.NewGradientTape()
	predictions = g.discriminator.Forward(g.generator.Forward(randomLatentVectors, false), false)
	gLoss := g.lossFn.Call(misleadingLabels, predictions)
	grads, err = tape.Gradient(gLoss, g.generator.TrainableVariables())
	if err != nil {
		return nil, err
	}
	if err := g.gOptimizer.ApplyGradients(grads, g.generator.TrainableVariables()); err != nil {
		return nil, err
	}

	// Update metrics and return their value.
	g.dLossTracker.UpdateState(dLoss)
	g.gLossTracker.UpdateState(gLoss)
	return keras.StepLogs{
		{Name: "d_loss", Metric: g.dLossTracker},
		{Name: "g_loss", Metric: g.gLossTracker},
	}, nil
}

// allDigits is np.concatenate([x_train, x_test]) of MNIST, scaled to
// [0, 1] and reshaped to (-1, 28, 28, 1).
func allDigits(dataDir string) (*tensor.Dense, error) {
	var opts []datasets.LoadOption
	if dataDir != "" {
		opts = append(opts, datasets.Dir(dataDir))
	}
	train, test, err := datasets.LoadMNIST(opts...)
	if err != nil {
		return nil, err
	}
	var all []float32
	for _, p := range []datasets.Pair{train, test} {
		for _, b := range p.X.Data().([]uint8) {
			all = append(all, float32(b)/255)
		}
	}
	return tensor.New(tensor.WithShape(len(all)/784, 28, 28, 1), tensor.WithBacking(all)), nil
}

func ganExample(s settings) error {
	_, _, err := trainGAN(s)
	return err
}

// trainGAN builds and trains the GAN, returning it and Fit's history.
func trainGAN(s settings) (*GAN, *keras.History, error) {
	fmt.Fprintln(s.out, "## Wrapping up: an end-to-end GAN example")
	// Create the discriminator
	discriminator, err := newDiscriminator()
	if err != nil {
		return nil, nil, err
	}
	// Create the generator
	generator, err := newGenerator()
	if err != nil {
		return nil, nil, err
	}

	// Prepare the dataset. We use both the training & test MNIST digits.
	const batchSize = 64
	digits, err := allDigits(s.dataDir)
	if err != nil {
		return nil, nil, err
	}
	dataset, err := datasets.FromTensorSlices(digits)
	if err != nil {
		return nil, nil, err
	}
	dataset = dataset.Shuffle(1024).Batch(batchSize)

	gan, err := NewGAN(discriminator, generator, latentDim)
	if err != nil {
		return nil, nil, err
	}
	if err := gan.Compile(
		optimizers.NewAdam(optimizers.LearningRate(0.0003)),
		optimizers.NewAdam(optimizers.LearningRate(0.0003)),
		losses.NewBinaryCrossentropy(losses.FromLogits(true)),
	); err != nil {
		return nil, nil, err
	}

	// To limit the execution time, we only train on 100 batches. You can train on
	// the entire dataset. You will need about 20 epochs to get nice results.
	hist, err := gan.Fit(dataset.Take(s.ganBatches), nil, keras.FitConfig{Epochs: 1, Verbose: s.verbose, Out: s.out})
	return gan, hist, err
}
