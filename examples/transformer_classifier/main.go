// Command transformer_classifier is keras.io's "Text classification with
// Transformer", ported line by line: a TokenAndPositionEmbedding layer and
// a TransformerBlock layer written as a Go user writes custom layers
// (embedding layers.Base, holding Keras layers), then
// GlobalAveragePooling1D, Dropout and Dense, trained with Adam on sparse
// categorical crossentropy for 2 epochs of batches of 32.
//
//	go run ./examples/transformer_classifier                 # IMDB if present, else the generated task
//	go run ./examples/transformer_classifier -data imdb      # IMDB, downloaded if missing
//	go run ./examples/transformer_classifier -data synthetic -train 4000 -verbose 2
//
// With -data auto (the default) it reads Keras' imdb.npz where it is
// (~/.keras/datasets, $KERAS_HOME/datasets, $GOKERAS_DATASETS) and, if it
// is nowhere, generates a task that a bag of words cannot solve: every
// sequence (10 to 20 tokens, padded to 20) holds the tokens A and B once
// among random tokens, and the label says whether A comes before B, so
// only the tokens' positions tell the classes apart. Each epoch ends with
// Keras' line; the program closes with the final validation accuracy.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/signal"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/keras/utils"
)

// The tutorial's parameters.
const (
	imdbMaxLen      = 200 // maxlen: IMDB reviews are cut or padded to 200 tokens
	syntheticMaxLen = 20  // the generated task's sequences (see orderTask)
	embedDim        = 32  // embedding size for each token
	numHeads        = 2   // attention heads
	ffDim           = 32  // hidden layer size of the feed-forward network in the transformer
	rate            = 0.1
)

// settings are the command line's.
type settings struct {
	data                        string
	vocab, maxLen               int
	epochs, batchSize, steps    int
	trainSize, valSize, verbose int
	seed                        int64
}

func main() {
	var s settings
	flag.StringVar(&s.data, "data", "auto", `"imdb" (Keras' imdb.npz, downloaded if missing), "synthetic" (the generated task), or "auto" (IMDB if found locally, else synthetic)`)
	flag.IntVar(&s.vocab, "vocab", 20000, "vocabulary size (vocab_size: IMDB's num_words)")
	flag.IntVar(&s.maxLen, "maxlen", 0, "tokens per sequence (maxlen); 0: the tutorial's 200 for IMDB, 20 for the generated task")
	flag.IntVar(&s.epochs, "epochs", 2, "training epochs")
	flag.IntVar(&s.batchSize, "batch-size", 32, "batch size")
	flag.IntVar(&s.steps, "steps", 0, "batches per epoch (0: the whole training set)")
	flag.IntVar(&s.trainSize, "train", 25000, "generated training sequences (-data synthetic)")
	flag.IntVar(&s.valSize, "val", 5000, "generated validation sequences (-data synthetic)")
	flag.IntVar(&s.verbose, "verbose", keras.VerboseBar, "Fit verbosity, as Keras' verbose: 0 silent, 1 progress bar, 2 one line per epoch (1 and 2 also print the peak RSS)")
	flag.Int64Var(&s.seed, "seed", 0, "random seed for the generated data, the weights and the shuffling")
	flag.Parse()
	cli.MustCheck(cli.Positive("vocab", "epochs", "batch-size", "train", "val"), cli.NonNegative("maxlen"), cli.NonNegative("steps"), cli.OneOf("verbose", 0, 1, 2))
	if s.data != "auto" && s.data != "imdb" && s.data != "synthetic" {
		fmt.Fprintf(os.Stderr, "transformer_classifier: -data %q: want auto, imdb or synthetic\n", s.data)
		os.Exit(2)
	}
	if _, err := run(s); err != nil {
		log.Fatal(err)
	}
}

// run trains the tutorial's model and returns the last validation accuracy.
func run(s settings) (float64, error) {
	layers.SetRandomSeed(uint64(s.seed))
	xTrain, yTrain, xVal, yVal, maxLen, err := loadData(s)
	if err != nil {
		return 0, err
	}
	model, err := buildModel(maxLen, s.vocab)
	if err != nil {
		return 0, err
	}
	if s.verbose != keras.VerboseSilent {
		if err := model.Summary(); err != nil {
			return 0, err
		}
	}
	if err := model.Compile(keras.CompileConfig{
		Optimizer: optimizers.NewAdam(),
		Loss:      "sparse_categorical_crossentropy",
		Metrics:   []any{"accuracy"},
	}); err != nil {
		return 0, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	hist, err := model.Fit(xTrain, yTrain, keras.FitConfig{
		BatchSize: s.batchSize, Epochs: s.epochs, ValidationData: []*tensor.Dense{xVal, yVal},
		Verbose: s.verbose, StepsPerEpoch: s.steps, Seed: uint64(s.seed), Context: ctx,
	})
	if err != nil {
		return 0, err
	}
	acc := hist.History["val_accuracy"]
	if len(acc) == 0 {
		return 0, errors.New("transformer_classifier: no val_accuracy in the history")
	}
	last := acc[len(acc)-1]
	if s.verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout)
	}
	fmt.Printf("final val_accuracy: %.4f\n", last)
	return last, nil
}

