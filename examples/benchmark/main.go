// Command benchmark times one training step (forward, backward, optimizer
// update and, with replicas, the all-reduce) of the seed models after
// warm-up, and prints the result in the PyTorch reference's format:
//
//	step model=mnist_cnn batch=64 threads=2 ms_per_step=... samples_per_s=...
//
// With -compare it also times inference (Predict on the same batch) and one
// Fit epoch over a synthetic dataset in a fresh process (-fit-only), then
// runs the references as subprocesses with the same model, batch, steps and
// threads, and prints a table side by side: step ms (mean and median), the
// ratio to gokeras' step (above 1: gokeras is faster), inference ms per
// batch, and the peak RSS of the step process and of the Fit-epoch process.
// Before the references it sleeps 2 s and prints the CPU time gokeras used
// meanwhile (idle line): worker goroutines that keep spinning would show.
// The references:
//
//   - TensorFlow: tools/tf_reference/tf_reference.py (-tf-reference or
//     $GOKERAS_TF_REFERENCE; run from the repository root it is found
//     itself), Keras' fit step under tf.function with jit_compile off and,
//     as tensorflow_xla, on (-jit). Interpreter: -tf-python,
//     $GOKERAS_TF_PYTHON, the pinned virtualenv ~/.cache/gokeras-keras-ref,
//     else python3.
//   - PyTorch: torch_reference.py (-reference or $GOKERAS_TORCH_REFERENCE)
//     for the step, and tools/tf_reference/torch_extra.py beside
//     tf_reference.py for inference and the Fit epoch. Interpreter: -python
//     (Debian's python3-torch is seen by /usr/bin/python3).
//
// A reference that is not available is skipped with a line saying why.
//
// -width F times the seed CNN with 32·F and 64·F filters (0.5, 1, 2, 4;
// the dense layers as the seed has them) and passes --width to the
// references (PyTorch's step then comes from torch_width.py beside
// tf_reference.py). -floor-gflops G (the machine's peak for the threads
// used: one core's GEMM rate x threads) adds the step's GEMM FLOPs and its
// arithmetic floor to the step line:
//
//	step ... gflop=0.9854 floor_ms=2.593 floor_ratio=7.00
//
// floor_ratio is ms_per_step / floor_ms (docs/performance.md, "The machine
// and the arithmetic floor"; tools/cost_growth.sh sweeps batch and width).
// -flops prints that count alone (a flops line with flop= and gflop=) and
// exits. -opstats prints the wall time of each op kind per timed step.
//
// With -policy NAME (mixed_bfloat16, mixed_float16) it builds the model
// under float32 and under NAME, warms both up and times them in
// alternating rounds of -steps steps (-rounds; on a shared machine both
// see the same load), prints a step line for each, then their ratio:
//
//	policy model=mnist_cnn ... float32_ms=... mixed_bfloat16_ms=... speedup=... float32_cpu_ms=... cpu_speedup=... load=...
//
// speedup is float32's median step over the policy's (above 1: the policy
// is faster); cpu_speedup is the same ratio of the process' CPU time per
// step (user + system), which a loaded machine disturbs less than wall
// time when -threads is 1. -compare's table and Fit epoch stay float32.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/examples/internal/cli"
	"github.com/gokeras/gokeras/examples/internal/models"
	"github.com/gokeras/gokeras/internal/cuda"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"gorgonia.org/tensor"
)

