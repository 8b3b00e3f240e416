// Command vae_subclassing is the variational autoencoder of Keras' guide
// "Making new layers and models via subclassing", ported line by line:
// layers made of layers (Sampling, Encoder, Decoder) and a model type with
// its own call that adds a loss (VariationalAutoEncoder), trained with
// Compile/Fit on MNIST digits. No weight list is written by hand: the
// layers and models track the parts in their fields, as Keras does.
//
//	go run ./examples/vae_subclassing            # 2 epochs, as the guide
//	go run ./examples/vae_subclassing -epochs 1 -limit 5000
//	go run ./examples/vae_subclassing -save vae.keras
//
// It ends with a line `loss: 0.XXXX` (the last epoch's loss; the guide's
// Keras run gives 0.0748 then 0.0676, tools/keras_reference/vae_guide.py).
// With -save it also saves the model, loads it back with keras.LoadModel
// (the class is registered: see init in vae.go) and prints
// `reloaded: same weights and reconstruction error` when the loaded model
// has the trained one's weights and reconstructs the test digits as well. Data: MNIST from -data DIR, else Keras'
// cache or $GOKERAS_DATASETS (package datasets).
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"slices"

	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/exampledata"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

func main() {
	dataDir := flag.String("data", "", "directory holding MNIST (default: the usual places)")
	epochs := flag.Int("epochs", 2, "training epochs")
	batchSize := flag.Int("batch-size", 64, "batch size")
	limit := flag.Int("limit", 0, "use only the first N training images (0: all)")
	seed := flag.Int64("seed", 0, "random seed for weights and shuffling")
	save := flag.String("save", "", "save the trained model to this .keras file and load it back")
	verbose := flag.Int("verbose", keras.VerboseBar, "Fit verbosity: 0 silent, 1 progress bar, 2 one line per epoch (1 and 2 also print the peak RSS)")
	flag.Parse()
	cli.MustCheck(cli.Positive("epochs", "batch-size"), cli.NonNegative("limit"), cli.OneOf("verbose", 0, 1, 2))
	loss, err := run(*dataDir, *epochs, *batchSize, *limit, *seed, *verbose, *save)
	if err != nil {
		log.Fatal(err)
	}
	if *save != "" {
		fmt.Println("reloaded: same weights and reconstruction error")
	}
	if *verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout)
	}
	fmt.Printf("loss: %.4f\n", loss)
}

// run trains the VAE and returns the last epoch's loss; with a save path
// it saves the model there and checks the file's model against it.
func run(dataDir string, epochs, batchSize, limit int, seed int64, verbose int, save string) (float64, error) {
	layers.SetRandomSeed(uint64(seed))
	xTrain, _, xTest, _, err := exampledata.Load("mnist", dataDir, limit)
	if err != nil {
		return 0, err
	}
	// x_train = x_train.reshape(60000, 784).astype("float32") / 255
	if err := xTrain.Reshape(xTrain.Shape()[0], originalDim); err != nil {
		return 0, err
	}
	vae, err := NewVariationalAutoEncoder(originalDim, intermediateDim, latentDim)
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
	if save != "" {
		if err := xTest.Reshape(xTest.Shape()[0], originalDim); err != nil {
			return 0, err
		}
		if err := saveAndReload(vae, save, xTest); err != nil {
			return 0, err
		}
	}
	return l[len(l)-1], nil
}

// saveAndReload saves vae to path, loads it back and checks the loaded
// model against the trained one: the same weights, bit for bit, and the
// same reconstruction error on x within 2% (each call draws its own noise:
// a seed generator's state is not saved in a .keras file, as in Keras).
func saveAndReload(vae *VariationalAutoEncoder, path string, x *tensor.Dense) error {
	if err := vae.Save(path); err != nil {
		return err
	}
	back, err := keras.LoadModel(path)
	if err != nil {
		return err
	}
	want, got := vae.GetWeights(), back.GetWeights()
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d weights loaded, the model has %d", path, len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i].Data().([]float32), want[i].Data().([]float32)) {
			return fmt.Errorf("%s: weight %d differs from the trained model's", path, i)
		}
	}
	errTrained, err := reconstructionError(vae.Model, x)
	if err != nil {
		return err
	}
	errLoaded, err := reconstructionError(back, x)
	if err != nil {
		return err
	}
	if math.Abs(errLoaded-errTrained) > 0.02*errTrained {
		return fmt.Errorf("%s: the loaded model's reconstruction error %.5f, the trained one's %.5f", path, errLoaded, errTrained)
	}
	return nil
}

// reconstructionError is the mean squared error of m's reconstructions of x.
func reconstructionError(m *keras.Model, x *tensor.Dense) (float64, error) {
	p, err := m.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		return 0, err
	}
	var sum float64
	xs := x.Data().([]float32)
	for i, v := range p.Data().([]float32) {
		d := float64(v - xs[i])
		sum += d * d
	}
	return sum / float64(len(xs)), nil
}
