package distribute_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/mpi"
	"github.com/gokeras/gokeras/internal/mpi/mpirun"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func TestGradientBuckets(t *testing.T) {
	buf := func(n int) []float32 { return make([]float32, n) }
	for _, c := range []struct {
		sizes []int // floats
		bytes int
		want  [][]int
	}{
		{[]int{10, 10, 10}, 1 << 20, [][]int{{0, 1, 2}}},
		{[]int{10, 10, 10}, 80, [][]int{{0}, {1, 2}}}, // built from the last buffer back
		{[]int{10, 100, 10, 10}, 80, [][]int{{0}, {1}, {2, 3}}},
		{[]int{100}, 80, [][]int{{0}}}, // larger than a bucket: its own
		{nil, 80, [][]int{}},
	} {
		bufs := make([][]float32, len(c.sizes))
		for i, n := range c.sizes {
			bufs[i] = buf(n)
		}
		if got := distribute.GradientBuckets(bufs, c.bytes); !reflect.DeepEqual(got, c.want) {
			t.Errorf("buckets of %v floats at %d bytes: %v, want %v", c.sizes, c.bytes, got, c.want)
		}
	}
}

// deepMLP has enough layers for several buckets at 1 KiB, so that the
// last layers' bucket is complete long before the first layer's gradient.
func deepMLP(t *testing.T, seed uint64) *keras.Model {
	t.Helper()
	layers.SetRandomSeed(seed)
	model, err := keras.NewSequential(
		layers.NewDense(32, layers.WithActivation("relu"), layers.WithInputShape(64)),
		layers.NewDense(32, layers.WithActivation("relu")),
		layers.NewDense(32, layers.WithActivation("relu")),
		layers.NewDense(32, layers.WithActivation("relu")),
		layers.NewDense(10))
	if err != nil {
		t.Fatal(err)
	}
	return model
}

func fitMLP(t *testing.T, s *distribute.MultiWorkerMirroredStrategy, steps int) []float32 {
	t.Helper()
	exit := s.Scope()
	model := deepMLP(t, 7)
	err := model.Compile(keras.CompileConfig{
		Optimizer: optimizers.NewAdam(optimizers.LearningRate(0.01)),
		Loss:      losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true)),
	})
	exit()
	if err != nil {
		t.Fatal(err)
	}
	x, y := images(16*steps, 8, 8, 4)
	if err := x.Reshape(16*steps, 64); err != nil {
		t.Fatal(err)
	}
	if _, err := model.Fit(x, y, keras.FitConfig{Epochs: 1, BatchSize: 16, Seed: 5, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	checkCopies(t, "Fit", model.Weights())
	return flatWeights(model.Weights())
}

func bitwiseEqual(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: differs at %d: %v vs %v", what, i, got[i], want[i])
		}
	}
}

// TestOverlapBitwiseInProcess: one process of two replicas (no MPI) ends
// Fit and the custom loop with bitwise the same weights whether the
// gradients are all-reduced in buckets during the backward pass, in the
// same buckets after it, or all at once in the optimizer's hook.
func TestOverlapBitwiseInProcess(t *testing.T) {
	if mpirun.Worker() {
		t.Skip("inside mpirun")
	}
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.LocalDevices(devices(2)...),
		distribute.Communication(distribute.CommunicationOptions{BytesPerPack: 1024}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := map[string][]float32{}
	for _, mode := range []string{"hook", "after", "on"} {
		distribute.SetOverlapMode(s, mode)
		run[mode+" mlp"] = fitMLP(t, s, 4)
		run[mode+" cnn"] = flatWeights(mwFit(t, s, 3))
		w, l := mwLoop(t, s, 3)
		run[mode+" loop"] = append(flatWeights(w), l...)
	}
	for _, k := range []string{"mlp", "cnn", "loop"} {
		bitwiseEqual(t, "after vs hook "+k, run["after "+k], run["hook "+k])
		bitwiseEqual(t, "on vs hook "+k, run["on "+k], run["hook "+k])
	}
}

// TestOverlapStartsDuringBackward shows the overlap without timing: the
// test holds the backward pass at its last gradient until the
// communication goroutine has started a bucket. With the all-reduce
// after the backward pass that would never happen (NoOverlap below: no
// bucket starts while the last gradient is held).
func TestOverlapStartsDuringBackward(t *testing.T) {
	if mpirun.Worker() {
		t.Skip("inside mpirun")
	}
	for _, mode := range []string{"on", "after"} {
		t.Run(mode, func(t *testing.T) {
			if err := distribute.SetLogicalCPUs(2); err != nil {
				t.Fatal(err)
			}
			s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.LocalDevices(devices(2)...),
				distribute.Communication(distribute.CommunicationOptions{BytesPerPack: 1024}))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			distribute.SetOverlapMode(s, mode)
			var mu sync.Mutex
			var log []string
			reports := map[int]int{}  // per group: ready reports so far
			started := map[int]bool{} // per group: a bucket started
			startedCh := map[int]chan struct{}{}
			ch := func(g int) chan struct{} {
				if startedCh[g] == nil {
					startedCh[g] = make(chan struct{})
				}
				return startedCh[g]
			}
			heldWith, heldWithout := 0, 0
			distribute.SetOverlapEvents(s, func(e distribute.OverlapEvent) {
				mu.Lock()
				switch e.Kind {
				case "start":
					log = append(log, fmt.Sprintf("g%d start bucket %d/%d", e.Group, e.Bucket, e.Buckets))
					if !started[e.Group] {
						started[e.Group] = true
						if e.Bucket != e.Buckets-1 {
							t.Errorf("group %d: bucket %d of %d reduced first, want the last", e.Group, e.Bucket, e.Buckets)
						}
						close(ch(e.Group))
					}
				case "ready":
					reports[e.Group]++
					if reports[e.Group] == 2*e.Buffers && e.Buckets > 1 {
						// The last gradient of the step: hold it.
						c := ch(e.Group)
						mu.Unlock()
						wait := 20 * time.Second
						if mode == "after" {
							wait = 200 * time.Millisecond
						}
						select {
						case <-c:
							mu.Lock()
							heldWith++
						case <-time.After(wait):
							mu.Lock()
							heldWithout++
						}
						log = append(log, fmt.Sprintf("g%d last gradient (buffer %d) released", e.Group, e.Buffer))
					}
				}
				mu.Unlock()
			})
			fitMLP(t, s, 3)
			mu.Lock()
			defer mu.Unlock()
			t.Logf("%s: %d steps held until a bucket started, %d without; first events: %s", mode, heldWith, heldWithout, strings.Join(log[:min(len(log), 6)], "; "))
			switch {
			case mode == "on" && (heldWith != 3 || heldWithout != 0):
				t.Errorf("overlap: %d of 3 steps started a bucket before their last gradient (%d did not)", heldWith, heldWithout)
			case mode == "after" && (heldWith != 0 || heldWithout != 3):
				t.Errorf("NoOverlap: %d of 3 steps started a bucket before their last gradient, want none", heldWith)
			}
		})
	}
}