func main() {
	model := flag.String("model", "mnist_cnn", "mnist_cnn or resnet_seed")
	width := flag.Float64("width", 1, "mnist_cnn only: the convolutions' filters x width (0.5, 1, 2, 4: 32·width and 64·width filters; the dense layers as the seed)")
	floorGFLOPs := flag.Float64("floor-gflops", 0, "the machine's peak GFLOP/s for the threads used (one core's GEMM rate x threads): the step line adds the step's GEMM GFLOP, the floor in ms and ms_per_step / floor_ms (0: not printed)")
	flopsOnly := flag.Bool("flops", false, "print the step's GEMM FLOPs (a flops line) and exit, timing nothing")
	opStatsShapes := flag.Bool("opstats-shapes", false, "as -opstats, with an op line per op kind and operand shapes (engine.EnableOpStatsByShape)")
	opStats := flag.Bool("opstats", false, "time each op kind over the timed steps (engine.EnableOpStats) and print an op line per kind, ms per step, largest first (with -policy: of the named policy, timed after the alternation)")
	batch := flag.Int("batch", 64, "global batch size")
	steps := flag.Int("steps", 50, "timed steps")
	warmup := flag.Int("warmup", 3, "untimed steps first (tracing, buffer allocation)")
	replicaList := flag.String("replicas", "1", "MirroredStrategy replicas (logical CPUs); a list such as 1,2 times each and prints the scaling")
	threadsFlag := flag.Int("threads", 0, "GOMAXPROCS, and the references' threads (0: GOMAXPROCS as set)")
	compare := flag.Bool("compare", false, "also time inference and a Fit epoch, run the TensorFlow and PyTorch references, and print them side by side")
	reference := flag.String("reference", "", "path of torch_reference.py for -compare (default: $"+envReference+")")
	python := flag.String("python", "/usr/bin/python3", "interpreter for the PyTorch reference")
	tfRefFlag := flag.String("tf-reference", "", "path of tf_reference.py for -compare (default: $"+envTFReference+", else tools/tf_reference/tf_reference.py)")
	tfPyFlag := flag.String("tf-python", "", "interpreter with TensorFlow for -compare (default: $"+envTFPython+", ~/.cache/gokeras-keras-ref/bin/python, python3)")
	jitList := flag.String("jit", "off,on", "TensorFlow jit_compile settings to run for -compare: off, on or off,on")
	fitSamples := flag.Int("fit-samples", 0, "examples in the synthetic dataset of the Fit-epoch measurement (0: batch x steps)")
	inferSteps := flag.Int("infer-steps", 0, "timed inference batches for -compare (0: as -steps)")
	policy := cli.PolicyFlag()
	rounds := flag.Int("rounds", 3, "with -policy other than float32: alternating timing rounds of -steps steps per policy")
	fitOnly := flag.Bool("fit-only", false, "fit one epoch on -fit-samples synthetic examples and print the fit line with the peak RSS (what -compare runs in a fresh process)")
	flag.Parse()
	if *opStatsShapes {
		*opStats, opsByShape = true, true
	}
	cli.MustCheck(cli.Positive("batch", "steps", "rounds"), cli.NonNegative("warmup", "threads", "fit-samples", "infer-steps"))
	spec := modelSpec{name: *model, width: *width}
	if err := spec.check(); err != nil {
		log.Fatal(err)
	}
	widthField := ""
	if spec.width != 1 {
		widthField = fmt.Sprintf(" width=%g", spec.width)
	}
	if *gpuKindsFlag {
		if !cuda.Enabled {
			log.Fatal("-gpu-kinds needs a cuda build (tools/gpu/build.sh build ./examples/benchmark OUT): this one has no GPU builders")
		}
		missing, err := gpuKinds(os.Stdout, spec, 8)
		if err != nil {
			log.Fatal(err)
		}
		if len(missing) > 0 {
			log.Fatalf("op kinds of %s's train step without a GPU kernel: %v", *model, missing)
		}
		return
	}
	if *graphsFlag != "" {
		settings, err := parseGraphs(*graphsFlag)
		if err != nil {
			log.Fatal(err)
		}
		if err := timeGraphs(os.Stdout, spec, settings, *batch, *steps, *warmup); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *flopsOnly {
		m, _, err := spec.build()
		if err != nil {
			log.Fatal(err)
		}
		f, err := models.StepFLOPs(m, *batch)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("flops model=%s batch=%d flop=%.0f gflop=%.4f%s\n", *model, *batch, f, f/1e9, widthField)
		return
	}
	// extra ends each step line: the width when not 1, the floor when asked.
	extra := func(float64) string { return "" }
	if *floorGFLOPs != 0 { // floorOf refuses a negative peak
		f, err := floorOf(spec, *batch, *floorGFLOPs)
		if err != nil {
			log.Fatal(err)
		}
		extra = f.fields
	}
	cli.MustSetPolicy(*policy) // checked before timing; the models are built under it by timePolicies
	cli.MustSetPolicy("float32")
	if *threadsFlag > 0 {
		runtime.GOMAXPROCS(*threadsFlag)
	}
	threads := runtime.GOMAXPROCS(0)
	samples := *fitSamples
	if samples == 0 {
		samples = *batch * *steps
	}
	if *fitOnly {
		s, err := fitEpoch(spec, *batch, samples)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("fit model=%s batch=%d threads=%d samples=%d seconds=%.2f peak_rss_kb=%.0f impl=gokeras%s\n",
			*model, *batch, threads, samples, s, selfPeakKB(), widthField)
		return
	}
	var jits []string
	if *compare {
		// Checked before timing, so a bad flag fails at once.
		for _, j := range strings.Split(*jitList, ",") {
			if j = strings.TrimSpace(j); j != "off" && j != "on" {
				log.Fatalf("-jit: %q is neither off nor on", j)
			}
			jits = append(jits, strings.TrimSpace(j))
		}
	}
	ours := newResult("gokeras")
	var rates []string
	for _, f := range strings.Split(*replicaList, ",") {
		replicas, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || replicas < 1 {
			log.Fatalf("-replicas: %q is not a replica count", f)
		}
		infer := 0
		if *compare && math.IsNaN(ours.stepMS) {
			infer = *inferSteps
			if infer == 0 {
				infer = *steps
			}
		}
		if *policy != "float32" {
			ts, err := timePolicies(spec, *batch, *steps, *warmup, replicas, *rounds, []string{"float32", *policy})
			if err != nil {
				log.Fatal(err)
			}
			for i, p := range []string{"float32", *policy} {
				fmt.Printf("step model=%s batch=%d threads=%d ms_per_step=%.2f median_ms=%.2f samples_per_s=%.0f replicas=%d policy=%s impl=gokeras%s%s\n",
					*model, *batch, threads, ts[i].mean, ts[i].median, float64(*batch)/ts[i].mean*1e3, replicas, p, widthField, extra(ts[i].mean))
			}
			fmt.Printf("policy model=%s batch=%d threads=%d replicas=%d rounds=%d float32_ms=%.2f %s_ms=%.2f speedup=%.2f float32_cpu_ms=%.2f %s_cpu_ms=%.2f cpu_speedup=%.2f load=%s\n",
				*model, *batch, threads, replicas, *rounds, ts[0].median, *policy, ts[1].median, ts[0].median/ts[1].median,
				ts[0].cpu, *policy, ts[1].cpu, ts[0].cpu/ts[1].cpu, loadAverage())
			if math.IsNaN(ours.stepMS) {
				ours.stepMS, ours.medianMS, ours.inferMS = ts[0].mean, ts[0].median, math.NaN()
			}
			if *opStats { // op lines of the named policy, from a run of its own after the alternation
				cli.MustSetPolicy(*policy)
				timeOps = true
				t, err := timeSteps(spec, *batch, *steps, *warmup, replicas, 0)
				timeOps = false
				cli.MustSetPolicy("float32")
				if err != nil {
					log.Fatal(err)
				}
				printOpStats(os.Stdout, *model, *batch, *steps, t.ops)
			}
			continue
		}
		timeOps = *opStats
		t, err := timeSteps(spec, *batch, *steps, *warmup, replicas, infer)
		if err != nil {
			log.Fatal(err)
		}
		if math.IsNaN(ours.stepMS) {
			ours.stepMS, ours.medianMS, ours.inferMS = t.mean, t.median, t.infer
		}
		fmt.Printf("step model=%s batch=%d threads=%d ms_per_step=%.2f median_ms=%.2f samples_per_s=%.0f replicas=%d impl=gokeras%s%s\n",
			*model, *batch, threads, t.mean, t.median, float64(*batch)/t.mean*1e3, replicas, widthField, extra(t.mean))
		printOpStats(os.Stdout, *model, *batch, *steps, t.ops)
		rates = append(rates, fmt.Sprintf("%d:%.0f", replicas, float64(*batch)/t.mean*1e3))
	}
	if len(rates) > 1 {
		fmt.Printf("scaling model=%s batch=%d samples_per_s_by_replicas=%s\n", *model, *batch, strings.Join(rates, ","))
	}
	if !*compare {
		return
	}
	ours.peakKB = selfPeakKB()
	// CPU burnt while idle after the last step (spinning workers would show).
	cpu0 := selfCPUSeconds()
	time.Sleep(2 * time.Second)
	fmt.Printf("idle model=%s threads=%d cpu_ms_in_2s=%.1f impl=gokeras\n", *model, threads, (selfCPUSeconds()-cpu0)*1e3)
	ours.version = runtime.Version()
	common := []string{"--model", *model, "--batch", fmt.Sprint(*batch), "--threads", fmt.Sprint(threads)}
	stepArgs := append(slices.Clone(common), "--steps", fmt.Sprint(*steps))
	fitArgs := append(slices.Clone(common), "--samples", fmt.Sprint(samples))
	tfWidth := spec.widthArgs("--width")
	inferN := *inferSteps
	if inferN == 0 {
		inferN = *steps
	}
	if exe, err := os.Executable(); err != nil {
		fmt.Printf("skip gokeras fit epoch: %v\n", err)
	} else if err := runLine(&ours, "fit", exe, append([]string{"-fit-only", "-model", *model, "-batch", fmt.Sprint(*batch),
		"-threads", fmt.Sprint(threads), "-fit-samples", fmt.Sprint(samples)}, spec.widthArgs("-width")...)...); err != nil {
		fmt.Printf("skip gokeras fit epoch: %v\n", err)
	}
	rows := []result{ours}

	tfRef, err := tfReferencePath(*tfRefFlag, os.Getenv(envTFReference))
	if err != nil {
		fmt.Printf("skip tensorflow: %v\n", err)
	} else {
		py := tfPython(*tfPyFlag, os.Getenv(envTFPython), homeDir())
		for _, j := range jits {
			r := newResult("tensorflow")
			if j == "on" {
				r.impl = "tensorflow_xla"
			}
			jit := append([]string{"--jit", j}, tfWidth...)
			err := runLine(&r, "step", py, append(append([]string{tfRef, "step"}, stepArgs...), append(jit, "--infer-steps", fmt.Sprint(inferN))...)...)
			if err == nil {
				err = runLine(&r, "fit", py, append(append([]string{tfRef, "fit"}, fitArgs...), jit...)...)
			}
			if err != nil {
				fmt.Printf("skip %s: %v\n", r.impl, err)
				continue
			}
			rows = append(rows, r)
		}
	}

	ref, err := referencePath(*reference, os.Getenv(envReference))
	switch {
	case err != nil:
		fmt.Printf("skip pytorch: %v\n", err)
	case spec.width != 1 && tfRef == "":
		fmt.Println("skip pytorch: -width needs torch_width.py, which lives beside tf_reference.py, which was not found")
	case spec.width != 1:
		// torch_reference.py builds the seed only: torch_width.py builds the
		// same CNN at the width and times its step the same way.
		r := newResult("pytorch")
		tw := filepath.Join(filepath.Dir(tfRef), "torch_width.py")
		if err := runLine(&r, "step", *python, append(append([]string{tw, "--torch-reference", ref, "step"}, stepArgs...), tfWidth...)...); err != nil {
			fmt.Printf("skip pytorch: %v\n", err)
		} else {
			fmt.Printf("ratio model=%s batch=%d torch_over_ours=%.2f\n", *model, *batch, r.stepMS/ours.stepMS)
			fmt.Println("skip pytorch inference and fit epoch: torch_extra.py builds the seed width only")
			rows = append(rows, r)
		}
	default:
		r := newResult("pytorch")
		if err := runLine(&r, "step", *python, append([]string{ref, "step"}, stepArgs...)...); err != nil {
			fmt.Printf("skip pytorch: %v (is python3-torch installed? apt-get install -y python3-torch)\n", err)
		} else {
			fmt.Printf("ratio model=%s batch=%d torch_over_ours=%.2f\n", *model, *batch, r.stepMS/ours.stepMS)
			if tfRef == "" {
				fmt.Println("skip pytorch inference and fit epoch: torch_extra.py lives beside tf_reference.py, which was not found")
			} else {
				extra := filepath.Join(filepath.Dir(tfRef), "torch_extra.py")
				x := []string{extra, "--torch-reference", ref}
				err := runLine(&r, "infer", *python, append(append(slices.Clone(x), "infer"), append(slices.Clone(common), "--steps", fmt.Sprint(inferN))...)...)
				if err == nil {
					err = runLine(&r, "fit", *python, append(append(slices.Clone(x), "fit"), fitArgs...)...)
				}
				if err != nil {
					fmt.Printf("skip pytorch inference or fit epoch: %v\n", err)
				}
			}
			rows = append(rows, r)
		}
	}
	printTable(os.Stdout, fmt.Sprintf("compare model=%s batch=%d threads=%d fit_samples=%d load=%s%s (ratio = step_ms / gokeras step_ms; above 1: gokeras is faster)",
		*model, *batch, threads, samples, loadAverage(), widthField), rows)
}

func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}

