// Command conv_autoencoder is keras.io's "Convolutional autoencoder for
// image denoising" (https://keras.io/examples/vision/autoencoder/), ported
// line by line: an encoder of two Conv2D + MaxPooling2D blocks, a decoder
// of two strided Conv2DTranspose layers and a sigmoid Conv2D, trained with
// Adam and binary crossentropy to map images with Gaussian noise (noise
// factor 0.4) back to the clean images. It writes a PNG of noisy, denoised
// and clean test images and ends with the test loss.
//
//	go run ./examples/conv_autoencoder                  # Fashion-MNIST, 3 epochs
//	go run ./examples/conv_autoencoder -dataset mnist   # MNIST digits, as keras.io
//
// Data comes from -data DIR (that folder only), else the Keras cache
// (~/.keras/datasets), the folders listed in $GOKERAS_DATASETS or the
// Debian package dataset-fashion-mnist; see package datasets.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/signal"

	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/exampledata"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// settings are the command's flags.
type settings struct {
	dataset, dataDir, out string
	epochs, batchSize     int
	limit, testLimit      int
	seed                  int64
	verbose               int
	noiseFactor           float64
	images                int
}

func main() {
	var s settings
	flag.StringVar(&s.dataset, "dataset", "fashion_mnist", "fashion_mnist or mnist")
	flag.StringVar(&s.dataDir, "data", "", "directory holding the dataset files (default: the usual places)")
	flag.IntVar(&s.epochs, "epochs", 3, "training epochs (keras.io: 100)")
	flag.IntVar(&s.batchSize, "batch-size", 128, "batch size")
	flag.IntVar(&s.limit, "limit", 0, "use only the first N training examples (0: all)")
	flag.IntVar(&s.testLimit, "test-limit", 0, "use only the first N test examples (0: all)")
	flag.Int64Var(&s.seed, "seed", 0, "random seed for weights, noise and shuffling")
	flag.IntVar(&s.verbose, "verbose", keras.VerboseBar, "Fit verbosity, as Keras' verbose: 0 silent, 1 progress bar, 2 one line per epoch (1 and 2 also print the peak RSS)")
	flag.Float64Var(&s.noiseFactor, "noise-factor", 0.4, "standard deviation of the Gaussian noise added to the images")
	flag.StringVar(&s.out, "out", "denoised.png", "write noisy, denoised and clean test images to this PNG (empty: none)")
	flag.IntVar(&s.images, "images", 10, "test images in the PNG")
	flag.Parse()
	cli.MustCheck(cli.Positive("epochs", "batch-size", "images"), cli.NonNegative("limit", "test-limit"), cli.OneOf("verbose", 0, 1, 2), cli.OutputFile("out"), cli.OneOfStrings("dataset", cli.Datasets...))
	if !(s.noiseFactor >= 0) {
		log.Fatalf("-noise-factor %v: want 0 or more", s.noiseFactor)
	}
	if err := run(s); err != nil {
		log.Fatal(err)
	}
}

// noise returns x plus noiseFactor times standard normal noise, clipped
// to [0, 1]: keras.io's noise().
func noise(x *tensor.Dense, noiseFactor float64, r *rand.Rand) *tensor.Dense {
	src := x.Data().([]float32)
	out := make([]float32, len(src))
	for i, v := range src {
		out[i] = min(max(v+float32(noiseFactor*r.NormFloat64()), 0), 1)
	}
	return tensor.New(tensor.WithShape(x.Shape().Clone()...), tensor.WithBacking(out))
}

func run(s settings) error {
	layers.SetRandomSeed(uint64(s.seed))
	trainData, _, testData, _, err := exampledata.Load(s.dataset, s.dataDir, s.limit)
	if err != nil {
		return err
	}
	if n := testData.Shape()[0]; s.testLimit > 0 && s.testLimit < n {
		testData = exampledata.Head(testData, s.testLimit)
	}
	r := rand.New(rand.NewPCG(uint64(s.seed), 0x6e6f697365))
	noisyTrainData := noise(trainData, s.noiseFactor, r)
	noisyTestData := noise(testData, s.noiseFactor, r)

	// Encoder, then decoder, as keras.io builds them on Input((28, 28, 1)).
	autoencoder, err := keras.NewSequential(
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithPadding("same"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(layers.WithPoolSize(2), layers.WithPadding("same")),
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithPadding("same")),
		layers.NewMaxPooling2D(layers.WithPoolSize(2), layers.WithPadding("same")),
		layers.NewConv2DTranspose(32, 3, layers.WithStrides(2), layers.WithActivation("relu"), layers.WithPadding("same")),
		layers.NewConv2DTranspose(32, 3, layers.WithStrides(2), layers.WithActivation("relu"), layers.WithPadding("same")),
		layers.NewConv2D(1, 3, layers.WithActivation("sigmoid"), layers.WithPadding("same")),
	)
	if err != nil {
		return err
	}
	if err := autoencoder.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewBinaryCrossentropy()}); err != nil {
		return err
	}
	if s.verbose != keras.VerboseSilent {
		if err := autoencoder.Summary(); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	_, err = autoencoder.Fit(noisyTrainData, trainData, keras.FitConfig{
		Epochs: s.epochs, BatchSize: s.batchSize, Seed: uint64(s.seed), Verbose: s.verbose, Context: ctx,
		ValidationData: [2]*tensor.Dense{noisyTestData, testData},
	})
	if err != nil {
		return err
	}
	logs, err := autoencoder.Evaluate(noisyTestData, testData, keras.EvaluateConfig{BatchSize: s.batchSize, Verbose: keras.VerboseSilent})
	if err != nil {
		return err
	}
	loss, _ := logs.Get("loss")
	if s.out != "" {
		n := min(s.images, noisyTestData.Shape()[0])
		noisy, clean := exampledata.Head(noisyTestData, n), exampledata.Head(testData, n)
		denoised, err := autoencoder.Predict(noisy, keras.PredictConfig{BatchSize: s.batchSize, Verbose: keras.VerboseSilent})
		if err != nil {
			return err
		}
		if err := writeGrid(s.out, []*tensor.Dense{noisy, denoised, clean}); err != nil {
			return err
		}
		fmt.Printf("wrote %s: %d noisy (top), denoised (middle) and clean (bottom) test images\n", s.out, n)
	}
	if s.verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout)
	}
	// The noise's own loss, for scale: binary crossentropy of the noisy
	// images as predictions of the clean ones.
	fmt.Printf("test_loss: %.4f (binary crossentropy of denoised against clean test images; the noisy images score %.4f)\n",
		loss, bceOf(noisyTestData, testData))
	return nil
}
