// Command mnist_convnet is keras.io's MNIST convnet
// (examples/vision/mnist_convnet) in gokeras, for comparing its first
// epoch with real Keras' (tools/keras_reference/mnist_convnet_epoch1.py;
// docs/keras_verification.md has the measurements):
//
//	go run ./tools/keras_reference/mnist_convnet -seeds 1,2,3 -epochs 1
//
// The model, preparation and fit are keras.io's: Conv2D 32 3x3 relu,
// MaxPooling 2, Conv2D 64 3x3 relu, MaxPooling 2, Flatten, Dropout 0.5,
// Dense 10 softmax; adam; categorical_crossentropy; batch 128;
// validation_split 0.1 (the last 10%, before shuffling). It prints Fit's
// history per epoch (the epoch's mean training loss, as Keras' History and
// Keras 3.15's progress bar) and what Keras 3.0 to 3.10's progress bar
// showed at the end of epoch 1 from the same per-batch logs: the mean of
// the running means and the epoch's value. MNIST comes from -data, the
// Keras cache or $GOKERAS_DATASETS (see datasets.LoadMNIST).
package main

import (
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
)

// batchLogs records the logs Fit gives after each batch: the running
// means over the epoch so far, as Keras 3 logs them.
type batchLogs struct {
	keras.CallbackBase
	loss, acc []float64
}

func (b *batchLogs) OnTrainBatchEnd(_ int, logs keras.Logs) error {
	l, _ := logs.Get("loss")
	a, _ := logs.Get("accuracy")
	b.loss, b.acc = append(b.loss, l), append(b.acc, a)
	return nil
}

func main() {
	dataDir := flag.String("data", "", "folder with MNIST (default: the usual places, see datasets.LoadMNIST)")
	seeds := flag.String("seeds", "1", "comma-separated seeds, one run each")
	epochs := flag.Int("epochs", 1, "epochs per run")
	limit := flag.Int("limit", 0, "use only the first N training images (0: all 60,000)")
	verbose := flag.Int("verbose", 2, "Fit verbosity")
	flag.BoolVar(&noDropout, "no-dropout", false, "leave Dropout(0.5) out (it draws random masks)")
	flag.BoolVar(&noShuffle, "no-shuffle", false, "fit without shuffling")
	flag.StringVar(&initPath, "init", "", "load the initial weights from this Keras .weights.h5 (mnist_convnet_epoch1.py --save-init)")
	flag.Parse()
	var opts []datasets.LoadOption
	if *dataDir != "" {
		opts = append(opts, datasets.Dir(*dataDir))
	}
	train, _, err := datasets.LoadMNIST(opts...)
	if err != nil {
		log.Fatal(err)
	}
	x, err := datasets.ToFloat32(train.X, 1.0/255, true)
	if err != nil {
		log.Fatal(err)
	}
	y, err := utils.ToCategorical(train.Y, 10)
	if err != nil {
		log.Fatal(err)
	}
	if *limit > 0 {
		if x, err = sliceRows(x, *limit); err != nil {
			log.Fatal(err)
		}
		if y, err = sliceRows(y, *limit); err != nil {
			log.Fatal(err)
		}
	}
	for _, s := range strings.Split(*seeds, ",") {
		seed, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			log.Fatalf("-seeds: %v", err)
		}
		if err := run(x, y, seed, *epochs, *verbose); err != nil {
			log.Fatal(err)
		}
	}
}

var (
	noDropout, noShuffle bool
	initPath             string
)

func run(x, y any, seed uint64, epochs, verbose int) error {
	layers.SetRandomSeed(seed)
	ls := []layers.Layer{
		layers.NewConv2D(32, 3, layers.WithActivation("relu"), layers.WithInputShape(28, 28, 1)),
		layers.NewMaxPooling2D(layers.WithPoolSize(2)),
		layers.NewConv2D(64, 3, layers.WithActivation("relu")),
		layers.NewMaxPooling2D(layers.WithPoolSize(2)),
		layers.NewFlatten(),
	}
	if !noDropout {
		ls = append(ls, layers.NewDropout(0.5))
	}
	model, err := keras.NewSequential(append(ls, layers.NewDense(10, layers.WithActivation("softmax")))...)
	if err != nil {
		return err
	}
	if initPath != "" {
		if err := model.LoadWeights(initPath); err != nil {
			return err
		}
	}
	if err := model.Compile(keras.CompileConfig{Optimizer: "adam", Loss: "categorical_crossentropy", Metrics: []any{"accuracy"}}); err != nil {
		return err
	}
	bl := &batchLogs{}
	h, err := model.Fit(x, y, keras.FitConfig{Epochs: epochs, BatchSize: 128, ValidationSplit: 0.1, Verbose: verbose,
		NoShuffle: noShuffle, Seed: seed, Callbacks: []keras.Callback{bl}})
	if err != nil {
		return err
	}
	n := len(bl.loss) / epochs
	old := func(run []float64, epoch float64) float64 {
		s := epoch
		for _, v := range run[:n] {
			s += v
		}
		return s / float64(n+1)
	}
	fmt.Printf("seed %d: %d steps per epoch; history", seed, n)
	for _, k := range h.Names {
		fmt.Printf(" %s %.4f", k, h.History[k])
	}
	fmt.Printf("\nseed %d: running mean loss after batch 1, 10, 50, 100, 200, %d: %.4f %.4f %.4f %.4f %.4f %.4f\n", seed, n,
		bl.loss[0], bl.loss[min(9, n-1)], bl.loss[min(49, n-1)], bl.loss[min(99, n-1)], bl.loss[min(199, n-1)], bl.loss[n-1])
	fmt.Printf("seed %d: Keras 3.0-3.10's progress bar would show for epoch 1: loss %.4f accuracy %.4f\n", seed,
		old(bl.loss, h.History["loss"][0]), old(bl.acc, h.History["accuracy"][0]))
	return nil
}

// sliceRows returns a copy of the first n rows of a float32 tensor.
func sliceRows(t *tensor.Dense, n int) (*tensor.Dense, error) {
	s := t.Shape()
	if n > s[0] {
		return nil, fmt.Errorf("-limit %d: only %d rows", n, s[0])
	}
	data, ok := t.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("want float32 data, got %T", t.Data())
	}
	row := t.Size() / s[0]
	shape := append([]int{n}, s[1:]...)
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float32(nil), data[:n*row]...))), nil
}