// stepTimes are one timing run's figures in ms; cpu is the process' CPU
// time per step (timePolicies only, NaN where not measured).
type stepTimes struct {
	mean, median, infer, cpu float64
	ops                      []engine.OpStat // timeSteps with timeOps: per op kind over the timed steps
}

// timeOps makes timeSteps time each op kind over its timed steps
// (engine.EnableOpStats; -opstats), by operand shapes too with opsByShape
// (-opstats-shapes).
var timeOps, opsByShape bool

// setup builds the model under a strategy with the given replicas and
// compiles it with Adam (lr 1e-3, epsilon 1e-7, as the references) and
// sparse categorical cross-entropy from logits.
func setup(spec modelSpec, replicas int) (*keras.Model, []int, error) {
	if err := distribute.SetLogicalCPUs(replicas); err != nil {
		return nil, nil, err
	}
	s, err := distribute.NewMirroredStrategy()
	if err != nil {
		return nil, nil, err
	}
	layers.SetRandomSeed(0)
	exit := s.Scope()
	defer exit()
	m, shape, err := spec.build()
	if err == nil {
		err = m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewSparseCategoricalCrossentropy(losses.FromLogits(true))})
	}
	return m, shape, err
}

// synthetic returns n fixed random examples of the given shape in [0, 1)
// and labels in 0..9.
func synthetic(shape []int, n int) (x, y *tensor.Dense) {
	r := rand.New(rand.NewPCG(0, 0))
	size := n
	for _, d := range shape {
		size *= d
	}
	xs := make([]float32, size)
	for i := range xs {
		xs[i] = r.Float32()
	}
	ys := make([]float32, n)
	for i := range ys {
		ys[i] = float32(r.IntN(10))
	}
	return tensor.New(tensor.WithShape(append([]int{n}, shape...)...), tensor.WithBacking(xs)),
		tensor.New(tensor.WithShape(n), tensor.WithBacking(ys))
}

