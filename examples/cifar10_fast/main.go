// Command cifar10_fast trains CIFAR-10 with the ingredients of the fast
// published recipes (airbench94, the DAWNBench ResNet-9), written with
// Keras' own pieces: a small VGG-like net with batch normalization,
// random translation with reflected borders and horizontal flips as layers
// in front of the model (active in training only), label smoothing, SGD
// with Nesterov momentum under a warm-up-then-cosine schedule, decoupled
// weight decay, an optional moving average of the weights (use_ema) and
// flip test-time augmentation. After every epoch it prints the test
// accuracy and the training time so far; at the end, the training time at
// which the test accuracy first reached -target, or that it did not.
//
//	go run ./examples/cifar10_fast -epochs 16
//	go run ./examples/cifar10_fast -limit 2000 -epochs 2 -widths 16,32,64,64
//
// CIFAR-10 comes from -data DIR, else the Keras cache or a folder listed in
// $GOKERAS_DATASETS (see datasets.LoadCIFAR10). The defaults are the
// published recipes' values carried over to Keras' conventions (mean loss,
// decoupled weight decay), not tuned here: issue 34's 94% over five seeds
// has not been run (docs/performance.md says why).
//
// tools/cifar10_reference/torch_fast.py is the same recipe in PyTorch.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"

	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/keras"
)

func main() {
	var c config
	flag.IntVar(&c.Epochs, "epochs", 16, "training epochs")
	flag.IntVar(&c.BatchSize, "batch-size", 512, "global batch size (split over the replicas)")
	flag.IntVar(&c.Limit, "limit", 0, "train on the first N training images only (0: all 50,000)")
	flag.IntVar(&c.TestLimit, "test-limit", 0, "evaluate on the first N test images only (0: all 10,000)")
	flag.Int64Var(&c.Seed, "seed", 0, "random seed for weights, shuffling and augmentation")
	flag.StringVar(&c.DataDir, "data", "", "directory holding cifar-10-batches-bin or cifar-10-batches-py")
	flag.IntVar(&c.Replicas, "replicas", 1, "replicas of MirroredStrategy (logical CPUs when there is no GPU)")
	widths := flag.String("widths", "32,64,256,256", "filters of the stem and of the three blocks")
	flag.Float64Var(&c.Recipe.LearningRate, "lr", 0.4, "peak learning rate, reached at the end of the warm-up")
	flag.Float64Var(&c.Recipe.WarmupFraction, "warmup", 0.2, "fraction of the steps spent warming up linearly from 0")
	flag.Float64Var(&c.Recipe.Momentum, "momentum", 0.9, "Nesterov momentum")
	flag.Float64Var(&c.Recipe.WeightDecay, "weight-decay", 5e-3, "Keras' decoupled weight decay (w -= w*wd*lr each step)")
	flag.Float64Var(&c.Recipe.LabelSmoothing, "label-smoothing", 0.2, "label smoothing of the cross-entropy")
	flag.Float64Var(&c.Recipe.EMA, "ema", 0, "ema_momentum of the weights' moving average (0: no use_ema); the final test uses the averages")
	flag.BoolVar(&c.TTA, "tta", true, "test-time augmentation: average the logits of each test image and its mirror image")
	flag.BoolVar(&c.Recipe.NoAugment, "no-augment", false, "train without random translation and flips")
	flag.Float64Var(&c.Target, "target", 0.94, "test accuracy whose first epoch is reported")
	flag.IntVar(&c.Verbose, "verbose", keras.VerboseSilent, "Fit verbosity, as Keras' verbose (0: only the per-epoch lines of this program)")
	policy := cli.PolicyFlag() // -policy mixed_bfloat16 | mixed_float16
	flag.Parse()
	cli.MustCheck(cli.Positive("epochs", "batch-size", "replicas"), cli.NonNegative("limit", "test-limit"), cli.OneOf("verbose", 0, 1, 2))
	w, err := parseWidths(*widths)
	if err != nil {
		fmt.Fprintf(os.Stderr, "-widths %q: %v\n", *widths, err)
		os.Exit(2)
	}
	c.Recipe.Widths = w
	if err := c.Recipe.check(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cli.MustSetPolicy(*policy)
	c.Out = os.Stdout
	if _, err := run(c); err != nil {
		log.Fatal(err)
	}
}

// parseWidths reads "32,64,256,256": the stem's filters and each block's.
func parseWidths(s string) ([]int, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return nil, fmt.Errorf("want 4 comma-separated filter counts (stem and three blocks), got %d", len(parts))
	}
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", p)
		}
		out[i] = n
	}
	return out, nil
}
