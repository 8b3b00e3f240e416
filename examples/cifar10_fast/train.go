package main

import (
	"fmt"
	"io"
	"time"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/utils"
	"gorgonia.org/tensor"
)

// config is one run: the recipe and what the flags set around it.
type config struct {
	Recipe    Recipe
	Epochs    int
	BatchSize int // global
	Limit     int
	TestLimit int
	Seed      int64
	DataDir   string
	Replicas  int
	TTA       bool
	Target    float64
	Verbose   int
	Out       io.Writer
}

// epochResult is one epoch's line.
type epochResult struct {
	Loss, TestAccuracy float64
	TrainSeconds       float64 // training time so far, evaluation excluded
}

// result is what run prints, for the tests.
type result struct {
	Epochs        []epochResult
	FinalAccuracy float64 // after Fit, with the EMA weights when -ema
	TrainAccuracy float64 // on the training images, no augmentation, no TTA
	ReachedAt     int     // first epoch (1-based) at Target, 0 if none
	Model         *keras.Model
}

// CIFAR-10's per-channel training-set mean and standard deviation of the
// 0..255 pixels (datasets README: means 125.307, 122.950, 113.865), the
// normalisation of the published recipes.
var (
	cifarMean = [3]float32{125.307, 122.950, 113.865}
	cifarStd  = [3]float32{62.993, 62.089, 66.705}
)

// prepare turns uint8 images into normalised float32 (N, 32, 32, 3) and
// labels into one-hot float32 (N, 10), keeping the first limit examples.
func prepare(p datasets.Pair, limit int) (x, y *tensor.Dense, err error) {
	// Slice the uint8 images before converting them: 50,000 float32
	// images are 600 MB.
	px, py := p.X, p.Y
	if n := px.Shape()[0]; limit > 0 && limit < n {
		if px, err = sliceRows(px, limit); err != nil {
			return nil, nil, err
		}
		if py, err = sliceRows(py, limit); err != nil {
			return nil, nil, err
		}
	}
	if x, err = datasets.ToFloat32(px, 1, false); err != nil {
		return nil, nil, err
	}
	ids, err := datasets.LabelsToFloat32(py)
	if err != nil {
		return nil, nil, err
	}
	d := x.Data().([]float32)
	for i := range d {
		c := i % 3
		d[i] = (d[i] - cifarMean[c]) / cifarStd[c]
	}
	y, err = utils.ToCategorical(ids, 10)
	return x, y, err
}

// sliceRows copies the first n rows of t, whatever its dtype.
func sliceRows(t *tensor.Dense, n int) (*tensor.Dense, error) {
	v, err := t.Slice(tensor.S(0, n))
	if err != nil {
		return nil, err
	}
	return v.(*tensor.Dense).Materialize().(*tensor.Dense), nil
}

// mirror returns x (N, H, W, C) flipped left to right: the second view of
// flip test-time augmentation.
func mirror(x *tensor.Dense) *tensor.Dense {
	s := x.Shape()
	n, h, w, c := s[0], s[1], s[2], s[3]
	src := x.Data().([]float32)
	dst := make([]float32, len(src))
	for i := 0; i < n*h; i++ {
		row := i * w * c
		for j := 0; j < w; j++ {
			copy(dst[row+(w-1-j)*c:row+(w-j)*c], src[row+j*c:row+(j+1)*c])
		}
	}
	return tensor.New(tensor.WithShape(s...), tensor.WithBacking(dst))
}

// evaluator computes test accuracy, with flip TTA when mirrored is set:
// the logits of an image and of its mirror image are averaged, as
// airbench94's level-1 TTA.
type evaluator struct {
	x, mirrored *tensor.Dense
	labels      []int
	batch       int
}

func newEvaluator(x, y *tensor.Dense, tta bool, batch int) *evaluator {
	e := &evaluator{x: x, batch: batch}
	if tta {
		e.mirrored = mirror(x)
	}
	oh := y.Data().([]float32)
	for i := 0; i < y.Shape()[0]; i++ {
		best := 0
		for k := 1; k < 10; k++ {
			if oh[i*10+k] > oh[i*10+best] {
				best = k
			}
		}
		e.labels = append(e.labels, best)
	}
	return e
}

func (e *evaluator) accuracy(m *keras.Model) (float64, error) {
	logits, err := m.Predict(e.x, keras.PredictConfig{BatchSize: e.batch, Verbose: keras.VerboseSilent})
	if err != nil {
		return 0, err
	}
	l := logits.Data().([]float32)
	if e.mirrored != nil {
		lm, err := m.Predict(e.mirrored, keras.PredictConfig{BatchSize: e.batch, Verbose: keras.VerboseSilent})
		if err != nil {
			return 0, err
		}
		l = append([]float32(nil), l...)
		for i, v := range lm.Data().([]float32) {
			l[i] += v
		}
	}
	correct := 0
	for i, want := range e.labels {
		best := 0
		for k := 1; k < 10; k++ {
			if l[i*10+k] > l[i*10+best] {
				best = k
			}
		}
		if best == want {
			correct++
		}
	}
	return float64(correct) / float64(len(e.labels)), nil
}

