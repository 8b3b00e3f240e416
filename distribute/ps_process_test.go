package distribute_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/pscerts"
)

// The multi-process tests run workers and servers as child processes of
// this test binary (TestPSChild in the role GOKERAS_PS_ROLE names, with
// its TF_CONFIG) and the chief in the test itself, so that a task can be
// killed with SIGKILL and started again.

// TestPSChild is one worker or server of a multi-process test.
func TestPSChild(t *testing.T) {
	if os.Getenv("GOKERAS_PS_ROLE") == "" {
		t.Skip("a child process of the multi-process parameter-server tests")
	}
	s, err := distribute.NewParameterServerStrategy(nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.TaskType() == "worker" {
		m := psModel(t)
		if err := s.Track(m.Weights()...); err != nil {
			t.Fatal(err)
		}
		c, _ := distribute.NewClusterCoordinator(s)
		f := trainStep(m)
		c.Function("train", func(args ...any) (any, error) {
			time.Sleep(20 * time.Millisecond) // a step long enough to be killed in
			x, y := psBatch(int(args[0].(float64)))
			outs, err := s.Run(f, x, y)
			if err != nil {
				return nil, err
			}
			return float64(outs[0].Float32()), nil
		})
	}
	if err := s.Join(); err != nil {
		t.Fatal(err)
	}
}

// child starts task typ:idx of spec as a child process; with tlsDir (a
// pscerts.WriteCluster directory) it talks TLS with its own certificate.
func startChild(t *testing.T, spec distribute.ClusterSpec, typ string, idx int, tlsDir ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestPSChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOKERAS_PS_ROLE="+typ, "TF_CONFIG="+psTFConfig(spec, typ, idx))
	if len(tlsDir) > 0 {
		f := pscerts.TaskFiles(tlsDir[0], typ, idx)
		cmd.Env = append(cmd.Env, distribute.EnvTLSCA+"="+f.CA, distribute.EnvTLSCert+"="+f.Cert, distribute.EnvTLSKey+"="+f.Key)
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

func kill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

// TestPSProcessesKillWorkerThenServer: a chief, 2 worker processes and a
// server process. A worker SIGKILLed mid-run: its steps finish on the
// other and training goes on; started again, it rejoins. Then the server
// is SIGKILLed: the chief's Schedule, Fetch and Join report it, quickly.
func TestPSProcessesKillWorkerThenServer(t *testing.T) {
	killWorkerThenServer(t, false)
}

// TestPSProcessesKillWorkerThenServerTLS is the same with mutual TLS
// between every task: a killed worker's certificate serves its restart.
func TestPSProcessesKillWorkerThenServerTLS(t *testing.T) {
	killWorkerThenServer(t, true)
}

func killWorkerThenServer(t *testing.T, secure bool) {
	if testing.Short() {
		t.Skip("starts processes (-short)")
	}
	spec := psSpec(t, 2, 1)
	var dir []string
	opts := []distribute.ParameterServerOption{distribute.ConnectTimeout(20 * time.Second)}
	if secure {
		dir = []string{tlsFiles(t, spec)}
		opts = append(opts, tlsOption(dir[0], "chief", 0))
	}
	ps := startChild(t, spec, "ps", 0, dir...)
	w := []*exec.Cmd{startChild(t, spec, "worker", 0, dir...), startChild(t, spec, "worker", 1, dir...)}
	chief, err := distribute.NewParameterServerStrategy(resolverFor(t, spec, "chief", 0), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer chief.Close()
	m := psModel(t)
	if err := chief.Track(m.Weights()...); err != nil {
		t.Fatal(err)
	}
	if err := chief.SetOptimizer(m.Optimizer()); err != nil {
		t.Fatal(err)
	}
	coord, _ := distribute.NewClusterCoordinator(chief)
	step := coord.Function("train", func(...any) (any, error) { return nil, errors.New("the chief runs no steps") })

	const steps = 60
	var rvs []*distribute.RemoteValue
	for i := range steps {
		rv, err := coord.Schedule(step, i%4)
		if err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, rv)
	}
	for !rvs[10].Ready() {
		time.Sleep(5 * time.Millisecond)
	}
	kill(t, w[1])
	start := time.Now()
	within(t, 20*time.Second, "Join after the kill", func() {
		if err := coord.Join(); err != nil {
			t.Error(err)
		}
	})
	t.Logf("the last %d steps finished %v after worker 1 was killed", steps-11, time.Since(start))
	var after int
	for i, rv := range rvs {
		if _, err := rv.Fetch(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if i > 20 && rv.Worker() == 1 {
			after++
		}
	}
	if after > 2 {
		t.Errorf("%d late steps ran on the killed worker", after)
	}
	st, err := chief.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if st.Iterations < steps {
		t.Errorf("the server applied %d updates, want at least %d", st.Iterations, steps)
	}

	// Worker 1 again, at its address, after 3 s of being probed in vain.
	time.Sleep(3 * time.Second)
	w[1] = startChild(t, spec, "worker", 1, dir...)
	restarted := time.Now()
	deadline := restarted.Add(20 * time.Second)
	for rejoined := false; !rejoined; {
		var batch []*distribute.RemoteValue
		for i := range 4 {
			rv, err := coord.Schedule(step, i)
			if err != nil {
				t.Fatal(err)
			}
			batch = append(batch, rv)
		}
		for _, rv := range batch {
			if _, err := rv.Fetch(); err != nil {
				t.Fatal(err)
			}
			rejoined = rejoined || rv.Worker() == 1
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker 1 did not rejoin within 20s (live: %v)", coord.LiveWorkers())
		}
	}
	t.Logf("worker 1 ran a step again %v after it was restarted", time.Since(restarted))

	kill(t, ps)
	start = time.Now()
	var lost error
	within(t, 15*time.Second, "the lost server's error", func() {
		for lost == nil {
			var rv *distribute.RemoteValue
			if rv, lost = coord.Schedule(step, 0); lost == nil {
				_, lost = rv.Fetch()
			}
		}
	})
	if !errors.Is(lost, distribute.ErrParameterServerGone) || !strings.Contains(lost.Error(), "ps:0 at "+spec["ps"][0]) {
		t.Errorf("err = %v", lost)
	}
	if err := coord.Join(); !errors.Is(err, distribute.ErrParameterServerGone) {
		t.Errorf("Join: %v", err)
	}
	t.Logf("the lost server was reported after %v", time.Since(start))
}
