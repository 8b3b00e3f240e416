package distribute_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/mpi/mpirun"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// loopStrategy is what the equivalence runs need of a strategy; both
// MirroredStrategy and MultiWorkerMirroredStrategy have it.
type loopStrategy interface {
	Scope() func()
	Run(any, *distribute.DistributedValues) ([]distribute.PerReplica, error)
	Reduce(distribute.ReduceOp, distribute.PerReplica, int) (ops.Value, error)
	ExperimentalDistributeDataset(*datasets.Dataset) *distribute.DistributedDataset
}

func smallCNN(t *testing.T, seed uint64) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(seed)
	model, err := keras.NewSequential(
		layers.NewConv2D(4, 3, layers.WithActivation("relu"), layers.WithInputShape(8, 8, 1)),
		layers.NewMaxPooling2D(),
		layers.NewFlatten(),
		layers.NewDense(10))
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// mwFit trains the small CNN with Fit on 23 examples in global batches of
// 10 (the last one uneven) and returns its weights.
func mwFit(t *testing.T, s loopStrategy, seed uint64) []*ops.Variable {
	t.Helper()
	exit := s.Scope()
	model := smallCNN(t, seed)
	err := model.Compile(keras.CompileConfig{
		Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1), optimizers.Momentum(0.9)),
		Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
	})
	exit()
	if err != nil {
		t.Fatal(err)
	}
	x, y := images(23, 8, 8, 4)
	if _, err := model.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: 10, Seed: 5, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	return model.Weights()
}

