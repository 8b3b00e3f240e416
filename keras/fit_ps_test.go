package keras_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// psRig is a chief, workers and a parameter server of a fakeCluster,
// each with its own model made under its own task's strategy, as every
// process of a real cluster runs the same program.
type psRig struct {
	c       *fakeCluster
	tasks   []*fakeTask // chief, workers..., ps
	models  []*keras.Model
	results []error
	wg      sync.WaitGroup
}

func newPSRig(t *testing.T, workers int, lr float64, seed uint64, stepsPerExecution ...int) *psRig {
	t.Helper()
	r := &psRig{c: newFakeCluster(workers, optimizers.NewSGD(optimizers.LearningRate(lr)))}
	r.tasks = append(r.tasks, r.c.task("chief", 0))
	for w := range workers {
		r.tasks = append(r.tasks, r.c.task("worker", w))
	}
	r.tasks = append(r.tasks, r.c.task("ps", 0))
	for _, task := range r.tasks {
		layers.SetRandomSeed(seed)
		exit := engine.EnterScope(task)
		m, err := keras.NewSequential(
			layers.NewDense(8, layers.WithActivation("relu"), layers.WithInputShape(4)),
			layers.NewDense(1))
		if err == nil {
			cc := keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(lr)), Loss: "mse", Metrics: []any{"mae"}}
			if len(stepsPerExecution) > 0 {
				cc.StepsPerExecution = stepsPerExecution[0]
			}
			err = m.Compile(cc)
		}
		exit()
		if err != nil {
			t.Fatal(err)
		}
		task.model = m
		r.models = append(r.models, m)
	}
	return r
}

// linearData is y = x.w + 0.5 with 4 features.
func linearData(n int, seed uint64) (x, y *tensor.Dense) {
	g := rand.New(rand.NewPCG(seed, 1))
	xs, ys := make([]float32, n*4), make([]float32, n)
	w := []float32{0.5, -1, 0.25, 2}
	for i := range n {
		s := float32(0.5)
		for j := range 4 {
			xs[i*4+j] = float32(g.NormFloat64())
			s += w[j] * xs[i*4+j]
		}
		ys[i] = s
	}
	return tensor.New(tensor.WithShape(n, 4), tensor.WithBacking(xs)), tensor.New(tensor.WithShape(n, 1), tensor.WithBacking(ys))
}

// start runs Fit on every task but the chief, each in its goroutine.
func (r *psRig) start(x, y *tensor.Dense, cfg keras.FitConfig) {
	r.results = make([]error, len(r.models))
	for i := 1; i < len(r.models); i++ {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			_, r.results[i] = r.models[i].Fit(x, y, cfg)
		}()
	}
}

// finish ends the cluster and waits for the other tasks' Fits.
func (r *psRig) finish(t *testing.T) {
	t.Helper()
	r.c.finish()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the workers and the server did not return after the coordinator was done")
	}
}

// fitWithin is m.Fit, failing the test instead of hanging.
func fitWithin(t *testing.T, d time.Duration, m *keras.Model, x, y any, cfg keras.FitConfig) (*keras.History, error) {
	t.Helper()
	type result struct {
		h   *keras.History
		err error
	}
	ch := make(chan result, 1)
	go func() {
		h, err := m.Fit(x, y, cfg)
		ch <- result{h, err}
	}()
	select {
	case r := <-ch:
		return r.h, r.err
	case <-time.After(d):
		t.Fatalf("Fit still running after %v", d)
		return nil, nil
	}
}

// TestPSFitNeedsStepsPerEpoch: TensorFlow's error, on every task, before
// anything is registered or served.
func TestPSFitNeedsStepsPerEpoch(t *testing.T) {
	r := newPSRig(t, 1, 0.1, 1)
	x, y := linearData(32, 1)
	for i, m := range r.models {
		_, err := fitWithin(t, 10*time.Second, m, x, y, keras.FitConfig{Epochs: 1, Verbose: 0})
		if err == nil || !strings.Contains(err.Error(), "steps_per_epoch must be specified with ParameterServerStrategy") {
			t.Errorf("task %d: err = %v, want TensorFlow's steps_per_epoch error", i, err)
		}
	}
}