// TestMWWorkerOverlap is one worker of TestMultiWorkerMPI/Overlap: Fit of
// the MLP and of the small CNN in the three modes, weights written per
// rank and mode.
func TestMWWorkerOverlap(t *testing.T) {
	if !mpirun.Worker() {
		t.Skip("runs under mpirun (TestMultiWorkerMPI launches it)")
	}
	local, _ := strconv.Atoi(os.Getenv("GOKERAS_MW_LOCAL"))
	out := os.Getenv("GOKERAS_MW_OUT")
	if err := distribute.SetLogicalCPUs(max(local, 1)); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMultiWorkerMirroredStrategy(distribute.CollectiveTimeout(60*time.Second),
		distribute.Communication(distribute.CommunicationOptions{Implementation: implementation(os.Getenv("GOKERAS_MW_IMPL")), BytesPerPack: 1024}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	modes := strings.Split(os.Getenv("GOKERAS_MW_MODES"), ",")
	for _, mode := range modes {
		distribute.SetOverlapMode(s, mode)
		w := append(fitMLP(t, s, 4), flatWeights(mwFit(t, s, 3+uint64(s.Rank())))...)
		if st := s.TakeCommunicationStats(); mode == "on" && (!st.Overlapped || st.Reduce <= 0) {
			t.Fatalf("mode on: no overlapped all-reduce ran (%+v); MPI's thread level is %s", st, mpi.ThreadLevel())
		}
		writeFloats(t, filepath.Join(out, mode+"_rank"+strconv.Itoa(s.Rank())), w)
	}
}

// mpiOverlap: under mpirun, the weights after Fit are bitwise equal on
// every rank and in every mode: overlapped buckets, the same buckets
// after the backward pass, and (on 2 workers, where a sum of two values
// does not depend on how the buffer is cut into calls) the hook's one
// all-reduce of everything. On 3 workers the buckets change which ring
// step sums which element, so only the two bucketed modes are compared.
func mpiOverlap(t *testing.T, bin string) {
	for _, c := range []struct {
		np, local int
		impl      string
		modes     []string
	}{{2, 1, "AUTO", []string{"hook", "after", "on"}}, {2, 2, "RING", []string{"hook", "after", "on"}}, {3, 1, "RING", []string{"after", "on"}}} {
		out := t.TempDir()
		name := strconv.Itoa(c.np) + "x" + strconv.Itoa(c.local) + " " + c.impl
		r := mpirun.Run(c.np, bin, "^TestMWWorkerOverlap$", 120*time.Second,
			"GOKERAS_MW_LOCAL="+strconv.Itoa(c.local), "GOKERAS_MW_OUT="+out, "GOKERAS_MW_IMPL="+c.impl,
			"GOKERAS_MW_MODES="+strings.Join(c.modes, ","))
		mpirun.Check(t, r, name)
		if n := strings.Count(r.Output, "--- PASS: TestMWWorkerOverlap"); n != c.np {
			t.Fatalf("%s: %d of %d workers passed\n%s", name, n, c.np, r.Output)
		}
		ref := readFloats(t, filepath.Join(out, c.modes[0]+"_rank0"))
		for _, mode := range c.modes {
			for rank := 0; rank < c.np; rank++ {
				got := readFloats(t, filepath.Join(out, mode+"_rank"+strconv.Itoa(rank)))
				bitwiseEqual(t, fmt.Sprintf("%s %s rank %d vs %s rank 0", name, mode, rank, c.modes[0]), got, ref)
			}
		}
		t.Logf("%s: %v bitwise equal on all ranks (%d weights; mpirun %v)", name, c.modes, len(ref), r.Took.Round(time.Millisecond))
	}
}