// loadData returns padded token ids (float32, as gokeras' Embedding takes
// them) and labels, from IMDB or from the generated task, and the
// sequences' length.
func loadData(s settings) (xTrain, yTrain, xVal, yVal *tensor.Dense, maxLen int, err error) {
	var train, val datasets.TextPair
	useIMDB := s.data == "imdb"
	if s.data != "synthetic" {
		opts := []datasets.LoadOption{datasets.NumWords(s.vocab)}
		if s.data == "auto" {
			opts = append(opts, datasets.NoDownload())
		}
		train, val, err = datasets.LoadIMDB(opts...)
		switch {
		case err == nil:
			useIMDB = true
		case s.data == "auto" && errors.Is(err, datasets.ErrNotFound):
			fmt.Println("imdb.npz not found (~/.keras/datasets, $KERAS_HOME, $GOKERAS_DATASETS): training on the generated task")
		default:
			return nil, nil, nil, nil, 0, err
		}
	}
	if s.maxLen == 0 {
		s.maxLen = imdbMaxLen
		if !useIMDB {
			s.maxLen = syntheticMaxLen
		}
	}
	if !useIMDB {
		rng := rand.New(rand.NewPCG(uint64(s.seed), 17))
		train = orderTask(s.trainSize, s.maxLen, s.vocab, rng)
		val = orderTask(s.valSize, s.maxLen, s.vocab, rng)
	}
	fmt.Println(len(train.X), "Training sequences")
	fmt.Println(len(val.X), "Validation sequences")
	pad := utils.PadConfig{MaxLen: s.maxLen}
	if xTrain, err = utils.PadSequences(train.X, pad); err != nil {
		return nil, nil, nil, nil, 0, err
	}
	if xVal, err = utils.PadSequences(val.X, pad); err != nil {
		return nil, nil, nil, nil, 0, err
	}
	return xTrain, labels(train.Y), xVal, labels(val.Y), s.maxLen, nil
}

func labels(y []int) *tensor.Dense {
	f := make([]float32, len(y))
	for i, v := range y {
		f[i] = float32(v)
	}
	return tensor.New(tensor.WithShape(len(y)), tensor.WithBacking(f))
}

// The generated task's two tokens (ids above the reserved 0, 1 and 2).
const (
	tokenA = 3
	tokenB = 4
)

// orderTask generates n sequences of 10 to maxLen random tokens below
// vocab (from 5 up), each holding A once and B once at random places;
// label 1 if A comes before B. Both classes hold the same tokens: only
// their order tells them apart, which the model learns through the
// position embedding.
func orderTask(n, maxLen, vocab int, rng *rand.Rand) datasets.TextPair {
	p := datasets.TextPair{X: make([][]int, n), Y: make([]int, n)}
	minLen := min(10, maxLen)
	for k := range p.X {
		l := max(minLen+rng.IntN(maxLen-minLen+1), 2)
		x := make([]int, l)
		for j := range x {
			x[j] = 5 + rng.IntN(max(vocab-5, 1))
		}
		i := rng.IntN(l)
		j := rng.IntN(l - 1)
		if j >= i {
			j++
		}
		x[i], x[j] = tokenA, tokenB
		p.X[k] = x
		if i < j {
			p.Y[k] = 1
		}
	}
	return p
}

// buildModel is the tutorial's model.
func buildModel(maxLen, vocab int) (*keras.Model, error) {
	inputs := layers.Input([]int{maxLen})
	x := layers.Apply(NewTokenAndPositionEmbedding(maxLen, vocab, embedDim), inputs)
	x = layers.Apply(NewTransformerBlock(embedDim, numHeads, ffDim, rate), x)
	x = layers.Apply(layers.NewGlobalAveragePooling1D(), x)
	x = layers.Apply(layers.NewDropout(0.1), x)
	x = layers.Apply(layers.NewDense(20, layers.WithActivation("relu")), x)
	x = layers.Apply(layers.NewDropout(0.1), x)
	outputs := layers.Apply(layers.NewDense(2, layers.WithActivation("softmax")), x)
	return keras.NewModel([]*layers.KerasTensor{inputs}, []*layers.KerasTensor{outputs})
}
