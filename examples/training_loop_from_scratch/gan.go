package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/keras/random"
	"github.com/gokeras/gokeras/keras/utils"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// sequential is keras.Sequential([keras.Input(shape), layers...], name=name).
func sequential(name string, shape []int, ls ...layers.Layer) (*keras.Model, error) {
	inputs := layers.Input(shape)
	x := inputs
	for _, l := range ls {
		x = layers.Apply(l, x)
	}
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{x}, keras.ModelName(name))
}

// gan is the guide's end-to-end example: a DCGAN trained on MNIST digits
// by a training loop from scratch, stopped after 12 steps as the guide
// does. The guide compiles train_step with @tf.function; here it runs
// eagerly, because its two gradient computations would differentiate one
// traced graph twice, which gokeras refuses (each eager part starts a
// graph of its own).
func gan(ctx context.Context, train, test datasets.Pair, saveDir string) error {
	discriminator, err := sequential("discriminator", []int{28, 28, 1},
		layers.NewConv2D(64, 3, layers.WithStrides(2, 2), layers.WithPadding("same")),
		layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)),
		layers.NewConv2D(128, 3, layers.WithStrides(2, 2), layers.WithPadding("same")),
		layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)),
		layers.NewGlobalMaxPooling2D(),
		layers.NewDense(1),
	)
	if err != nil {
		return err
	}
	if err := discriminator.Summary(); err != nil {
		return err
	}

	latentDim := 128
	generator, err := sequential("generator", []int{latentDim},
		// We want to generate 128 coefficients to reshape into a 7x7x128 map.
		layers.NewDense(7*7*128),
		layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)),
		layers.NewReshape([]int{7, 7, 128}),
		layers.NewConv2DTranspose(128, 4, layers.WithStrides(2, 2), layers.WithPadding("same")),
		layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)),
		layers.NewConv2DTranspose(128, 4, layers.WithStrides(2, 2), layers.WithPadding("same")),
		layers.NewLeakyReLU(layers.WithNegativeSlope(0.2)),
		layers.NewConv2D(1, 7, layers.WithPadding("same"), layers.WithActivation("sigmoid")),
	)
	if err != nil {
		return err
	}

	// Instantiate one optimizer for the discriminator and another for the generator.
	dOptimizer := optimizers.NewAdam(optimizers.LearningRate(0.0003))
	gOptimizer := optimizers.NewAdam(optimizers.LearningRate(0.0004))

	// Instantiate a loss function.
	lossFn := losses.NewBinaryCrossentropy(losses.FromLogits(true))

	const batchSize = 64
	trainStep := func(realImages *tensor.Dense) (dLoss, gLoss, generatedImages ops.Tensor, err error) {
		// Sample random points in the latent space.
		randomLatentVectors, err := random.Normal([]int{batchSize, latentDim})
		if err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		// Decode them to fake images.
		if generatedImages, err = generator.CallEager(randomLatentVectors, false); err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		// Combine them with real images.
		combinedImages := ops.Concat(0, generatedImages, ops.ConvertToTensor(realImages))

		// Assemble labels discriminating real from fake images.
		labels := ops.Concat(0, ops.Ones(ops.Shape{batchSize, 1}), ops.Zeros(ops.Shape{realImages.Shape()[0], 1}))
		// Add random noise to the labels - important trick!
		noise, err := random.Uniform(labels.Shape())
		if err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		labels = ops.Add(labels, ops.Scale(ops.ConvertToTensor(noise), 0.05))

		// Train the discriminator.
		tape := keras.NewGradientTape()
		predictions, err := discriminator.CallEager(combinedImages, false)
		if err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		dLoss = lossFn.Call(labels, predictions)
		grads, err := tape.Gradient(dLoss, discriminator.TrainableVariables())
		if err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		if err := dOptimizer.ApplyGradients(grads, discriminator.TrainableVariables()); err != nil {
			return dLoss, gLoss, generatedImages, err
		}

		// Sample random points in the latent space.
		if randomLatentVectors, err = random.Normal([]int{batchSize, latentDim}); err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		// Assemble labels that say "all real images".
		misleadingLabels := ops.Zeros(ops.Shape{batchSize, 1})

		// Train the generator (note that we should *not* update the
		// weights of the discriminator)!
		tape = keras.NewGradientTape()
		fake, err := generator.CallEager(randomLatentVectors, false)
		if err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		if predictions, err = discriminator.CallEager(fake, false); err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		gLoss = lossFn.Call(misleadingLabels, predictions)
		if grads, err = tape.Gradient(gLoss, generator.TrainableVariables()); err != nil {
			return dLoss, gLoss, generatedImages, err
		}
		err = gOptimizer.ApplyGradients(grads, generator.TrainableVariables())
		return dLoss, gLoss, generatedImages, err
	}

	// Prepare the dataset. We use both the training & test MNIST digits.
	allDigits, err := train.X.Concat(0, test.X)
	if err != nil {
		return err
	}
	if allDigits, err = datasets.ToFloat32(allDigits, 1.0/255, false); err != nil {
		return err
	}
	if allDigits, err = utils.Reshape(allDigits, -1, 28, 28, 1); err != nil {
		return err
	}
	dataset, err := datasets.FromTensorSlices(allDigits)
	if err != nil {
		return err
	}
	dataset = dataset.Shuffle(1024, *seed).Batch(batchSize)

	epochs := 1 // In practice you need at least 20 epochs to generate nice digits.
	for epoch := range epochs {
		fmt.Printf("\nStart epoch %d\n", epoch)

		step := 0
		for batch := range dataset.All(ctx) {
			realImages := batch[0]
			// Train the discriminator & generator on one batch of real images.
			dLoss, gLoss, generatedImages, err := trainStep(realImages)
			if err != nil {
				return err
			}

			// Logging.
			if step%100 == 0 {
				// Print metrics.
				fmt.Printf("discriminator loss at step %d: %.2f\n", step, dLoss.Float32())
				fmt.Printf("adversarial loss at step %d: %.2f\n", step, gLoss.Float32())

				// Save one generated image.
				if saveDir != "" {
					img := generatedImages.Float32s()[:28*28]
					if err := savePNG(filepath.Join(saveDir, fmt.Sprintf("generated_img_%d.png", step)), img); err != nil {
						return err
					}
				}
			}

			// To limit execution time we stop after 10 steps.
			// Remove the lines below to actually train the model!
			if step > 10 || step+1 >= *ganSteps {
				break
			}
			step++
		}
		if err := dataset.Err(); err != nil {
			return err
		}
	}
	return nil
}

// savePNG writes a 28x28 image of values in [0, 1] (keras.utils.array_to_img
// of the values times 255, then img.save).
func savePNG(path string, pixels []float32) error {
	img := image.NewGray(image.Rect(0, 0, 28, 28))
	for i, v := range pixels {
		img.SetGray(i%28, i/28, color.Gray{Y: uint8(min(max(v*255, 0), 255))})
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
