package distribute_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/callbacks"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// runProgram runs prog on every task of c, as each process of a cluster
// runs the same program (the chief is task 0), with the task's model
// that build made (one task after the other: strategy scopes are
// process-wide), and waits for all; the chief's program ends with Close.
// It returns each task's error.
func runProgram(t *testing.T, c *inProcess, d time.Duration, build func(s *distribute.ParameterServerStrategy) *keras.Model, prog func(s *distribute.ParameterServerStrategy, m *keras.Model) error) []error {
	t.Helper()
	all := append(append([]*distribute.ParameterServerStrategy{c.chief}, c.workers...), c.servers...)
	models := make([]*keras.Model, len(all))
	for i, s := range all {
		models[i] = build(s)
	}
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = prog(s, models[i])
			if s.IsCoordinator() {
				s.Close()
			}
		}()
	}
	within(t, d, "every task's program", wg.Wait)
	return errs
}

// TestPSFitTwiceThenLoop: the same program on every task calls Fit twice
// (a fine-tuning), then runs a custom loop: each worker's Fit returns when
// the chief's ends, the second Fit trains on, the loop's function finds
// the workers registered; after Close, Evaluate and Predict on the chief
// use its last pulled weights, and Fit is an error saying so.
func TestPSFitTwiceThenLoop(t *testing.T) {
	c := startInProcess(t, 2, 1)
	x, y := fitData(256)
	cfg := keras.FitConfig{Epochs: 2, StepsPerEpoch: 6, BatchSize: 16, Verbose: 0}
	var (
		hists       [2]*keras.History
		iters       int64
		loopSum     float64
		before      keras.Logs
		after       keras.Logs
		pBefore     []float32
		pAfter      []float32
		chiefWeight float32
	)
	build := func(s *distribute.ParameterServerStrategy) *keras.Model { return fitModel(t, s, 7) }
	errs := runProgram(t, c, 90*time.Second, build, func(s *distribute.ParameterServerStrategy, m *keras.Model) error {
		for k := range 2 {
			h, err := m.Fit(x, y, cfg)
			if err != nil {
				return err
			}
			if s.IsCoordinator() {
				hists[k] = h
			}
		}
		coord, err := distribute.NewClusterCoordinator(s)
		if err != nil {
			return err
		}
		// A custom loop after Fit: each call pulls the servers' weights
		// and returns the first one.
		probe := coord.Function("probe", func(...any) (any, error) {
			if err := s.PullVariables(m.Weights()...); err != nil {
				return nil, err
			}
			return float64(m.Weights()[0].Data(0)[0]), nil
		})
		if !s.IsCoordinator() {
			return s.Join()
		}
		iters = m.Optimizer().Iterations()
		chiefWeight = m.Weights()[0].Data(0)[0]
		for range 4 {
			rv, err := coord.Schedule(probe)
			if err != nil {
				return err
			}
			v, err := rv.Fetch()
			if err != nil {
				return err
			}
			loopSum += v.(float64)
		}
		if before, err = m.Evaluate(x, y, keras.EvaluateConfig{BatchSize: 64, Verbose: 0}); err != nil {
			return err
		}
		p, err := m.Predict(x, keras.PredictConfig{BatchSize: 64, Verbose: 0})
		if err != nil {
			return err
		}
		pBefore = slices.Clone(p.Data().([]float32))
		if err := s.Close(); err != nil {
			return err
		}
		if after, err = m.Evaluate(x, y, keras.EvaluateConfig{BatchSize: 64, Verbose: 0}); err != nil {
			return err
		}
		if p, err = m.Predict(x, keras.PredictConfig{BatchSize: 64, Verbose: 0}); err != nil {
			return err
		}
		pAfter = slices.Clone(p.Data().([]float32))
		if _, err := m.Fit(x, y, cfg); err == nil || !strings.Contains(err.Error(), "call Fit before Close") {
			return fmt.Errorf("Fit after Close: err = %v", err)
		}
		return nil
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("task %d: %v", i, err)
		}
	}
	if t.Failed() {
		return
	}
	for k, h := range hists {
		if len(h.History["loss"]) != 2 {
			t.Errorf("Fit %d logged %v, want 2 epochs", k+1, h.History["loss"])
		}
	}
	if l1, l2 := hists[0].History["loss"], hists[1].History["loss"]; !(l2[1] < l1[0]) {
		t.Errorf("the second Fit did not train on: losses %v then %v", l1, l2)
	}
	if iters != 24 {
		t.Errorf("the servers' optimizer counts %d steps after two Fits of 12, want 24", iters)
	}
	if want := 4 * float64(chiefWeight); loopSum != want {
		t.Errorf("the loop's calls saw %v in all, want 4 x the chief's %v", loopSum, chiefWeight)
	}
	if before["loss"] != after["loss"] || !slices.Equal(pBefore, pAfter) {
		t.Errorf("after Close: loss %v, before %v; predictions equal: %v", after["loss"], before["loss"], slices.Equal(pBefore, pAfter))
	}
}