// epochReporter times the training of each epoch (evaluation excluded),
// then evaluates and prints the epoch's line.
type epochReporter struct {
	keras.CallbackBase
	cfg   config
	eval  *evaluator
	start time.Time
	train time.Duration
	res   *result
	err   error
}

func (r *epochReporter) OnEpochBegin(int, keras.Logs) error {
	r.start = time.Now()
	return nil
}

func (r *epochReporter) OnEpochEnd(epoch int, logs keras.Logs) error {
	r.train += time.Since(r.start)
	acc, err := r.eval.accuracy(r.Model)
	if err != nil {
		return err
	}
	loss, _ := logs.Get("loss")
	e := epochResult{Loss: loss, TestAccuracy: acc, TrainSeconds: r.train.Seconds()}
	r.res.Epochs = append(r.res.Epochs, e)
	if r.res.ReachedAt == 0 && acc >= r.cfg.Target {
		r.res.ReachedAt = epoch + 1
	}
	fmt.Fprintf(r.cfg.Out, "epoch %d/%d: loss %.4f, test_accuracy %.4f, train time %.1f s\n", epoch+1, r.cfg.Epochs, loss, acc, e.TrainSeconds)
	return nil
}

// run loads CIFAR-10, trains the recipe and reports.
func run(c config) (*result, error) {
	if c.Out == nil {
		c.Out = io.Discard
	}
	layers.SetRandomSeed(uint64(c.Seed))
	var opts []datasets.LoadOption
	if c.DataDir != "" {
		opts = append(opts, datasets.Dir(c.DataDir))
	}
	train, test, err := datasets.LoadCIFAR10(opts...)
	if err != nil {
		return nil, err
	}
	xTrain, yTrain, err := prepare(train, c.Limit)
	if err != nil {
		return nil, err
	}
	xTest, yTest, err := prepare(test, c.TestLimit)
	if err != nil {
		return nil, err
	}
	if err := distribute.SetLogicalCPUs(c.Replicas); err != nil {
		return nil, err
	}
	strategy, err := distribute.NewMirroredStrategy()
	if err != nil {
		return nil, err
	}
	n := xTrain.Shape()[0]
	steps := int64((n + c.BatchSize - 1) / c.BatchSize)
	fmt.Fprintf(c.Out, "replicas: %d, training images: %d, test images: %d, global batch %d, %d steps an epoch\n",
		strategy.NumReplicasInSync(), n, xTest.Shape()[0], c.BatchSize, steps)

	ds, err := datasets.FromTensorSlices(xTrain, yTrain)
	if err != nil {
		return nil, err
	}
	trainDS := ds.Shuffle(n, c.Seed).Batch(c.BatchSize, false).Prefetch(2)

	exit := strategy.Scope()
	m, err := c.Recipe.Compile(steps * int64(c.Epochs))
	exit()
	if err != nil {
		return nil, err
	}
	res := &result{Model: m}
	rep := &epochReporter{cfg: c, eval: newEvaluator(xTest, yTest, c.TTA, c.BatchSize), res: res}
	if _, err := m.Fit(trainDS, nil, keras.FitConfig{Epochs: c.Epochs, Verbose: c.Verbose, Callbacks: []keras.Callback{rep}}); err != nil {
		return nil, err
	}
	// Fit has put the moving averages into the weights when -ema (Keras'
	// finalize_variable_values), so this is the EMA model's accuracy.
	if res.FinalAccuracy, err = rep.eval.accuracy(m); err != nil {
		return nil, err
	}
	if res.TrainAccuracy, err = newEvaluator(xTrain, yTrain, false, c.BatchSize).accuracy(m); err != nil {
		return nil, err
	}
	if c.Verbose != keras.VerboseSilent {
		cli.PrintPeakRSS(c.Out)
	}
	fmt.Fprintf(c.Out, "test_accuracy: %.4f (final weights%s), train_accuracy: %.4f\n", res.FinalAccuracy, map[bool]string{true: ", EMA", false: ""}[c.Recipe.EMA > 0], res.TrainAccuracy)
	if res.ReachedAt > 0 {
		e := res.Epochs[res.ReachedAt-1]
		fmt.Fprintf(c.Out, "time to %.4f: %.1f s (epoch %d, test_accuracy %.4f)\n", c.Target, e.TrainSeconds, res.ReachedAt, e.TestAccuracy)
	} else {
		fmt.Fprintf(c.Out, "time to %.4f: not reached in %d epochs (%.1f s of training)\n", c.Target, c.Epochs, rep.train.Seconds())
	}
	return res, nil
}
