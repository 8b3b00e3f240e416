// Command vae_subclassing is the variational autoencoder of Keras' guide
// "Making new layers and models via subclassing", ported line by line:
// layers made of layers (Sampling, Encoder, Decoder) and a model type with
// its own call that adds a loss (VariationalAutoEncoder), trained with
// Compile/Fit on MNIST digits. No weight list is written by hand: the
// layers and models track the parts in their fields, as Keras does.
//
//	go run ./examples/vae_subclassing            # 2 epochs, as the guide
//	go run ./examples/vae_subclassing -epochs 1 -limit 5000
//
// It ends with a line `loss: 0.XXXX` (the last epoch's loss). Data: MNIST
// from -data DIR, else Keras' cache or $GOKERAS_DATASETS (package datasets).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/exampledata"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func main() {
	dataDir := flag.String("data", "", "directory holding MNIST (default: the usual places)")
	epochs := flag.Int("epochs", 2, "training epochs")
	batchSize := flag.Int("batch-size", 64, "batch size")
	limit := flag.Int("limit", 0, "use only the first N training images (0: all)")
	seed := flag.Int64("seed", 0, "random seed for weights and shuffling")
	verbose := flag.Int("verbose", keras.VerboseBar, "Fit verbosity: 0 silent, 1 progress bar, 2 one line per epoch (1 and 2 also print the peak RSS)")
	flag.Parse()
	cli.MustCheck(cli.Positive("epochs", "batch-size"), cli.NonNegative("limit"), cli.OneOf("verbose", 0, 1, 2))
	loss, err := run(*dataDir, *epochs, *batchSize, *limit, *seed, *verbose)
	if err != nil {
		log.Fatal(err)
	}
	if *verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout)
	}
	fmt.Printf("loss: %.4f\n", loss)
}

func run(dataDir string, epochs, batchSize, limit int, seed int64, verbose int) (float64, error) {
	layers.SetRandomSeed(uint64(seed))
	xTrain, _, _, _, err := exampledata.Load("mnist", dataDir, limit)
	if err != nil {
		return 0, err
	}
	// x_train = x_train.reshape(60000, 784).astype("float32") / 255
	n := xTrain.Shape()[0]
	if err := xTrain.Reshape(n, 784); err != nil {
		return 0, err
	}
	const originalDim = 784
	vae, err := NewVariationalAutoEncoder(originalDim, 64, 32)
	if err != nil {
		return 0, err
	}
	if err := vae.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(1e-3)), Loss: losses.NewMeanSquaredError()}); err != nil {
		return 0, err
	}
	hist, err := vae.Fit(xTrain, xTrain, keras.FitConfig{Epochs: epochs, BatchSize: batchSize, Verbose: verbose, Seed: uint64(seed)})
	if err != nil {
		return 0, err
	}
	l := hist.History["loss"]
	return l[len(l)-1], nil
}