// TestPSFitCheckpointEveryNBatches: a ModelCheckpoint saving every 4
// batches saves the servers' weights of that moment, not those of the
// last epoch's end (the initial ones, in the first epoch).
func TestPSFitCheckpointEveryNBatches(t *testing.T) {
	c := startInProcess(t, 1, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt-{epoch}-{batch}.weights.h5")
	var initial [][]float32
	var iterAtSave []int64
	var chief *keras.Model
	cbs := []keras.Callback{
		&callbacks.LambdaCallback{TrainBegin: func(keras.Logs) error {
			for _, w := range chief.Weights() {
				initial = append(initial, w.Numpy())
			}
			return nil
		}},
		callbacks.NewModelCheckpoint(path, callbacks.SaveWeightsOnly(true), callbacks.SaveFreq(4)),
		&callbacks.LambdaCallback{TrainBatchEnd: func(batch int, _ keras.Logs) error {
			if (batch+1)%4 == 0 {
				iterAtSave = append(iterAtSave, chief.Optimizer().Iterations())
			}
			return nil
		}},
	}
	x, y := fitData(256)
	cfg := keras.FitConfig{Epochs: 1, StepsPerEpoch: 8, BatchSize: 16, Verbose: 0}
	build := func(s *distribute.ParameterServerStrategy) *keras.Model { return fitModel(t, s, 8) }
	errs := runProgram(t, c, 60*time.Second, build, func(s *distribute.ParameterServerStrategy, m *keras.Model) error {
		ccfg := cfg
		if s.IsCoordinator() {
			chief = m
			ccfg.Callbacks = cbs
		}
		_, err := m.Fit(x, y, ccfg)
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
	}
	layers.SetRandomSeed(8)
	saved, err := keras.NewSequential(
		layers.NewDense(32, layers.WithInputShape(5), layers.WithName("d32")),
		layers.NewDense(16, layers.WithActivation("relu"), layers.WithName("d16")),
		layers.NewDense(1, layers.WithName("d1")))
	if err != nil {
		t.Fatal(err)
	}
	if err := saved.LoadWeights(filepath.Join(dir, "ckpt-1-4.weights.h5")); err != nil {
		t.Fatal(err)
	}
	same := true
	for i, w := range saved.Weights() {
		same = same && slices.Equal(w.Data(0), initial[i])
	}
	if same {
		t.Error("the checkpoint of batch 4 holds the initial weights, not the servers' of that moment")
	}
	if len(iterAtSave) != 2 || iterAtSave[0] < 1 || iterAtSave[1] < iterAtSave[0] {
		t.Errorf("the chief's optimizer counted %v steps at the saves, want the servers' (at least 1, growing)", iterAtSave)
	}
}

// TestPSFitUseEMA: with use_ema, the end of Fit swaps in the moving
// averages that the servers' optimizer kept, as Keras' fit does: the
// chief's weights and the servers' are the averages of the last epoch's
// end, not the weights then.
func TestPSFitUseEMA(t *testing.T) {
	c := startInProcess(t, 1, 1)
	var atEnd, averages [][]float32
	var chief *keras.Model
	cbs := []keras.Callback{&callbacks.LambdaCallback{EpochEnd: func(epoch int, _ keras.Logs) error {
		if epoch != 1 {
			return nil
		}
		st, err := c.chief.OptimizerState()
		if err != nil {
			return err
		}
		atEnd, averages = nil, nil
		for _, w := range chief.TrainableVariables() {
			atEnd = append(atEnd, w.Numpy())
			avg, ok := st.Slots[w.Name()]["average"]
			if !ok {
				return fmt.Errorf("no moving average of %s on the servers (slots %v)", w.Name(), st.Slots[w.Name()])
			}
			averages = append(averages, avg)
		}
		return nil
	}}}
	x, y := fitData(256)
	cfg := keras.FitConfig{Epochs: 2, StepsPerEpoch: 6, BatchSize: 16, Verbose: 0}
	var onServers [][]float32
	build := func(s *distribute.ParameterServerStrategy) *keras.Model {
		layers.SetRandomSeed(4)
		exit := s.Scope()
		defer exit()
		m, err := keras.NewSequential(layers.NewDense(4, layers.WithInputShape(5), layers.WithName("a")), layers.NewDense(1, layers.WithName("b")))
		if err == nil {
			err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.05), optimizers.UseEMA(true), optimizers.EMAMomentum(0.9)), Loss: "mse"})
		}
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	errs := runProgram(t, c, 60*time.Second, build, func(s *distribute.ParameterServerStrategy, m *keras.Model) error {
		ccfg := cfg
		if s.IsCoordinator() {
			chief = m
			ccfg.Callbacks = cbs
		}
		if _, err := m.Fit(x, y, ccfg); err != nil {
			return err
		}
		if s.IsCoordinator() {
			for _, w := range m.TrainableVariables() {
				onServers = append(onServers, w.Numpy())
			}
			if err := s.PullVariables(m.TrainableVariables()...); err != nil {
				return err
			}
			for i, w := range m.TrainableVariables() {
				if !slices.Equal(w.Data(0), onServers[i]) {
					return fmt.Errorf("%s: the servers hold other values than the chief after Fit", w.Name())
				}
			}
		}
		return nil
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
	}
	if len(averages) == 0 {
		t.Fatal("no averages seen")
	}
	differs := false
	for i, w := range chief.TrainableVariables() {
		for j, v := range w.Data(0) {
			if math.Abs(float64(v-averages[i][j])) > 1e-7 {
				t.Fatalf("%s[%d] = %v after Fit, the servers' average was %v", w.Name(), j, v, averages[i][j])
			}
			differs = differs || v != atEnd[i][j]
		}
	}
	if !differs {
		t.Error("the weights after Fit are those of the last epoch's end: the averages were not swapped in")
	}
}