// timeSteps times Fit on one fixed random batch per step (mean and median
// of steps after warmup), then, when infer > 0, Predict on the same batch
// (median of infer calls after warmup).
func timeSteps(spec modelSpec, batch, steps, warmup, replicas, infer int) (stepTimes, error) {
	var t stepTimes
	m, shape, err := setup(spec, replicas)
	if err != nil {
		return t, err
	}
	x, y := synthetic(shape, batch)
	cfg := keras.FitConfig{BatchSize: batch, NoShuffle: true, Verbose: keras.VerboseSilent}
	for i := 0; i < warmup; i++ {
		if _, err := m.Fit(x, y, cfg); err != nil {
			return t, err
		}
	}
	cfg.StepsPerEpoch = 1
	ts := make([]float64, steps)
	if timeOps {
		if opsByShape {
			engine.EnableOpStatsByShape(true)
		} else {
			engine.EnableOpStats(true)
		}
	}
	start := time.Now()
	for i := range ts {
		s := time.Now()
		if _, err := m.Fit(x, y, cfg); err != nil {
			return t, err
		}
		ts[i] = float64(time.Since(s).Microseconds()) / 1e3
	}
	t.mean = float64(time.Since(start).Microseconds()) / 1e3 / float64(steps)
	if timeOps {
		t.ops = engine.OpStats()
		engine.EnableOpStats(false)
	}
	t.median = median(ts)
	t.infer = math.NaN()
	if infer > 0 {
		pcfg := keras.PredictConfig{BatchSize: batch, Verbose: keras.VerboseSilent}
		is := make([]float64, infer)
		for i := -max(warmup, 1); i < infer; i++ {
			s := time.Now()
			if _, err := m.Predict(x, pcfg); err != nil {
				return t, err
			}
			if i >= 0 {
				is[i] = float64(time.Since(s).Microseconds()) / 1e3
			}
		}
		t.infer = median(is)
	}
	return t, nil
}

