package distribute_test

import (
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

// psBNModel has BatchNormalization, whose moving statistics are
// non-trainable variables the step changes.
func psBNModel(t testing.TB) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(5)
	m, err := keras.NewSequential(
		layers.NewDense(6, layers.WithInputShape(5), layers.WithName("hidden")),
		layers.NewBatchNormalization(layers.WithName("bn")),
		layers.NewDense(1, layers.WithName("out")))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.05), optimizers.Momentum(0.9)), Loss: losses.NewMeanSquaredError()}); err != nil {
		t.Fatal(err)
	}
	if err := m.Build(1, 5); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPSBatchNormStatistics: the moving statistics a worker's step
// changes reach the servers (assigned after the step), and with one worker
// every variable, trainable or not, equals a local run's; SGD's momentum
// lives on the server.
func TestPSBatchNormStatistics(t *testing.T) {
	c := startInProcess(t, 1, 2)
	var chief *keras.Model
	var coords []*distribute.ClusterCoordinator
	var step *distribute.RemoteFunction
	for _, s := range c.tasks() {
		m := psBNModel(t)
		if err := s.Track(m.Weights()...); err != nil {
			t.Fatal(err)
		}
		coord, _ := distribute.NewClusterCoordinator(s)
		f := trainStep(m)
		fn := coord.Function("train", func(args ...any) (any, error) {
			x, y := psBatch(int(args[0].(float64)))
			_, err := s.Run(f, x, y)
			return nil, err
		})
		if s == c.chief {
			chief, step = m, fn
		}
		coords = append(coords, coord)
	}
	for i := range 5 {
		if _, err := coords[0].Schedule(step, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := coords[0].Join(); err != nil {
		t.Fatal(err)
	}
	local := psBNModel(t)
	trainLocally(t, local, 5)
	if err := c.chief.PullVariables(); err != nil {
		t.Fatal(err)
	}
	moved := false
	for i, v := range chief.Weights() {
		lv := local.Weights()[i]
		if d := relDiff(v.Data(0), lv.Data(0)); d != 0 {
			t.Errorf("%s (trainable %v) differs from the local run by %g", v.Name(), v.Trainable(), d)
		}
		if !v.Trainable() && (v.Data(0)[0] != 0 && v.Data(0)[0] != 1) {
			moved = true
		}
	}
	if !moved {
		t.Error("the moving statistics never left their initial values")
	}
	st, err := c.chief.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Slots["hidden/kernel"]["momentum"]; !ok || st.Iterations != 5 {
		t.Errorf("servers' optimizer: %d iterations, slots of %v", st.Iterations, st.Slots)
	}
}

// TestPSStalenessEndToEnd: a fast and a slow worker. Fully asynchronous,
// the fast one takes most steps; with MaxStaleness(1) it waits for the
// slow one and the two push about equally often.
func TestPSStalenessEndToEnd(t *testing.T) {
	run := func(opts ...distribute.ParameterServerOption) map[int]int {
		c := startInProcess(t, 2, 1, opts...)
		var coord *distribute.ClusterCoordinator
		var step *distribute.RemoteFunction
		for i, s := range c.tasks() {
			m := psModel(t)
			if err := s.Track(m.Weights()...); err != nil {
				t.Fatal(err)
			}
			co, _ := distribute.NewClusterCoordinator(s)
			f := trainStep(m)
			slow := i == 2 // worker 1
			fn := co.Function("train", func(args ...any) (any, error) {
				if slow {
					time.Sleep(30 * time.Millisecond)
				}
				x, y := psBatch(int(args[0].(float64)))
				_, err := s.Run(f, x, y)
				return nil, err
			})
			if i == 0 {
				coord, step = co, fn
			}
		}
		// Both workers connected first: a worker the coordinator has not
		// reached yet is not held level with (the bound counts live
		// workers), so the fast one could take a head start of several
		// steps before the slow one is up (a flake at one run in six on an
		// idle machine).
		within(t, 10*time.Second, "both workers live", func() {
			for len(coord.LiveWorkers()) < 2 {
				time.Sleep(5 * time.Millisecond)
			}
		})
		var rvs []*distribute.RemoteValue
		for i := range 24 {
			rv, err := coord.Schedule(step, i%4)
			if err != nil {
				t.Fatal(err)
			}
			rvs = append(rvs, rv)
		}
		within(t, 20*time.Second, "Join", func() {
			if err := coord.Join(); err != nil {
				t.Error(err)
			}
		})
		ran := map[int]int{}
		for _, rv := range rvs {
			ran[rv.Worker()]++
		}
		return ran
	}
	free := run()
	bounded := run(distribute.MaxStaleness(1))
	t.Logf("steps per worker: asynchronous %v, MaxStaleness(1) %v", free, bounded)
	if free[0] <= free[1]+2 {
		t.Errorf("asynchronous: the fast worker ran %d steps, the slow %d; want the fast one well ahead", free[0], free[1])
	}
	if d := bounded[0] - bounded[1]; d < -2 || d > 2 {
		t.Errorf("MaxStaleness(1): %v steps per worker, want within 2 of each other", bounded)
	}
}

// TestPSChiefTimeout: a worker and a server whose chief pings them keep
// serving past ChiefTimeout and return nil when it closes; without a
// chief their Join ends with an error naming its address.
func TestPSChiefTimeout(t *testing.T) {
	c := startInProcess(t, 1, 1, distribute.ChiefTimeout(1500*time.Millisecond))
	joined := make(chan error, 2)
	go func() { joined <- c.workers[0].Join() }()
	go func() { joined <- c.servers[0].Join() }()
	select {
	case err := <-joined:
		t.Fatalf("Join returned (%v) while the chief was there", err)
	case <-time.After(2500 * time.Millisecond):
	}
	c.chief.Close()
	for range 2 {
		select {
		case err := <-joined:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Join did not return after the chief closed")
		}
	}

	// No chief ever: the tasks give up.
	spec := psSpec(t, 1, 1)
	ps, err := distribute.NewParameterServerStrategy(resolverFor(t, spec, "ps", 0), distribute.ChiefTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	within(t, 5*time.Second, "Join without a chief", func() {
		if err := ps.Join(); err == nil || !strings.Contains(err.Error(), "chief at "+spec["chief"][0]+" is gone") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestPSUntrackedVariables: a worker step over variables the chief never
// tracked, and a push of a variable nobody tracked, are errors naming them.
func TestPSUntrackedVariables(t *testing.T) {
	c := startInProcess(t, 1, 1)
	w := c.workers[0]
	v := ops.NewVariable("lonely/kernel", ops.Shape{2}, []float32{1, 2}, true)
	if err := w.Track(v); err != nil {
		t.Fatal(err)
	}
	err := w.RunReplicas(func(ops.ReplicaContext) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `"lonely/kernel"`) || !strings.Contains(err.Error(), "has not tracked") {
		t.Errorf("step before the chief tracked: %v", err)
	}
	u := ops.NewVariable("other", ops.Shape{1}, []float32{0}, true)
	if err := c.chief.PullVariables(u); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("pulling an untracked variable: %v", err)
	}
	if err := c.chief.Track(ops.NewVariable("lonely/kernel", ops.Shape{2}, []float32{1, 2}, true)); err != nil {
		t.Fatal(err)
	}
	err = w.RunReplicas(func(rc ops.ReplicaContext) error {
		return optimizers.NewSGD().Apply(rc, [][]float32{{1}}, []*ops.Variable{u})
	})
	if err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("pushing an untracked variable: %v", err)
	}
}
