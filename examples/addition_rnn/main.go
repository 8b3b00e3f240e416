// Command addition_rnn is keras.io's "Sequence to sequence learning for
// performing number addition", ported line by line: an LSTM encoder reads
// a question such as "535+61 " (reversed, as the tutorial's REVERSE=True),
// RepeatVector hands its last output to every step of an LSTM decoder, and
// a softmax Dense on each decoder step writes the answer "596 ".
//
//	go run ./examples/addition_rnn                 # 50,000 questions, 30 epochs
//	go run ./examples/addition_rnn -epochs 5 -verbose 2
//
// Each epoch ends with Keras' line, `val_accuracy:` included (the
// per-character accuracy on the 10% held out), then, as the tutorial, ten
// validation questions with the model's answers. The data is generated
// by the program: nothing to download.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// The tutorial's parameters.
const (
	digits  = 3                   // DIGITS: operands of at most 3 digits
	maxLen  = digits + 1 + digits // MAXLEN: "123+456"
	chars   = "0123456789+ "
	hidden  = 128 // the LSTMs' units
	outLen  = digits + 1
	numChar = len(chars)
)

func main() {
	size := flag.Int("size", 50000, "questions to generate (TRAINING_SIZE)")
	epochs := flag.Int("epochs", 30, "training epochs")
	batchSize := flag.Int("batch-size", 32, "batch size")
	seed := flag.Int64("seed", 0, "random seed for the questions, weights and shuffling")
	verbose := flag.Int("verbose", keras.VerboseBar, "Fit verbosity, as Keras' verbose: 0 silent, 1 progress bar, 2 one line per epoch (1 and 2 also print the peak RSS)")
	steps := flag.Int("steps", 0, "batches per epoch (0: the whole training set)")
	samples := flag.Int("show", 10, "validation questions to print after each epoch")
	flag.Parse()
	cli.MustCheck(cli.Positive("size", "epochs", "batch-size"), cli.NonNegative("steps", "show"), cli.OneOf("verbose", 0, 1, 2))
	if err := run(*size, *epochs, *batchSize, *seed, *verbose, *steps, *samples); err != nil {
		log.Fatal(err)
	}
}

