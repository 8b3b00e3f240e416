package distribute_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// psModel is the seed snippet's model (Dense 8 on 5 inputs, Dense 1),
// built with a fixed seed so that every task starts from the same weights.
func psModel(t testing.TB) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(11)
	m, err := keras.NewSequential(layers.NewDense(8, layers.WithInputShape(5), layers.WithActivation("relu"), layers.WithName("hidden")), layers.NewDense(1, layers.WithName("out")))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.05)), Loss: losses.NewMeanSquaredError()}); err != nil {
		t.Fatal(err)
	}
	if err := m.Build(1, 5); err != nil {
		t.Fatal(err)
	}
	return m
}

// psBatch is global batch i of a regression problem: 8 rows of 5 inputs.
func psBatch(i int) (x, y ops.Value) {
	x = ops.Value{Shape: ops.Shape{8, 5}, Data: make([]float32, 40)}
	y = ops.Value{Shape: ops.Shape{8, 1}, Data: make([]float32, 8)}
	for r := range 8 {
		var s float32
		for c := range 5 {
			v := float32(math.Sin(float64(i*40 + r*5 + c)))
			x.Data[r*5+c] = v
			s += float32(c+1) * v
		}
		y.Data[r] = s / 5
	}
	return x, y
}

// trainStep is the custom step every task registers: forward, loss,
// gradients, ApplyGradients (a push under the strategy).
// trainLocally runs trainStep on m for the first n psBatch batches, the
// reference a cluster's run is compared with.
func trainLocally(t *testing.T, m *keras.Model, n int) {
	t.Helper()
	f := trainStep(m)
	for i := range n {
		x, y := psBatch(i)
		if _, err := f.CallValues(x, y); err != nil {
			t.Fatal(err)
		}
	}
}

func trainStep(m *keras.Model) *keras.Function {
	return keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		tape := keras.NewGradientTape()
		pred := m.Forward(in[0], true)
		loss := m.CompiledLoss(in[1], pred)
		grads, err := tape.Gradient(loss, m.TrainableVariables())
		if err != nil {
			return nil, err
		}
		return []ops.Tensor{loss}, m.Optimizer().ApplyGradients(grads, m.TrainableVariables())
	})
}

// psTask is one task's model and registered step.
type psTask struct {
	s     *distribute.ParameterServerStrategy
	m     *keras.Model
	coord *distribute.ClusterCoordinator
	step  *distribute.RemoteFunction
}

// setUpTasks builds the model on every task, tracks it and registers the
// step "train" taking the global batch index.
func setUpTasks(t testing.TB, c *inProcess) []*psTask {
	t.Helper()
	var out []*psTask
	for _, s := range c.tasks() {
		m := psModel(t)
		if err := s.Track(m.Weights()...); err != nil {
			t.Fatal(err)
		}
		if s.IsCoordinator() {
			if err := s.SetOptimizer(m.Optimizer()); err != nil {
				t.Fatal(err)
			}
		}
		coord, err := distribute.NewClusterCoordinator(s)
		if err != nil {
			t.Fatal(err)
		}
		f := trainStep(m)
		task := &psTask{s: s, m: m, coord: coord}
		task.step = coord.Function("train", func(args ...any) (any, error) {
			x, y := psBatch(int(args[0].(float64)))
			outs, err := s.Run(f, x, y)
			if err != nil {
				return nil, err
			}
			return float64(outs[0].Float32()), nil
		})
		out = append(out, task)
	}
	return out
}