// mwLoop is the tutorial's custom loop (strategy.Run of a GradientTape
// step, Reduce SUM) and returns the weights and the step losses.
func mwLoop(t *testing.T, s loopStrategy, seed uint64) ([]*ops.Variable, []float32) {
	t.Helper()
	const globalBatch = 10
	exit := s.Scope()
	model := smallCNN(t, seed)
	optimizer := optimizers.NewSGD(optimizers.LearningRate(0.1), optimizers.Momentum(0.9))
	lossFn := losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true), losses.Reduction(losses.ReductionNone))
	trainAccuracy := metrics.NewSparseCategoricalAccuracy()
	exit()
	trainStep := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		tape := keras.NewGradientTape()
		predictions := model.Forward(in[0], true)
		loss := distribute.ComputeAverageLoss(lossFn.Call(in[1], predictions), globalBatch)
		grads, err := tape.Gradient(loss, model.TrainableVariables())
		if err != nil {
			return nil, err
		}
		if err := optimizer.ApplyGradients(grads, model.TrainableVariables()); err != nil {
			return nil, err
		}
		trainAccuracy.UpdateState(in[1], predictions)
		return []ops.Tensor{loss}, nil
	})
	x, y := images(23, 8, 8, 4)
	ds, err := datasets.FromTensorSlices(x, y)
	if err != nil {
		t.Fatal(err)
	}
	var stepLosses []float32
	for epoch := 0; epoch < 2; epoch++ {
		it := s.ExperimentalDistributeDataset(ds.Batch(globalBatch, false)).Iterate(context.Background())
		for batch, ok := it.Next(); ok; batch, ok = it.Next() {
			perReplica, err := s.Run(trainStep, batch)
			if err != nil {
				t.Fatal(err)
			}
			loss, err := s.Reduce(distribute.Sum, perReplica[0], distribute.AxisNone)
			if err != nil {
				t.Fatal(err)
			}
			stepLosses = append(stepLosses, loss.Data[0])
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		it.Close()
		if b, ok := s.(interface{ Barrier() error }); ok {
			if err := b.Barrier(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return model.Weights(), stepLosses
}

func flatWeights(vs []*ops.Variable) []float32 {
	var out []float32
	for _, v := range vs {
		out = append(out, v.Data(0)...)
	}
	return out
}

func writeFloats(t *testing.T, path string, f []float32) {
	t.Helper()
	b := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFloats(t *testing.T, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := make([]float32, len(b)/4)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return f
}

// checkCopies fails unless every local copy of every variable is bitwise
// the first.
func checkCopies(t *testing.T, what string, vs []*ops.Variable) {
	t.Helper()
	for _, v := range vs {
		for r := 1; r < v.Replicas(); r++ {
			for j, f := range v.Data(r) {
				if math.Float32bits(f) != math.Float32bits(v.Data(0)[j]) {
					t.Fatalf("%s: %s copy %d differs from copy 0", what, v.Name(), r)
				}
			}
		}
	}
}

// TestMWWorkerEquivalence is one worker of TestMultiWorkerEquivalence.
// Each rank seeds its model differently: only the chief's broadcast makes
// them start alike.
func TestMWWorkerEquivalence(t *testing.T) {
	if !mpirun.Worker() {
		t.Skip("runs under mpirun (TestMultiWorkerMPI launches it)")
	}
	local, _ := strconv.Atoi(os.Getenv("GOKERAS_MW_LOCAL"))
	out := os.Getenv("GOKERAS_MW_OUT")
	if err := distribute.SetLogicalCPUs(max(local, 1)); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.CollectiveTimeout(60*time.Second),
		distribute.Communication(distribute.CommunicationOptions{Implementation: implementation(os.Getenv("GOKERAS_MW_IMPL")), BytesPerPack: 256}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	rank := s.Rank()
	if s.NumReplicasInSync() != s.NumWorkers()*max(local, 1) {
		t.Fatalf("NumReplicasInSync %d with %d workers of %d replicas", s.NumReplicasInSync(), s.NumWorkers(), local)
	}
	seed := 3 + uint64(rank)
	fw := mwFit(t, s, seed)
	checkCopies(t, "Fit", fw)
	writeFloats(t, filepath.Join(out, "fit_rank"+strconv.Itoa(rank)), flatWeights(fw))
	lw, losses := mwLoop(t, s, seed)
	checkCopies(t, "custom loop", lw)
	writeFloats(t, filepath.Join(out, "loop_rank"+strconv.Itoa(rank)), flatWeights(lw))
	writeFloats(t, filepath.Join(out, "loss_rank"+strconv.Itoa(rank)), losses)
}

func implementation(s string) distribute.CommunicationImplementation {
	if s == "RING" {
		return distribute.RING
	}
	return distribute.AUTO
}

func compareRun(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, reference %d", what, len(got), len(want))
	}
	if d := relDiff(got, want); d > 1e-5 {
		t.Errorf("%s: differs from 1 process x 1 replica by %.3g (relative)", what, d)
	} else {
		t.Logf("%s: relative difference %.3g", what, d)
	}
}

// TestMultiWorkerMPI builds this package's tests with the mpi tag once
// and runs the multi-worker tests under mpirun (skipped without OpenMPI,
// failed without it when GOKERAS_REQUIRE_MPI=1).
func TestMultiWorkerMPI(t *testing.T) {
	if mpirun.Worker() {
		t.Skip("inside mpirun")
	}
	mpirun.Require(t)
	bin := mpirun.BuildTest(t, t.TempDir())
	t.Run("Equivalence", func(t *testing.T) { mpiEquivalence(t, bin) })
	t.Run("Overlap", func(t *testing.T) { mpiOverlap(t, bin) })
	t.Run("Collectives", func(t *testing.T) { mpiCollectives(t, bin) })
	t.Run("Timeout", func(t *testing.T) { mpiTimeout(t, bin) })
	t.Run("KillAndResume", func(t *testing.T) { mpiKillAndResume(t, bin) })
	t.Run("Preemption", func(t *testing.T) { mpiPreemption(t, bin) })
	t.Run("EmptyWorkers", func(t *testing.T) { mpiEmptyWorkers(t, bin) })
	t.Run("Disagree", func(t *testing.T) { mpiDisagree(t, bin) })
	t.Run("Logs", func(t *testing.T) { mpiLogs(t, bin) })
	t.Run("Sharding", func(t *testing.T) { mpiSharding(t, bin) })
	t.Run("ParameterServers", func(t *testing.T) { mpiPSLaunch(t, bin) })
}

// references trains 1 process x 1 replica (MirroredStrategy): the Fit
// weights, the custom loop's weights and its step losses.
func references(t *testing.T) (fit, loop, loss []float32) {
	t.Helper()
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	one, err := distribute.NewMirroredStrategy(devices(1)...)
	if err != nil {
		t.Fatal(err)
	}
	fit = flatWeights(mwFit(t, one, 3))
	w, loss := mwLoop(t, one, 3)
	return fit, flatWeights(w), loss
}

// One process of two replicas under a MultiWorkerMirroredStrategy (no
// MPI: a cluster of one worker) ends with the weights of 1 x 1.
func TestMultiWorkerOneProcess(t *testing.T) {
	if mpirun.Worker() {
		t.Skip("inside mpirun")
	}
	refFit, refLoop, refLoss := references(t)
	s12, err := distribute.NewMultiWorkerMirroredStrategy(distribute.LocalDevices(devices(2)...))
	if err != nil {
		t.Fatal(err)
	}
	if s12.NumWorkers() != 1 || s12.NumReplicasInSync() != 2 || !s12.IsChief() {
		t.Fatalf("one process: %d workers, %d replicas, chief %v", s12.NumWorkers(), s12.NumReplicasInSync(), s12.IsChief())
	}
	compareRun(t, "1x2 Fit", flatWeights(mwFit(t, s12, 3)), refFit)
	w12, l12 := mwLoop(t, s12, 3)
	compareRun(t, "1x2 loop", flatWeights(w12), refLoop)
	compareRun(t, "1x2 loop losses", l12, refLoss)
	if err := s12.Close(); err != nil {
		t.Fatal(err)
	}
}

// mpiEquivalence: on the same global batches, 2 processes x 1 replica,
// 2 x 2 and 3 x 1 (uneven shards) end with the weights of 1 x 1, by Fit
// and by a custom loop, and the workers' weights are bitwise equal.
func mpiEquivalence(t *testing.T, bin string) {
	refFit, refLoop, refLoss := references(t)
	for _, c := range []struct {
		np, local int
		impl      string
	}{{2, 1, "AUTO"}, {2, 2, "RING"}, {3, 1, "RING"}} {
		out := t.TempDir()
		name := strconv.Itoa(c.np) + "x" + strconv.Itoa(c.local) + " " + c.impl
		r := mpirun.Run(c.np, bin, "^TestMWWorkerEquivalence$", 120*time.Second,
			"GOKERAS_MW_LOCAL="+strconv.Itoa(c.local), "GOKERAS_MW_OUT="+out, "GOKERAS_MW_IMPL="+c.impl)
		mpirun.Check(t, r, name)
		if n := strings.Count(r.Output, "--- PASS: TestMWWorkerEquivalence"); n != c.np {
			t.Fatalf("%s: %d of %d workers passed\n%s", name, n, c.np, r.Output)
		}
		t.Logf("%s: mpirun took %v", name, r.Took.Round(time.Millisecond))
		for _, kind := range []string{"fit", "loop", "loss"} {
			chief := readFloats(t, filepath.Join(out, kind+"_rank0"))
			ref := map[string][]float32{"fit": refFit, "loop": refLoop, "loss": refLoss}[kind]
			compareRun(t, name+" "+kind, chief, ref)
			for rank := 1; rank < c.np; rank++ {
				other := readFloats(t, filepath.Join(out, kind+"_rank"+strconv.Itoa(rank)))
				for i := range chief {
					if math.Float32bits(other[i]) != math.Float32bits(chief[i]) {
						t.Fatalf("%s %s: rank %d differs from rank 0 at %d: %v vs %v", name, kind, rank, i, other[i], chief[i])
					}
				}
			}
		}
	}
}