// timePolicies builds the model once under each dtype policy, warms each
// up, then times rounds of steps Fit steps of each in turn (alternating,
// so that both see the same load), and returns each policy's mean and
// median step over all its rounds. The global policy is float32 after.
func timePolicies(spec modelSpec, batch, steps, warmup, replicas, rounds int, policies []string) ([]stepTimes, error) {
	type run struct {
		m        *keras.Model
		x        *tensor.Dense
		y        *tensor.Dense
		ts       []float64
		sum, cpu float64
	}
	defer cli.SetPolicy("float32")
	runs := make([]*run, len(policies))
	for i, p := range policies {
		if err := cli.SetPolicy(p); err != nil {
			return nil, err
		}
		m, shape, err := setup(spec, replicas)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		x, y := synthetic(shape, batch)
		runs[i] = &run{m: m, x: x, y: y}
	}
	cfg := keras.FitConfig{BatchSize: batch, NoShuffle: true, Verbose: keras.VerboseSilent}
	for _, r := range runs {
		for i := 0; i < max(warmup, 1); i++ {
			if _, err := r.m.Fit(r.x, r.y, cfg); err != nil {
				return nil, err
			}
		}
	}
	cfg.StepsPerEpoch = 1
	for range rounds {
		for _, r := range runs {
			start, cpu0 := time.Now(), selfCPUSeconds()
			for range steps {
				s := time.Now()
				if _, err := r.m.Fit(r.x, r.y, cfg); err != nil {
					return nil, err
				}
				r.ts = append(r.ts, float64(time.Since(s).Microseconds())/1e3)
			}
			r.sum += float64(time.Since(start).Microseconds()) / 1e3
			r.cpu += (selfCPUSeconds() - cpu0) * 1e3
		}
	}
	out := make([]stepTimes, len(runs))
	for i, r := range runs {
		out[i] = stepTimes{mean: r.sum / float64(len(r.ts)), median: median(r.ts), infer: math.NaN(), cpu: r.cpu / float64(len(r.ts))}
	}
	return out, nil
}

