package distribute_test

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

// fitModel is the seed snippet's model (Dense 32 on 5 features, Dense 16
// relu, Dense 1) with fixed layer names, as every process of a cluster
// running the same program names them, compiled with Adam and mse in s's
// scope.
func fitModel(t testing.TB, s *distribute.ParameterServerStrategy, seed uint64) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(seed)
	exit := s.Scope()
	defer exit()
	m, err := keras.NewSequential(
		layers.NewDense(32, layers.WithInputShape(5), layers.WithName("d32")),
		layers.NewDense(16, layers.WithActivation("relu"), layers.WithName("d16")),
		layers.NewDense(1, layers.WithName("d1")))
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)), Loss: "mse", Metrics: []any{"mae"}})
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fitData is y = sum(x)/2 on 5 uniform features.
func fitData(n int) (x, y *tensor.Dense) {
	r := rand.New(rand.NewPCG(9, 9))
	xs, ys := make([]float32, n*5), make([]float32, n)
	for i := range n {
		for j := range 5 {
			xs[i*5+j] = r.Float32()
			ys[i] += xs[i*5+j] / 2
		}
	}
	return tensor.New(tensor.WithShape(n, 5), tensor.WithBacking(xs)), tensor.New(tensor.WithShape(n, 1), tensor.WithBacking(ys))
}

// fitCluster runs Fit on every task of c (each with its own model, as
// each process would) and returns the chief's result once the others have
// returned after the chief's Close.
func fitCluster(t *testing.T, c *inProcess, cfg keras.FitConfig, chiefCbs []keras.Callback, seed uint64) (*keras.Model, *keras.History, error) {
	t.Helper()
	x, y := fitData(256)
	all := append(append([]*distribute.ParameterServerStrategy{c.chief}, c.workers...), c.servers...)
	models := make([]*keras.Model, len(all))
	for i, s := range all {
		models[i] = fitModel(t, s, seed)
	}
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	wcfg := cfg
	wcfg.Context = nil // the chief's
	for i := 1; i < len(all); i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _, errs[i] = models[i].Fit(x, y, wcfg) }()
	}
	ccfg := cfg
	ccfg.Callbacks = chiefCbs
	var hist *keras.History
	var err error
	within(t, 60*time.Second, "the chief's Fit", func() { hist, err = models[0].Fit(x, y, ccfg) })
	c.chief.Close()
	within(t, 30*time.Second, "the other tasks' Fit after the chief's Close", wg.Wait)
	for i, e := range errs[1:] {
		if e != nil {
			t.Errorf("task %d: Fit: %v", i+1, e)
		}
	}
	return models[0], hist, err
}

// TestPSFitLoopbackTrains: Fit on a real cluster (chief, two workers, one server
// on loopback): every step runs, the loss falls, the chief ends with the
// servers' weights and their optimizer's step count, Evaluate runs on the
// chief.
func TestPSFitLoopbackTrains(t *testing.T) {
	c := startInProcess(t, 2, 1)
	cfg := keras.FitConfig{Epochs: 3, StepsPerEpoch: 12, BatchSize: 16, Verbose: 0}
	m, hist, err := fitCluster(t, c, cfg, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	loss := hist.History["loss"]
	if len(loss) != 3 || !(loss[2] < loss[0]) {
		t.Errorf("loss per epoch %v: want 3 epochs, falling", loss)
	}
	if got := m.Optimizer().Iterations(); got != 36 {
		t.Errorf("the chief's optimizer counts %d steps after pulling the servers' state, want 36", got)
	}
}

// TestPSFitLoopbackNeedsSteps: TensorFlow's error on every task, nothing served.
func TestPSFitLoopbackNeedsSteps(t *testing.T) {
	c := startInProcess(t, 1, 1)
	x, y := fitData(32)
	for _, s := range append(c.tasks(), c.servers...) {
		m := fitModel(t, s, 2)
		var err error
		within(t, 10*time.Second, "Fit without StepsPerEpoch", func() { _, err = m.Fit(x, y, keras.FitConfig{Verbose: 0}) })
		if err == nil || !strings.Contains(err.Error(), "steps_per_epoch must be specified with ParameterServerStrategy") {
			t.Errorf("%v: err = %v", s, err)
		}
	}
}

// TestPSFitLoopbackResumesOptimizer: a job interrupted after its first epoch and
// relaunched on new servers (a dead server stops the job) resumes from
// BackupAndRestore's backup with the servers' optimizer restored: its step
// count goes on from the backup's.
func TestPSFitLoopbackResumesOptimizer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "backup")
	cfg := keras.FitConfig{Epochs: 3, StepsPerEpoch: 8, BatchSize: 16, Verbose: 0}
	{
		c := startInProcess(t, 1, 1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stop := &callbacks.LambdaCallback{EpochEnd: func(epoch int, _ keras.Logs) error {
			cancel()
			return nil
		}}
		cfg := cfg
		cfg.Context = ctx
		_, _, err := fitCluster(t, c, cfg, []keras.Callback{callbacks.NewBackupAndRestore(dir), stop}, 3)
		if err == nil || !strings.Contains(err.Error(), "epoch 2") {
			t.Fatalf("interrupted run: err = %v, want it stopped in epoch 2", err)
		}
	}
	c := startInProcess(t, 1, 1)
	m, hist, err := fitCluster(t, c, cfg, []keras.Callback{callbacks.NewBackupAndRestore(dir)}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist.Epoch) != 2 || hist.Epoch[0] != 1 {
		t.Errorf("the relaunched job trained epochs %v, want [1 2]", hist.Epoch)
	}
	if got := m.Optimizer().Iterations(); got != 24 {
		t.Errorf("the servers' optimizer counts %d steps at the end, want 24 (8 restored, then 16)", got)
	}
}

// TestPSFitLoopbackLearningRate: a learning rate that a callback
// sets on the chief reaches the servers' optimizer, through the workers'
// steps and pushes.
func TestPSFitLoopbackLearningRate(t *testing.T) {
	c := startInProcess(t, 2, 1)
	var onServers any
	cbs := []keras.Callback{
		callbacks.NewLearningRateScheduler(func(epoch int, lr float64) float64 { return 0.001 * float64(epoch+1) }),
		&callbacks.LambdaCallback{TrainEnd: func(keras.Logs) error {
			st, err := c.chief.OptimizerState()
			if err != nil {
				return err
			}
			if cfg, ok := st.Optimizer["config"].(map[string]any); ok {
				onServers = cfg["learning_rate"]
			}
			return nil
		}},
	}
	_, _, err := fitCluster(t, c, keras.FitConfig{Epochs: 3, StepsPerEpoch: 4, BatchSize: 16, Verbose: 0}, cbs, 5)
	if err != nil {
		t.Fatal(err)
	}
	if lr, ok := onServers.(float64); !ok || math.Abs(lr-0.003) > 1e-9 {
		t.Errorf("the servers' learning rate is %v, the chief's callback set 0.003", onServers)
	}
}
