package distribute_test

import (
	"slices"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// TestPSStepReusesPushAnswer: a worker's step pulls only what its last
// push did not bring back (the non-trainable variables, a trainable one
// without a gradient), everything on its first step and after the chief
// wrote values, and then starts from the chief's values.
func TestPSStepReusesPushAnswer(t *testing.T) {
	c := startInProcess(t, 2, 1)
	const n = 100
	type task struct {
		w, frozen, stat *ops.Variable
		coord           *distribute.ClusterCoordinator
		step            *distribute.RemoteFunction
		seen            []float32 // w at the start of the last step
	}
	var tasks []*task
	for _, s := range c.tasks() {
		tk := &task{
			w:      ops.NewVariable("w", ops.Shape{n}, make([]float32, n), true),
			frozen: ops.NewVariable("no_grad", ops.Shape{2}, []float32{1, 2}, true),
			stat:   ops.NewVariable("stat", ops.Shape{3}, []float32{0, 0, 0}, false),
		}
		if err := s.Track(tk.w, tk.frozen, tk.stat); err != nil {
			t.Fatal(err)
		}
		coord, err := distribute.NewClusterCoordinator(s)
		if err != nil {
			t.Fatal(err)
		}
		tk.coord = coord
		opt := optimizers.NewSGD(optimizers.LearningRate(1))
		g := make([]float32, n)
		for i := range g {
			g[i] = -1
		}
		tk.step = coord.Function("step", func(...any) (any, error) {
			err := s.RunReplicas(func(rc ops.ReplicaContext) error {
				tk.seen = tk.w.Numpy()
				tk.stat.Data(0)[0]++
				return opt.Apply(rc, [][]float32{g}, []*ops.Variable{tk.w})
			})
			return nil, err
		})
		tasks = append(tasks, tk)
	}
	chief := tasks[0]
	server := c.servers[0]
	run := func(what string) {
		t.Helper()
		rv, err := chief.coord.Schedule(chief.step)
		if err != nil {
			t.Fatal(err)
		}
		within(t, 20*time.Second, what, func() {
			if _, err := rv.Fetch(); err != nil {
				t.Errorf("%s: %v", what, err)
			}
		})
	}
	pulled := func() int64 { return distribute.PulledValues(server) }
	before := pulled()
	// With one worker alive the steps all run on worker 0.
	c.workers[1].Close()
	run("step 1")
	if got := pulled() - before; got != n+2+3 {
		t.Errorf("first step pulled %d values, want every variable's %d", got, n+2+3)
	}
	for i := 2; i <= 3; i++ {
		before = pulled()
		run("a later step")
		if got := pulled() - before; got != 2+3 {
			t.Errorf("step %d pulled %d values, want %d (the variable without a gradient and the non-trainable one)", i, got, 2+3)
		}
	}
	w0 := tasks[1]
	if want := []float32{2, 2}; !slices.Equal(w0.seen[:2], want) {
		t.Errorf("step 3 started from w = %v, want %v (two updates of +1)", w0.seen[:2], want)
	}
	// The chief writes new values: the next step pulls everything and
	// starts from them.
	val := make([]float32, n)
	for i := range val {
		val[i] = 10
	}
	if err := chief.w.Assign(val); err != nil {
		t.Fatal(err)
	}
	if err := c.chief.PushVariables(chief.w); err != nil {
		t.Fatal(err)
	}
	before = pulled()
	run("the step after the chief's write")
	if got := pulled() - before; got != n+2+3 {
		t.Errorf("the step after the chief's write pulled %d values, want %d", got, n+2+3)
	}
	if w0.seen[0] != 10 {
		t.Errorf("the step after the chief's write started from w = %v, want 10", w0.seen[0])
	}
	if err := c.chief.PullVariables(); err != nil {
		t.Fatal(err)
	}
	if chief.w.Data(0)[0] != 11 || chief.stat.Data(0)[0] != 4 {
		t.Errorf("servers hold w = %v, stat = %v; want 11 and 4", chief.w.Data(0)[0], chief.stat.Data(0)[0])
	}
}

// TestPSSetOptimizerStateKeepsAverages: restoring the servers' optimizer
// from a state without moving averages (a chief's checkpoint: its own
// optimizer keeps none) starts use_ema's averages at the weights, as
// Keras builds them, not at zero.
func TestPSSetOptimizerStateKeepsAverages(t *testing.T) {
	c := startInProcess(t, 1, 1)
	w := ops.NewVariable("w", ops.Shape{3}, []float32{1, 2, 3}, true)
	if err := c.chief.Track(w); err != nil {
		t.Fatal(err)
	}
	opt := optimizers.NewAdam(optimizers.UseEMA(true))
	st := &distribute.ServerOptimizerState{Optimizer: keras.OptimizerConfig(opt), Iterations: 5,
		Slots: map[string]map[string][]float32{"w": {"momentum": {0.1, 0.1, 0.1}, "velocity": {0.2, 0.2, 0.2}}}}
	if err := c.chief.SetOptimizerState(st); err != nil {
		t.Fatal(err)
	}
	got, err := c.chief.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if avg := got.Slots["w"]["average"]; !slices.Equal(avg, []float32{1, 2, 3}) {
		t.Errorf("the restored moving average is %v, want the weights [1 2 3]", avg)
	}
	if m := got.Slots["w"]["momentum"]; !slices.Equal(m, []float32{0.1, 0.1, 0.1}) || got.Iterations != 5 {
		t.Errorf("restored momentum = %v, iterations %d", m, got.Iterations)
	}
}