// fitEpoch fits one epoch (no shuffling) over samples synthetic examples
// and returns its wall time in seconds.
func fitEpoch(spec modelSpec, batch, samples int) (float64, error) {
	m, shape, err := setup(spec, 1)
	if err != nil {
		return 0, err
	}
	x, y := synthetic(shape, samples)
	start := time.Now()
	if _, err := m.Fit(x, y, keras.FitConfig{BatchSize: batch, NoShuffle: true, Verbose: keras.VerboseSilent}); err != nil {
		return 0, err
	}
	return time.Since(start).Seconds(), nil
}

// median returns the median of xs (NaN when empty); xs is reordered.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// envReference names the environment variable that gives the path of the
// PyTorch reference script when -reference is not given.
const envReference = "GOKERAS_TORCH_REFERENCE"

// referencePath picks the reference script: the flag, else the environment
// variable; it must name a regular file.
func referencePath(flagValue, envValue string) (string, error) {
	ref, from := flagValue, "-reference"
	if ref == "" {
		ref, from = envValue, "$"+envReference
	}
	if ref == "" {
		return "", fmt.Errorf("-compare needs the PyTorch reference script torch_reference.py: pass -reference PATH or set %s", envReference)
	}
	st, err := os.Stat(ref)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w (the PyTorch reference script torch_reference.py)", from, ref, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s %s: not a file (want the PyTorch reference script torch_reference.py)", from, ref)
	}
	return ref, nil
}