// questions generates n distinct questions "a+b" (a and b of 1 to digits
// digits, the pair unordered), padded with spaces to maxLen and reversed,
// with their answers padded to outLen, as the tutorial.
func questions(n int, rng *rand.Rand) (qs, as []string) {
	f := func() int {
		k := 1 + rng.IntN(digits)
		v := 0
		for range k {
			v = v*10 + rng.IntN(10)
		}
		return v
	}
	seen := map[[2]int]bool{}
	limit := 0 // the number of distinct pairs bounds n
	for a := 0; a < 1000 && limit < n; a++ {
		limit += 1000 - a
	}
	n = min(n, limit)
	for len(qs) < n {
		a, b := f(), f()
		key := [2]int{min(a, b), max(a, b)}
		if seen[key] {
			continue
		}
		seen[key] = true
		q := fmt.Sprintf("%d+%d", a, b)
		q += strings.Repeat(" ", maxLen-len(q))
		ans := strconv.Itoa(a + b)
		ans += strings.Repeat(" ", outLen-len(ans))
		qs = append(qs, reverse(q))
		as = append(as, ans)
	}
	return qs, as
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// encode one-hot encodes strings of length n: (len(ss), n, numChar).
func encode(ss []string, n int) *tensor.Dense {
	data := make([]float32, len(ss)*n*numChar)
	for i, s := range ss {
		for j := 0; j < n; j++ {
			data[(i*n+j)*numChar+strings.IndexByte(chars, s[j])] = 1
		}
	}
	return tensor.New(tensor.WithShape(len(ss), n, numChar), tensor.WithBacking(data))
}

// decode turns rows of probabilities (n, numChar) into their argmax characters.
func decode(p []float32) string {
	var b strings.Builder
	for i := 0; i+numChar <= len(p); i += numChar {
		best := 0
		for c := 1; c < numChar; c++ {
			if p[i+c] > p[i+best] {
				best = c
			}
		}
		b.WriteByte(chars[best])
	}
	return b.String()
}

// buildModel is the tutorial's model.
func buildModel() (*keras.Model, error) {
	return keras.NewSequential(
		layers.NewLSTM(hidden, layers.WithInputShape(maxLen, numChar)),
		layers.NewRepeatVector(outLen),
		layers.NewLSTM(hidden, layers.WithReturnSequences(true)),
		layers.NewDense(numChar, layers.WithActivation("softmax")),
	)
}

func run(size, epochs, batchSize int, seed int64, verbose, steps, show int) error {
	layers.SetRandomSeed(uint64(seed))
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	fmt.Println("Generating data...")
	qs, as := questions(size, rng)
	fmt.Println("Total questions:", len(qs))
	// Shuffle, then hold out 10% for validation (the tutorial's split_at).
	rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j], as[i], as[j] = qs[j], qs[i], as[j], as[i] })
	split := len(qs) - len(qs)/10
	if split <= 0 || split >= len(qs) {
		return fmt.Errorf("addition_rnn: %d questions leave no training or validation data", len(qs))
	}
	xTrain, yTrain := encode(qs[:split], maxLen), encode(as[:split], outLen)
	xVal, yVal := encode(qs[split:], maxLen), encode(as[split:], outLen)
	fmt.Println("Training Data:", xTrain.Shape(), yTrain.Shape())
	fmt.Println("Validation Data:", xVal.Shape(), yVal.Shape())

	model, err := buildModel()
	if err != nil {
		return err
	}
	if err := model.Compile(keras.CompileConfig{
		Optimizer: optimizers.NewAdam(),
		Loss:      losses.NewCategoricalCrossentropy(),
		Metrics:   []any{"accuracy"},
	}); err != nil {
		return err
	}
	if verbose != keras.VerboseSilent {
		if err := model.Summary(); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var last float64
	for epoch := 1; epoch <= epochs; epoch++ {
		fmt.Println()
		fmt.Println("Iteration", epoch)
		hist, err := model.Fit(xTrain, yTrain, keras.FitConfig{
			BatchSize: batchSize, Epochs: 1, ValidationData: []*tensor.Dense{xVal, yVal},
			Verbose: verbose, StepsPerEpoch: steps, Seed: uint64(seed)*1000 + uint64(epoch), Context: ctx,
		})
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if v := hist.History["val_accuracy"]; len(v) > 0 {
			last = v[len(v)-1]
		}
		if verbose == keras.VerboseSilent {
			fmt.Printf("epoch %d val_accuracy: %.4f\n", epoch, last)
		}
		if err := showSamples(model, qs[split:], as[split:], show, rng); err != nil {
			return err
		}
	}
	if verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(os.Stdout)
	}
	fmt.Printf("final val_accuracy: %.4f\n", last)
	return nil
}

// showSamples prints n random validation questions with the model's
// answers, marked as the tutorial marks them.
func showSamples(model *keras.Model, qs, as []string, n int, rng *rand.Rand) error {
	if n == 0 {
		return nil
	}
	pick := make([]string, n)
	ans := make([]string, n)
	for i := range pick {
		j := rng.IntN(len(qs))
		pick[i], ans[i] = qs[j], as[j]
	}
	p, err := model.Predict(encode(pick, maxLen), keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		return err
	}
	probs := p.Data().([]float32)
	for i := range pick {
		guess := decode(probs[i*outLen*numChar : (i+1)*outLen*numChar])
		mark := "☒"
		if guess == ans[i] {
			mark = "☑"
		}
		fmt.Println("Q", reverse(pick[i]), "T", ans[i], mark, guess)
	}
	return nil
}
