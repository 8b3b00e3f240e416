package distribute_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/mpi/mpirun"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// fitEmptyBatches trains the small CNN under s on 21 examples in global
// batches of 10 for two epochs: every epoch's last batch has one row, so
// with 2 workers the second has none, and returns its weights with the
// logged losses.
func fitEmptyBatches(t *testing.T, s interface{ Scope() func() }) ([]float32, []float64) {
	t.Helper()
	exit := s.Scope()
	model := smallCNN(t, 3)
	err := model.Compile(keras.CompileConfig{
		Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1), optimizers.Momentum(0.9)),
		Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
	})
	exit()
	if err != nil {
		t.Fatal(err)
	}
	x, y := images(21, 8, 8, 4)
	h, err := model.Fit(x, y, keras.FitConfig{Epochs: 2, BatchSize: 10, Seed: 5, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	return flatWeights(model.Weights()), h.History["loss"]
}

// TestMWWorkerEmpty is one worker of TestMultiWorkerMPI/EmptyWorkers.
func TestMWWorkerEmpty(t *testing.T) {
	if !mpirun.Worker() {
		t.Skip("runs under mpirun (TestMultiWorkerMPI launches it)")
	}
	local, _ := strconv.Atoi(os.Getenv("GOKERAS_MW_LOCAL"))
	if err := distribute.SetLogicalCPUs(max(local, 1)); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.LocalDevices(devices(max(local, 1))...), distribute.CollectiveTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	w, loss := fitEmptyBatches(t, s)
	out, rank := os.Getenv("GOKERAS_MW_OUT"), strconv.Itoa(s.Rank())
	writeFloats(t, filepath.Join(out, "weights_rank"+rank), w)
	l := make([]float32, len(loss))
	for i, v := range loss {
		l[i] = float32(v)
	}
	writeFloats(t, filepath.Join(out, "loss_rank"+rank), l)
}

// mpiEmptyWorkers: a global batch that leaves a worker (or a replica)
// without rows trains, as TensorFlow feeds such a worker an empty batch:
// 2 processes x 1 and x 2 replicas end with the weights and losses of 1
// process x 1 replica on the same batches (the workers without rows
// all-reduce zero gradients; the loss averages over the global batch),
// every worker bitwise alike.
func mpiEmptyWorkers(t *testing.T, bin string) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	one, err := distribute.NewMirroredStrategy(devices(1)...)
	if err != nil {
		t.Fatal(err)
	}
	refW, refLoss := fitEmptyBatches(t, one)
	for _, local := range []int{1, 2} {
		out := t.TempDir()
		name := "2x" + strconv.Itoa(local)
		r := mpirun.Run(2, bin, "^TestMWWorkerEmpty$", 90*time.Second, "GOKERAS_MW_LOCAL="+strconv.Itoa(local), "GOKERAS_MW_OUT="+out)
		mpirun.Check(t, r, name)
		w0 := readFloats(t, filepath.Join(out, "weights_rank0"))
		if w1 := readFloats(t, filepath.Join(out, "weights_rank1")); !slices.Equal(w0, w1) {
			t.Errorf("%s: the workers' weights differ", name)
		}
		compareRun(t, name+" weights", w0, refW)
		loss := readFloats(t, filepath.Join(out, "loss_rank1"))
		for e := range refLoss {
			if d := float64(loss[e]) - refLoss[e]; d > 1e-5 || d < -1e-5 {
				t.Errorf("%s: epoch %d loss %v, 1 x 1: %v", name, e, loss[e], refLoss[e])
			}
		}
	}
}