// TestPSEquivalence: one worker and one server, SGD, the same global
// batches in order: the servers' weights equal a local run of the same
// steps exactly, and the losses the steps return are the local ones.
func TestPSEquivalence(t *testing.T) {
	c := startInProcess(t, 1, 1)
	tasks := setUpTasks(t, c)
	chief := tasks[0]
	const steps = 6
	var rvs []*distribute.RemoteValue
	for i := range steps {
		rv, err := chief.coord.Schedule(chief.step, i)
		if err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, rv)
	}
	within(t, 20*time.Second, "Join", func() {
		if err := chief.coord.Join(); err != nil {
			t.Error(err)
		}
	})
	local := psModel(t)
	f := trainStep(local)
	for i := range steps {
		x, y := psBatch(i)
		outs, err := f.CallValues(x, y)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rvs[i].Fetch()
		if err != nil {
			t.Fatal(err)
		}
		if want := float64(outs[0].Float32()); got != want {
			t.Errorf("step %d: loss %v on the worker, %v locally", i, got, want)
		}
	}
	if err := chief.s.PullVariables(chief.m.Weights()...); err != nil {
		t.Fatal(err)
	}
	for i, v := range chief.m.Weights() {
		want := local.Weights()[i].Data(0)
		for j, x := range v.Data(0) {
			if x != want[j] {
				t.Fatalf("%s[%d] = %v on the servers, %v locally", v.Name(), j, x, want[j])
			}
		}
	}
	st, err := chief.s.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if st.Iterations != int64(steps) {
		t.Errorf("servers' optimizer counted %d steps, want %d", st.Iterations, steps)
	}
	if tasks[1].m.Optimizer().Iterations() != 0 {
		t.Errorf("the worker's own optimizer counted %d steps; the servers' does", tasks[1].m.Optimizer().Iterations())
	}
}

// TestPSTwoWorkersAsync: two workers share 30 steps without waiting for
// each other; both work, the servers apply every push, the loss falls.
func TestPSTwoWorkersAsync(t *testing.T) {
	c := startInProcess(t, 2, 2)
	tasks := setUpTasks(t, c)
	chief := tasks[0]
	// Rounds of 30 steps until both workers have run some: a fast
	// machine can finish one round on one worker before the other
	// starts (seen once the convolutions got faster).
	var rvs []*distribute.RemoteValue
	ran := map[int]int{}
	for round := 0; round < 20 && len(ran) < 2; round++ {
		for i := range 30 {
			rv, err := chief.coord.Schedule(chief.step, i%4)
			if err != nil {
				t.Fatal(err)
			}
			rvs = append(rvs, rv)
		}
		within(t, 20*time.Second, "Join", func() {
			if err := chief.coord.Join(); err != nil {
				t.Error(err)
			}
		})
		for _, rv := range rvs[len(rvs)-30:] {
			ran[rv.Worker()]++
		}
	}
	steps := len(rvs)
	var first, last float64
	for i, rv := range rvs {
		v, err := rv.Fetch()
		if err != nil {
			t.Fatal(err)
		}
		if i < 4 {
			first += v.(float64)
		}
		if i >= steps-4 {
			last += v.(float64)
		}
	}
	if len(ran) != 2 {
		t.Errorf("steps ran on workers %v, want both", ran)
	}
	if !(last < first) {
		t.Errorf("loss of the last 4 steps %v, of the first 4 %v: no progress", last, first)
	}
	st, err := chief.s.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if st.Iterations != int64(steps) {
		t.Errorf("servers counted %d updates, want %d", st.Iterations, steps)
	}
	if len(st.Slots) != 0 {
		t.Errorf("plain SGD has no slots, got %v", st.Slots)
	}
	t.Logf("steps per worker: %v", ran)
}