// TestPSFitTrains: two workers train a regression through the server;
// the chief logs every step's loss, its callbacks see the servers'
// weights, and Evaluate runs on the chief only.
func TestPSFitTrains(t *testing.T) {
	r := newPSRig(t, 2, 0.05, 2)
	x, y := linearData(256, 2)
	cfg := keras.FitConfig{Epochs: 4, StepsPerEpoch: 24, BatchSize: 16, Verbose: 0, Seed: 3}
	r.start(x, y, cfg)
	chief := r.models[0]
	var mismatch []string
	check := &callbacks.LambdaCallback{EpochEnd: func(epoch int, logs keras.Logs) error {
		sw := r.c.serverWeights()
		for i, v := range chief.Weights() {
			for j, a := range v.Numpy() {
				if a != sw[i][j] {
					mismatch = append(mismatch, v.Name())
					return nil
				}
			}
		}
		return nil
	}}
	halve := callbacks.NewLearningRateScheduler(func(epoch int, lr float64) float64 {
		if epoch == 0 {
			return lr
		}
		return lr / 2
	})
	cfg.Callbacks = []keras.Callback{check, halve}
	xv, yv := linearData(64, 12)
	cfg.ValidationData = []*tensor.Dense{xv, yv}
	hist, err := fitWithin(t, 60*time.Second, chief, x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(mismatch) > 0 {
		t.Errorf("callbacks saw the coordinator's weights differ from the servers' in %v", mismatch)
	}
	loss := hist.History["loss"]
	if len(loss) != 4 || len(hist.History["mae"]) != 4 || len(hist.History["val_loss"]) != 4 {
		t.Fatalf("history %v, want 4 epochs of loss, mae and val_loss", hist.History)
	}
	if !(loss[3] < loss[0]/4) {
		t.Errorf("loss per epoch %v: did not learn", loss)
	}
	logs, err := chief.Evaluate(x, y, keras.EvaluateConfig{Verbose: 0})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(logs["loss"]-loss[3]) > loss[3]+0.05 {
		t.Errorf("Evaluate's loss %v, the last epoch's %v", logs["loss"], loss[3])
	}
	if _, err := r.models[1].Evaluate(x, y, keras.EvaluateConfig{Verbose: 0}); err == nil || !strings.Contains(err.Error(), "coordinator") {
		t.Errorf("Evaluate on a worker: err = %v, want one sending it to the coordinator", err)
	}
	r.finish(t)
	for i, err := range r.results[1:] {
		if err != nil {
			t.Errorf("task %d: %v", i+1, err)
		}
	}
	// The chief's callback halved the rate three times; the workers'
	// optimizers took it with their steps (and their pushes would bring
	// it to the servers).
	for _, w := range r.models[1:3] {
		if got := w.Optimizer().CurrentLearningRate(); math.Abs(got-0.05/8) > 1e-12 {
			t.Errorf("a worker's learning rate is %v, the chief's %v", got, chief.Optimizer().CurrentLearningRate())
		}
	}
	calls := 0
	for w := range 2 {
		calls += r.c.calls[w]
	}
	if calls != 4*24 {
		t.Errorf("the workers ran %d steps, want %d (4 epochs of 24)", calls, 4*24)
	}
	for i, task := range r.tasks[:3] {
		if len(task.order) != 1 || task.order[0] != r.tasks[0].order[0] {
			t.Errorf("task %d registered %v, the chief %v: every task registers the same steps", i, task.order, r.tasks[0].order)
		}
	}
}

// TestPSFitLogsEveryStep: with one worker, a learning rate of 0 and one
// pass of unshuffled data per epoch, the epoch's logs are the loss and
// metric over every example, as Evaluate gives them.
func TestPSFitLogsEveryStep(t *testing.T) {
	r := newPSRig(t, 1, 0, 4)
	x, y := linearData(96, 4)
	cfg := keras.FitConfig{Epochs: 1, StepsPerEpoch: 6, BatchSize: 16, NoShuffle: true, Verbose: 0}
	r.start(x, y, cfg)
	hist, err := r.models[0].Fit(x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := r.models[0].Evaluate(x, y, keras.EvaluateConfig{BatchSize: 16, Verbose: 0})
	r.finish(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"loss", "mae"} {
		if got, want := hist.History[name][0], logs[name]; math.Abs(got-want) > 1e-5*math.Max(1, want) {
			t.Errorf("%s: Fit logged %v, Evaluate gives %v", name, got, want)
		}
	}
}

// TestPSFitStepsPerExecution: each scheduled call runs StepsPerExecution
// steps on one worker (the last call the rest of the epoch), the batch
// callbacks see each call's first and last step, and the logs are still
// those of every step.
func TestPSFitStepsPerExecution(t *testing.T) {
	r := newPSRig(t, 1, 0, 4, 4)
	x, y := linearData(160, 4)
	cfg := keras.FitConfig{Epochs: 1, StepsPerEpoch: 10, BatchSize: 16, NoShuffle: true, Verbose: 0}
	r.start(x, y, cfg)
	var begins, ends []int
	cfg.Callbacks = []keras.Callback{&callbacks.LambdaCallback{
		TrainBatchBegin: func(b int, _ keras.Logs) error { begins = append(begins, b); return nil },
		TrainBatchEnd:   func(b int, _ keras.Logs) error { ends = append(ends, b); return nil },
	}}
	hist, err := fitWithin(t, 30*time.Second, r.models[0], x, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	logs, err := r.models[0].Evaluate(x, y, keras.EvaluateConfig{BatchSize: 16, Verbose: 0})
	r.finish(t)
	if err != nil {
		t.Fatal(err)
	}
	if r.c.calls[0] != 3 || fmt.Sprint(begins, ends) != "[0 4 8] [3 7 9]" {
		t.Errorf("%d calls, batch callbacks at %v and %v; want 3 calls, [0 4 8] and [3 7 9]", r.c.calls[0], begins, ends)
	}
	if got, want := hist.History["loss"][0], logs["loss"]; math.Abs(got-want) > 1e-5*math.Max(1, want) {
		t.Errorf("Fit logged loss %v over 10 steps in 3 calls, Evaluate gives %v", got, want)
	}
}

// TestPSFitWorkerDies: a worker that dies mid-epoch leaves its call to
// the other worker; training completes every step.
func TestPSFitWorkerDies(t *testing.T) {
	r := newPSRig(t, 2, 0.05, 5)
	r.c.dieAfter[1] = 4
	x, y := linearData(128, 5)
	cfg := keras.FitConfig{Epochs: 2, StepsPerEpoch: 16, BatchSize: 16, Verbose: 0}
	r.start(x, y, cfg)
	_, err := fitWithin(t, 60*time.Second, r.models[0], x, y, cfg)
	r.finish(t)
	if err != nil {
		t.Fatal(err)
	}
	if r.results[2] == nil || !strings.Contains(r.results[2].Error(), "worker 1") {
		t.Errorf("the dead worker's Fit returned %v", r.results[2])
	}
	if got := r.c.calls[0] + r.c.calls[1]; got != 32 || r.c.calls[1] != 3 {
		t.Errorf("steps per worker %v, want 32 in all, 3 on the dead one", r.c.calls)
	}
}

// TestPSFitResumePushesBackup: a run interrupted after its first epoch
// is relaunched on fresh servers (a dead PS stops the job): the chief
// restores BackupAndRestore's backup and pushes it to the servers before
// any step, and resumes at the second epoch.
func TestPSFitResumePushesBackup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "backup")
	x, y := linearData(128, 6)
	var atEpoch1 [][]float32
	{
		r := newPSRig(t, 1, 0.05, 6)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cfg := keras.FitConfig{Epochs: 3, StepsPerEpoch: 8, BatchSize: 16, Verbose: 0}
		r.start(x, y, cfg)
		cfg.Context = ctx
		stop := &callbacks.LambdaCallback{EpochEnd: func(epoch int, _ keras.Logs) error {
			if epoch == 0 {
				for _, v := range r.models[0].Weights() {
					atEpoch1 = append(atEpoch1, v.Numpy())
				}
				cancel()
			}
			return nil
		}}
		cfg.Callbacks = []keras.Callback{callbacks.NewBackupAndRestore(dir), stop}
		if _, err := r.models[0].Fit(x, y, cfg); err == nil || !strings.Contains(err.Error(), "epoch 2") {
			t.Fatalf("interrupted run: err = %v, want it stopped in epoch 2", err)
		}
		r.finish(t)
	}
	r := newPSRig(t, 1, 0.05, 7) // other initial weights
	cfg := keras.FitConfig{Epochs: 3, StepsPerEpoch: 8, BatchSize: 16, Verbose: 0}
	r.start(x, y, cfg)
	cfg.Callbacks = []keras.Callback{callbacks.NewBackupAndRestore(dir)}
	hist, err := r.models[0].Fit(x, y, cfg)
	r.finish(t)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist.Epoch) != 2 || hist.Epoch[0] != 1 {
		t.Errorf("resumed run trained epochs %v, want [1 2]", hist.Epoch)
	}
	if len(r.c.pushes) == 0 {
		t.Fatal("the relaunched chief pushed nothing to the servers")
	}
	// The last push of every weight (the workers push none) is the
	// restored one, made before any step.
	for i, w := range r.c.pushes[len(r.c.pushes)-1] {
		for j := range w {
			if w[j] != atEpoch1[i][j] {
				t.Fatalf("weight %d: the servers got %v, the backup holds %v", i, w[j], atEpoch1[i][j])
			}
		}
	}
}
