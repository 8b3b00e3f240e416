package distribute_test

import (
	"context"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/mpi"
	"github.com/gokeras/gokeras/internal/mpi/mpirun"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// Without MPI in the build, a cluster of several workers is a clear
// error naming the build tag; with it, one process that a TF_CONFIG of
// two workers describes disagrees with MPI's single process.
func TestMultiWorkerNeedsMPI(t *testing.T) {
	if mpirun.Worker() {
		t.Skip("inside mpirun")
	}
	r, err := distribute.NewTFConfigClusterResolver(`{"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 0}}`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = distribute.NewMultiWorkerMirroredStrategy(distribute.Resolver(r))
	if err == nil {
		t.Fatal("a cluster of 2 workers in a single process: no error")
	}
	want := "built without the mpi tag: go build -tags mpi"
	if mpi.Available() {
		want = "the cluster's size and the number of MPI processes differ"
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
	if _, err := distribute.NewMultiWorkerMirroredStrategy(distribute.Communication(distribute.CommunicationOptions{Implementation: distribute.NCCL})); err == nil {
		t.Fatal("NCCL on CPUs: no error")
	}
}

// TestMWWorkerCollectives is one worker of TestMultiWorkerCollectives.
func TestMWWorkerCollectives(t *testing.T) {
	if !mpirun.Worker() {
		t.Skip("runs under mpirun (TestMultiWorkerMPI launches it)")
	}
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	for _, impl := range []distribute.CommunicationImplementation{distribute.AUTO, distribute.RING} {
		s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.CollectiveTimeout(30*time.Second),
			distribute.Communication(distribute.CommunicationOptions{Implementation: impl, BytesPerPack: 64}))
		if err != nil {
			t.Fatal(err)
		}
		rank, w := s.Rank(), s.NumWorkers()
		// Workers sharing this machine split its cores.
		if _, set := os.LookupEnv("GOMAXPROCS"); !set && runtime.GOMAXPROCS(0) != max(1, runtime.NumCPU()/w) {
			t.Errorf("GOMAXPROCS %d with %d workers on %d CPUs", runtime.GOMAXPROCS(0), w, runtime.NumCPU())
		}
		// Reduce over 2 local replicas x w workers; worker 1 has one
		// replica without a value.
		v := distribute.PerReplica{
			{Shape: ops.Shape{2}, Data: []float32{float32(rank), 1}},
			{Shape: ops.Shape{2}, Data: []float32{float32(10 * rank), 2}},
		}
		if rank == 1 {
			v[1] = ops.Value{}
		}
		sum, err := s.Reduce(distribute.Sum, v, distribute.AxisNone)
		if err != nil {
			t.Fatal(err)
		}
		want0, want1, n := 0.0, 0.0, 0.0
		for r := 0; r < w; r++ {
			want0 += float64(r)
			want1++
			n++
			if r != 1 {
				want0 += float64(10 * r)
				want1 += 2
				n++
			}
		}
		if float64(sum.Data[0]) != want0 || float64(sum.Data[1]) != want1 {
			t.Fatalf("%v: Reduce Sum = %v, want [%v %v]", impl, sum.Data, want0, want1)
		}
		mean, err := s.Reduce(distribute.Mean, v, distribute.AxisNone)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(float64(mean.Data[1])-want1/n) > 1e-6 {
			t.Fatalf("%v: Reduce Mean = %v, want %v", impl, mean.Data[1], want1/n)
		}
		// Gather: rank r contributes r+1 rows of [r, i].
		mine := make([]float32, 0)
		for i := 0; i <= rank; i++ {
			mine = append(mine, float32(rank), float32(i))
		}
		g, err := s.Gather(distribute.PerReplica{{Shape: ops.Shape{rank + 1, 2}, Data: mine}, {}})
		if err != nil {
			t.Fatal(err)
		}
		var want []float32
		for r := 0; r < w; r++ {
			for i := 0; i <= r; i++ {
				want = append(want, float32(r), float32(i))
			}
		}
		if len(g.Data) != len(want) || g.Shape[0] != len(want)/2 || g.Shape[1] != 2 {
			t.Fatalf("%v: Gather shape %v (%d values), want %d rows", impl, g.Shape, len(g.Data), len(want)/2)
		}
		for i := range want {
			if g.Data[i] != want[i] {
				t.Fatalf("%v: Gather = %v, want %v", impl, g.Data, want)
			}
		}
		// In a traced step, the replica context counts and reduces over
		// every replica of every worker: rows 0..11 sum to 66.
		var seen int
		fn := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
			rc := distribute.GetReplicaContext(in[0])
			seen = rc.NumReplicasInSync()
			return []ops.Tensor{rc.AllReduce(distribute.Sum, ops.Sum(in[0], false))}, nil
		})
		rows := make([]float32, 12)
		for i := range rows {
			rows[i] = float32(i)
		}
		ds, err := datasets.FromTensorSlices(tensor.New(tensor.WithShape(12, 1), tensor.WithBacking(rows)))
		if err != nil {
			t.Fatal(err)
		}
		it := s.ExperimentalDistributeDataset(ds.Batch(12, false)).Iterate(context.Background())
		batch, ok := it.Next()
		it.Close()
		if !ok {
			t.Fatal(it.Err())
		}
		out, err := s.Run(fn, batch)
		if err != nil {
			t.Fatal(err)
		}
		if seen != s.NumReplicasInSync() {
			t.Errorf("%v: ReplicaContext.NumReplicasInSync %d in the step, strategy %d", impl, seen, s.NumReplicasInSync())
		}
		for r, v := range out[0] {
			if v.Data[0] != 66 {
				t.Errorf("%v: replica %d: in-graph all-reduce %v, want 66", impl, r, v.Data[0])
			}
		}
		// A global batch too small for every worker trains: the workers
		// without rows run the step's collectives with zero gradients
		// (TestMultiWorkerMPI/EmptyWorkers compares the weights).
		small := smallCNNModel(t, s)
		x, y := images(w, 8, 8, 4)
		if _, err := small.Fit(x, y, keras.FitConfig{BatchSize: w, Verbose: keras.VerboseSilent}); err != nil {
			t.Errorf("%v: Fit on a global batch of %d over %d workers x 2 replicas: %v", impl, w, w, err)
		}
		if err := s.Barrier(); err != nil {
			t.Fatal(err)
		}
		if impl == distribute.RING {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// mpiCollectives: Reduce, Gather and Barrier across 3 workers, with both
// implementations.
func mpiCollectives(t *testing.T, bin string) {
	r := mpirun.Run(3, bin, "^TestMWWorkerCollectives$", 60*time.Second)
	mpirun.Check(t, r, "mpirun -np 3")
	if n := strings.Count(r.Output, "--- PASS: TestMWWorkerCollectives"); n != 3 {
		t.Fatalf("%d of 3 workers passed:\n%s", n, r.Output)
	}
}

// smallCNNModel is smallCNN compiled under s.
func smallCNNModel(t *testing.T, s interface{ Scope() func() }) *keras.Model {
	t.Helper()
	exit := s.Scope()
	defer exit()
	m := smallCNN(t, 3)
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMWWorkerDisagree is one worker of TestMultiWorkerMPI/Disagree: every
// process inherits the same TF_CONFIG, right for rank 0 only. Every rank
// must return an error (none may wait for the others).
func TestMWWorkerDisagree(t *testing.T) {
	if !mpirun.Worker() || os.Getenv("TF_CONFIG") == "" {
		t.Skip("runs under mpirun with a TF_CONFIG (TestMultiWorkerMPI launches it)")
	}
	_, err := distribute.NewMultiWorkerMirroredStrategy(distribute.CollectiveTimeout(30 * time.Second))
	want := "disagrees with MPI on rank(s) 1"
	if os.Getenv("OMPI_COMM_WORLD_RANK") != "0" {
		want = "every process needs its own TF_CONFIG"
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("rank %s: error %v, want %q", os.Getenv("OMPI_COMM_WORLD_RANK"), err, want)
	}
}

// mpiDisagree: a TF_CONFIG that disagrees with MPI is an error on every
// worker, promptly.
func mpiDisagree(t *testing.T, bin string) {
	r := mpirun.Run(2, bin, "^TestMWWorkerDisagree$", 60*time.Second,
		`TF_CONFIG={"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}}`)
	mpirun.Check(t, r, "mpirun -np 2 with one TF_CONFIG")
	if n := strings.Count(r.Output, "--- PASS: TestMWWorkerDisagree"); n != 2 {
		t.Fatalf("%d of 2 workers passed:\n%s", n, r.Output)
	}
}