// TestPSPartitionedSaveLoad: with 3 shards per variable on 2 servers, the
// kernel lives in pieces (placed round-robin), trains exactly as one
// variable, and the chief's checkpoint holds it whole: a model without any
// strategy loads it.
func TestPSPartitionedSaveLoad(t *testing.T) {
	c := startInProcess(t, 1, 2, distribute.VariablePartitioner(distribute.FixedShardsPartitioner(3)))
	tasks := setUpTasks(t, c)
	chief := tasks[0]
	k := chief.m.Weights()[0] // hidden/kernel, 5 x 8
	sh := chief.s.Shards(k)
	if len(sh) != 3 || sh[0].Shape[0] != 2 || sh[1].Shape[0] != 2 || sh[2].Shape[0] != 1 || sh[0].PS != 0 || sh[1].PS != 1 || sh[2].PS != 0 {
		t.Fatalf("kernel shards %+v, want rows 2, 2, 1 on ps 0, 1, 0", sh)
	}
	if !strings.HasSuffix(sh[1].Name, "/part_1") {
		t.Errorf("shard name %q", sh[1].Name)
	}
	for i := range 4 {
		if _, err := chief.coord.Schedule(chief.step, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := chief.coord.Join(); err != nil {
		t.Fatal(err)
	}
	local := psModel(t)
	trainLocally(t, local, 4)
	if err := chief.s.PullVariables(); err != nil {
		t.Fatal(err)
	}
	for i, v := range chief.m.Weights() {
		if d := relDiff(v.Data(0), local.Weights()[i].Data(0)); d != 0 {
			t.Errorf("%s differs from the local run by %g", v.Name(), d)
		}
	}
	path := filepath.Join(t.TempDir(), "ps.weights.h5")
	if err := chief.m.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	fresh := psModel(t)
	if err := fresh.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	for i, v := range fresh.Weights() {
		if d := relDiff(v.Data(0), local.Weights()[i].Data(0)); d != 0 {
			t.Errorf("restored %s differs by %g", v.Name(), d)
		}
		if v.Shape().Size() != local.Weights()[i].Shape().Size() {
			t.Errorf("restored %s has shape %v", v.Name(), v.Shape())
		}
	}
	// Restore into the servers: push the loaded weights, pull elsewhere.
	if err := chief.s.PushVariables(fresh.Weights()...); err == nil {
		t.Error("pushing untracked variables succeeded")
	}
	for i, v := range chief.m.Weights() {
		_ = v.Assign(make([]float32, v.Shape().Size()))
		_ = i
	}
	if err := chief.s.PushVariables(chief.m.Weights()...); err != nil {
		t.Fatal(err)
	}
	w := tasks[1].m.Weights()[0]
	if err := tasks[1].s.PullVariables(w); err != nil {
		t.Fatal(err)
	}
	for _, x := range w.Data(0) {
		if x != 0 {
			t.Fatalf("a worker pulled %v after the chief assigned zeros", x)
		}
	}
	_ = os.Remove(path)
}

// TestPSOptimizerState: Adam's slots and step count live on the servers
// (split with the variable); the chief fetches them whole and restores
// them on a fresh cluster, whose next step equals the first cluster's.
func TestPSOptimizerState(t *testing.T) {
	c := startInProcess(t, 1, 2, distribute.VariablePartitioner(distribute.FixedShardsPartitioner(2)))
	s := c.chief
	v := ops.NewVariable("dense/kernel", ops.Shape{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8}, true)
	wv := ops.NewVariable("dense/kernel", ops.Shape{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8}, true)
	if err := s.Track(v); err != nil {
		t.Fatal(err)
	}
	if err := c.workers[0].Track(wv); err != nil {
		t.Fatal(err)
	}
	opt := optimizers.NewAdam(optimizers.LearningRate(0.1))
	g := [][]float32{{1, -1, 2, -2, 3, -3, 4, -4}}
	for range 3 {
		if err := c.workers[0].RunReplicas(func(rc ops.ReplicaContext) error { return opt.Apply(rc, g, []*ops.Variable{wv}) }); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if st.Iterations != 3 || len(st.Slots["dense/kernel"]) != 2 || len(st.Slots["dense/kernel"]["momentum"]) != 8 {
		t.Fatalf("state: %d iterations, slots %v", st.Iterations, st.Slots)
	}
	// The same three steps locally give the same slots.
	lv := ops.NewVariable("dense/kernel", ops.Shape{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8}, true)
	lopt := optimizers.NewAdam(optimizers.LearningRate(0.1))
	for range 3 {
		if err := lopt.Apply(nil, g, []*ops.Variable{lv}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ov := range lopt.Variables()[1:] {
		slot := strings.Split(ov.Name(), "/")[1]
		if d := relDiff(st.Slots["dense/kernel"][slot], ov.Data(0)); d != 0 {
			t.Errorf("slot %s differs from the local one by %g", slot, d)
		}
	}
	// A second cluster restored from the state steps as the first.
	c2 := startInProcess(t, 1, 2, distribute.VariablePartitioner(distribute.FixedShardsPartitioner(2)))
	v2 := ops.NewVariable("dense/kernel", ops.Shape{4, 2}, wv.Numpy(), true)
	w2 := ops.NewVariable("dense/kernel", ops.Shape{4, 2}, wv.Numpy(), true)
	if err := c2.chief.Track(v2); err != nil {
		t.Fatal(err)
	}
	if err := c2.workers[0].Track(w2); err != nil {
		t.Fatal(err)
	}
	if err := c2.chief.SetOptimizerState(st); err != nil {
		t.Fatal(err)
	}
	step := func(s *distribute.ParameterServerStrategy, v *ops.Variable) {
		t.Helper()
		o := optimizers.NewAdam(optimizers.LearningRate(0.1))
		if err := s.RunReplicas(func(rc ops.ReplicaContext) error { return o.Apply(rc, g, []*ops.Variable{v}) }); err != nil {
			t.Fatal(err)
		}
	}
	step(c.workers[0], wv)
	step(c2.workers[0], w2)
	if d := relDiff(wv.Data(0), w2.Data(0)); d != 0 {
		t.Errorf("the restored cluster's step differs by %g", d)
	}
}

// TestPSBadInput: clear errors, quickly, for clusters that cannot work.
func TestPSBadInput(t *testing.T) {
	a := freeAddrs(t, 4)
	for _, tc := range []struct {
		cfg, want string
	}{
		{`{"cluster": {"chief": ["` + a[0] + `"], "worker": ["` + a[1] + `"]}, "task": {"type": "chief", "index": 0}}`, `no "ps" task`},
		{`{"cluster": {"chief": ["` + a[0] + `"], "ps": ["` + a[1] + `"]}, "task": {"type": "chief", "index": 0}}`, `no "worker" task`},
		{`{"cluster": {"worker": ["` + a[0] + `"], "ps": ["` + a[1] + `"]}, "task": {"type": "worker", "index": 0}}`, `exactly one "chief"`},
		{`{"cluster": {"chief": ["` + a[0] + `"], "worker": ["` + a[1] + `"], "ps": ["` + a[2] + `"], "evaluator": ["` + a[3] + `"]}, "task": {"type": "evaluator", "index": 0}}`, `task type "evaluator"`},
	} {
		r, err := distribute.NewTFConfigClusterResolver(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = distribute.NewParameterServerStrategy(r)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	// Nobody listens at the server's address.
	spec := distribute.ClusterSpec{"chief": a[:1], "worker": a[1:2], "ps": a[2:3]}
	start := time.Now()
	_, err := distribute.NewParameterServerStrategy(resolverFor(t, spec, "chief", 0), distribute.ConnectTimeout(300*time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "ps:0 at "+a[2]) || !strings.Contains(err.Error(), "cannot be reached") {
		t.Errorf("unreachable server: err = %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the unreachable server took %v to report", took)
	}
	// A multi-worker strategy refuses a ps task.
	t.Setenv("TF_CONFIG", psTFConfig(spec, "ps", 0))
	if _, err := distribute.NewMultiWorkerMirroredStrategy(); err == nil || !strings.Contains(err.Error(), "NewParameterServerStrategy") {
		t.Errorf("MultiWorkerMirroredStrategy on a ps task: %v", err)
	}
}

// TestPSMismatchedFunctions: the chief and a worker registered different
// functions under one id: the call fails naming both, and Join reports it.
func TestPSMismatchedFunctions(t *testing.T) {
	c := startInProcess(t, 1, 1, distribute.RPCTimeout(2*time.Second))
	cc, _ := distribute.NewClusterCoordinator(c.chief)
	wc, _ := distribute.NewClusterCoordinator(c.workers[0])
	f := cc.Function("train", func(...any) (any, error) { return nil, nil })
	wc.Function("evaluate", func(...any) (any, error) { return 1.0, nil })
	rv, err := cc.Schedule(f)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rv.Fetch()
	if err == nil || !strings.Contains(err.Error(), `"train"`) || !strings.Contains(err.Error(), `"evaluate"`) {
		t.Errorf("err = %v, want both names", err)
	}
	if err := cc.Join(); err == nil {
		t.Error("Join did not report the failed function")
	}
	// A function the worker never registers: an error after RPCTimeout.
	g := cc.Function("never", func(...any) (any, error) { return nil, nil })
	rv, err = cc.Schedule(g)
	if err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, "Fetch", func() {
		if _, err := rv.Fetch(); err == nil || !strings.Contains(err.Error(), "not registered") {
			t.Errorf("err = %v", err)
		}
	})
	// Arguments that cannot travel are refused at once.
	if _, err := cc.Schedule(f, struct{}{}); err == nil {
		t.Error("a struct argument was accepted")
	}
	// A function's own error comes back with the worker named.
	h := cc.Function("fails", func(...any) (any, error) { return nil, nil })
	wc.Function("fails", func(...any) (any, error) { return nil, errors.New("boom") })
	_ = h
}

// TestPSWorkerLostAndRejoins: a worker that goes away mid-run leaves its
// functions to the other; the run finishes; the worker, started again at
// its address, gets work again.
func TestPSWorkerLostAndRejoins(t *testing.T) {
	c := startInProcess(t, 2, 1)
	tasks := setUpTasks(t, c)
	chief := tasks[0]
	slow := make(chan struct{})
	var rvs []*distribute.RemoteValue
	for i := range 20 {
		rv, err := chief.coord.Schedule(chief.step, i%4)
		if err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, rv)
	}
	// Stop worker 1's service after a few steps.
	go func() {
		for !rvs[5].Ready() {
			time.Sleep(5 * time.Millisecond)
		}
		c.workers[1].Close()
		close(slow)
	}()
	within(t, 20*time.Second, "Join", func() {
		if err := chief.coord.Join(); err != nil {
			t.Error(err)
		}
	})
	<-slow
	for i, rv := range rvs {
		if _, err := rv.Fetch(); err != nil {
			t.Errorf("step %d: %v", i, err)
		}
	}
	// Worker 1 comes back at its address, as a new process would.
	w1 := c.start(t, "worker", 1)
	if w1 == nil {
		t.FailNow()
	}
	c.workers[1] = w1
	m := psModel(t)
	if err := w1.Track(m.Weights()...); err != nil {
		t.Fatal(err)
	}
	wc, _ := distribute.NewClusterCoordinator(w1)
	f := trainStep(m)
	wc.Function("train", func(args ...any) (any, error) {
		x, y := psBatch(int(args[0].(float64)))
		outs, err := w1.Run(f, x, y)
		if err != nil {
			return nil, err
		}
		return float64(outs[0].Float32()), nil
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		rv, err := chief.coord.Schedule(chief.step, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rv.Fetch(); err != nil {
			t.Fatal(err)
		}
		if rv.Worker() == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker 1 never rejoined (live: %v)", chief.coord.LiveWorkers())
		}
	}
}

// TestPSServerLost: a server that goes away stops the job: Join, Fetch
// and Schedule return an error naming it, quickly.
func TestPSServerLost(t *testing.T) {
	c := startInProcess(t, 1, 1)
	tasks := setUpTasks(t, c)
	chief := tasks[0]
	if _, err := chief.coord.Schedule(chief.step, 0); err != nil {
		t.Fatal(err)
	}
	if err := chief.coord.Join(); err != nil {
		t.Fatal(err)
	}
	c.servers[0].Close()
	var err error
	within(t, 15*time.Second, "the error", func() {
		for err == nil {
			var rv *distribute.RemoteValue
			rv, err = chief.coord.Schedule(chief.step, 1)
			if err == nil {
				_, err = rv.Fetch()
			}
		}
	})
	if !errors.Is(err, distribute.ErrParameterServerGone) || !strings.Contains(err.Error(), "ps:0 at "+c.spec["ps"][0]) || !strings.Contains(err.Error(), "relaunch") {
		t.Errorf("err = %v", err)
	}
	within(t, 5*time.Second, "Join", func() {
		if err := chief.coord.Join(); !errors.Is(err, distribute.ErrParameterServerGone) {
			t.Errorf("Join: %v", err)
		}
	})
}