// TestPSFitWorkerRestartsBetweenFits: a worker that (re)starts after the
// chief's first Fit ended runs the program from its start: its first Fit
// learns from the chief's heartbeat that the chief is past it and
// returns, and it serves the second Fit.
func TestPSFitWorkerRestartsBetweenFits(t *testing.T) {
	c := startInProcess(t, 2, 1)
	c.workers[1].Close() // worker 1 is down during the first Fit
	x, y := fitData(256)
	cfg := keras.FitConfig{Epochs: 1, StepsPerEpoch: 6, BatchSize: 16, Verbose: 0}
	tasks := []*distribute.ParameterServerStrategy{c.chief, c.workers[0], c.servers[0]}
	models := make([]*keras.Model, len(tasks))
	for i, s := range tasks {
		models[i] = fitModel(t, s, 9)
	}
	fit1Over := make(chan struct{})
	w1Fit1 := make(chan time.Duration, 1)
	errs := make([]error, len(tasks)+1)
	var wg sync.WaitGroup
	for i, s := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := models[i]
			if _, errs[i] = m.Fit(x, y, cfg); errs[i] != nil {
				return
			}
			if s.IsCoordinator() {
				close(fit1Over)
				select {
				case d := <-w1Fit1:
					if d > 5*time.Second {
						errs[i] = fmt.Errorf("worker 1's first Fit returned after %v", d)
					}
				case <-time.After(20 * time.Second):
					errs[i] = fmt.Errorf("worker 1's first Fit did not return")
				}
			}
			_, errs[i] = m.Fit(x, y, cfg)
			if s.IsCoordinator() {
				s.Close()
			}
		}()
	}
	<-fit1Over
	w1 := c.start(t, "worker", 1)
	if w1 == nil {
		t.FailNow()
	}
	c.workers[1] = w1
	m1 := fitModel(t, w1, 9)
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		if _, errs[3] = m1.Fit(x, y, cfg); errs[3] != nil {
			w1Fit1 <- 0
			return
		}
		w1Fit1 <- time.Since(start)
		_, errs[3] = m1.Fit(x, y, cfg)
	}()
	within(t, 60*time.Second, "every task's two Fits", wg.Wait)
	for i, err := range errs {
		if err != nil {
			t.Errorf("task %d: %v", i, err)
		}
	}
}

// TestPSFitCancelledThenFitAgain: a Fit whose Context is cancelled
// mid-epoch stops at once; the steps it had queued are skipped by the
// workers, and the program's next Fit trains without an error left over
// from them.
func TestPSFitCancelledThenFitAgain(t *testing.T) {
	c := startInProcess(t, 1, 1)
	x, y := fitData(256)
	cfg := keras.FitConfig{Epochs: 1, StepsPerEpoch: 40, BatchSize: 16, Verbose: 0}
	var first, second error
	var hist *keras.History
	build := func(s *distribute.ParameterServerStrategy) *keras.Model { return fitModel(t, s, 10) }
	errs := runProgram(t, c, 60*time.Second, build, func(s *distribute.ParameterServerStrategy, m *keras.Model) error {
		ccfg := cfg
		if s.IsCoordinator() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ccfg.Context = ctx
			ccfg.Callbacks = []keras.Callback{&callbacks.LambdaCallback{TrainBatchEnd: func(batch int, _ keras.Logs) error {
				if batch == 2 {
					cancel()
				}
				return nil
			}}}
		}
		_, err := m.Fit(x, y, ccfg)
		if s.IsCoordinator() {
			first = err
		} else if err != nil {
			return err
		}
		h, err := m.Fit(x, y, cfg)
		if s.IsCoordinator() {
			second, hist = err, h
		}
		return err
	})
	if first == nil || !strings.Contains(first.Error(), "stopped") {
		t.Errorf("the cancelled Fit returned %v", first)
	}
	if second != nil {
		t.Errorf("the next Fit: %v", second)
	}
	for i, err := range errs[1:] {
		if err != nil {
			t.Errorf("task %d: %v", i+1, err)
		}
	}
	if hist == nil || len(hist.History["loss"]) != 1 {
		t.Errorf("the next Fit logged %v", hist)
	}
}
