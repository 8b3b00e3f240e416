package distribute_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/mpi/mpirun"
)

// TestPSMPIRank is one rank of TestMultiWorkerMPI/ParameterServers: rank 0 the chief, rank 1
// the server, ranks 2 and 3 the workers.
func TestPSMPIRank(t *testing.T) {
	if !mpirun.Worker() {
		t.Skip("runs under mpirun (TestMultiWorkerMPI/ParameterServers launches it)")
	}
	r, err := distribute.NewMPIParameterServerResolver(1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewParameterServerStrategy(r)
	if err != nil {
		t.Fatal(err)
	}
	m := psModel(t)
	if err := s.Track(m.Weights()...); err != nil {
		t.Fatal(err)
	}
	coord, err := distribute.NewClusterCoordinator(s)
	if err != nil {
		t.Fatal(err)
	}
	f := trainStep(m)
	step := coord.Function("train", func(args ...any) (any, error) {
		x, y := psBatch(int(args[0].(float64)))
		outs, err := s.Run(f, x, y)
		if err != nil {
			return nil, err
		}
		return float64(outs[0].Float32()), nil
	})
	if !s.IsCoordinator() {
		if err := s.Join(); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %d served", s.TaskType(), s.TaskID())
		return
	}
	for i := range 8 {
		if _, err := coord.Schedule(step, i%4); err != nil {
			t.Fatal(err)
		}
	}
	if err := coord.Join(); err != nil {
		t.Fatal(err)
	}
	st, err := s.OptimizerState()
	if err != nil {
		t.Fatal(err)
	}
	if st.Iterations != 8 {
		t.Errorf("the server applied %d updates, want 8", st.Iterations)
	}
	t.Logf("chief: %d workers, %d ps at %v", s.NumWorkers(), s.NumPS(), s.ClusterSpec())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// mpiPSLaunch (a subtest of TestMultiWorkerMPI, which builds bin):
// mpirun -np 4 makes a parameter-server cluster (a chief, one server, two
// workers) that trains 8 steps and ends cleanly.
func mpiPSLaunch(t *testing.T, bin string) {
	r := mpirun.Run(4, bin, "^TestPSMPIRank$", 90*time.Second)
	mpirun.Check(t, r, "mpirun -np 4 parameter-server cluster")
	if n := strings.Count(r.Output, "--- PASS: TestPSMPIRank"); n != 4 {
		t.Fatalf("%d of 4 ranks passed\n%s", n, r.Output)
	}
	t.Logf("took %v", r.Took)
}
