//go:build cuda

package gpuexec

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"sync"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/cuda"
	"github.com/gokeras/gokeras/internal/cuda/kernels"
	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/cu"
)

// launchFn enqueues one step on the replica's compute stream.
type launchFn func(out cu.DevicePtr, ins []cu.DevicePtr) error

// builder prepares a step's GPU kernel for its shapes and attributes, once
// per program. ok false: this instance runs on the CPU.
type builder func(x *Exec, st *engine.PlanStep, shapes []ops.Shape) (launch launchFn, ok bool, err error)

var builders = map[string]builder{}

// register makes kind native through b (from init functions).
func register(kind string, b builder) {
	builders[kind] = b
	markNative(kind)
}

var verbose = os.Getenv("GOKERAS_CUDA_VERBOSE") != ""

// requireGraphs makes a failed CUDA graph capture an error of the step
// (GOKERAS_REQUIRE_GRAPHS=1, as tools/gpu's checks run) instead of a
// logged fallback to op-by-op replay.
var requireGraphs = os.Getenv("GOKERAS_REQUIRE_GRAPHS") == "1"

// Exec runs programs on one replica's logical GPU. It implements
// engine.Executor; one replica's goroutine uses it at a time.
type Exec struct {
	Rep   *cuda.Replica
	progs map[*engine.Program]*prog

	mu        sync.Mutex
	fallbacks map[string]int
	replays   int
	graphRuns int
	// graphFailures: the failed captures, one message each
	graphFailures []string
	// per-Exec state of the op families (cuDNN handle and plans, ...)
	ext map[string]any
	// preparing is the program prepare is building (for scratch).
	preparing *prog
	// statusWord is a device int64 the id and label kernels report to.
	statusWord cu.DevicePtr
	kernelsOK  bool
}

// scratch returns device work memory of bytes bytes owned by the program
// being prepared.
func (x *Exec) scratch(bytes int) (cu.DevicePtr, error) {
	if bytes <= 0 {
		return 0, nil
	}
	d, err := x.Rep.Malloc((bytes + 3) / 4)
	if err != nil {
		return 0, err
	}
	x.preparing.scratch = append(x.preparing.scratch, d)
	return d, nil
}

// status returns the status word, noting that the program being prepared
// must check it (kind names the op in the error).
func (x *Exec) status(kind string) (cu.DevicePtr, error) {
	if x.statusWord == 0 {
		d, err := x.Rep.Malloc(2)
		if err != nil {
			return 0, err
		}
		x.statusWord = d
	}
	x.preparing.status = append(x.preparing.status, kind)
	return x.statusWord, nil
}

var _ engine.Executor = (*Exec)(nil)

// New opens the logical GPU at p and returns its executor.
func New(p cuda.Placement) (engine.Executor, error) { return NewExec(p) }

// NewExec is [New] returning the concrete type.
func NewExec(p cuda.Placement) (*Exec, error) {
	rep, err := cuda.NewReplica(p)
	if err != nil {
		return nil, err
	}
	x := &Exec{Rep: rep, progs: map[*engine.Program]*prog{}, fallbacks: map[string]int{}, ext: map[string]any{}}
	// Load (JIT) our kernels now, so that no module loads during a CUDA
	// graph capture; without them their ops run on the CPU.
	if err := rep.Do(kernels.Load); err != nil {
		if os.Getenv("GOKERAS_REQUIRE_GPU") == "1" {
			return nil, fmt.Errorf("gpuexec: our CUDA kernels did not load (GOKERAS_REQUIRE_GPU=1): %w", err)
		}
		logging.Warnf("gpuexec: our CUDA kernels did not load, their ops run on the CPU: %v", err)
	} else {
		x.kernelsOK = true
	}
	return x, nil
}

type prog struct {
	p      *engine.Program
	pl     *engine.Plan
	dev    []cu.DevicePtr
	host   [][]float32
	launch []launchFn // per step; nil: the CPU kernel
	native bool
	runs   int
	graph  *cuda.Graph
	// noGraph: capture failed once; replay step by step.
	noGraph bool
	// fetch: buffers read on the host after the steps (hook inputs and
	// outputs), each once.
	fetch []int
	// scratch: work buffers of the steps' kernels.
	scratch []cu.DevicePtr
	// status: steps whose kernels record bad ids or labels in the
	// executor's status word, checked after the steps.
	status []string
}

// Fallbacks returns, per op kind, how many steps of the prepared programs
// run their CPU kernel.
func (x *Exec) Fallbacks() map[string]int {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make(map[string]int, len(x.fallbacks))
	for k, v := range x.fallbacks {
		out[k] = v
	}
	return out
}

// GraphReplays returns how many replays were CUDA graph launches, of all.
func (x *Exec) GraphReplays() (graphRuns, replays int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.graphRuns, x.replays
}

// GraphFailures returns the messages of the CUDA graph captures that
// failed (each program then replays op by op).
func (x *Exec) GraphFailures() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.graphFailures...)
}

// Stats returns the replica's device memory counters.
func (x *Exec) Stats() cuda.Stats { return x.Rep.Stats() }

func (x *Exec) hostBuf(pr *prog, b int) []float32 {
	if pr.host[b] == nil {
		pr.host[b] = make([]float32, max(pr.pl.Shapes[b].Size(), 1))[:pr.pl.Shapes[b].Size()]
	}
	return pr.host[b]
}

// prepare allocates the program's device buffers, uploads its constants
// and builds its kernels. Inside Do.
func (x *Exec) prepare(p *engine.Program) (*prog, error) {
	pl := p.Plan()
	pr := &prog{p: p, pl: pl, dev: make([]cu.DevicePtr, len(pl.Shapes)), host: make([][]float32, len(pl.Shapes)), native: true}
	alloc := func(b int) error {
		if pr.dev[b] != 0 {
			return nil
		}
		d, err := x.Rep.Malloc(pl.Shapes[b].Size())
		if err != nil {
			return fmt.Errorf("gpuexec: buffer %d of shape %v: %w", b, pl.Shapes[b], err)
		}
		pr.dev[b] = d
		return nil
	}
	for _, b := range pl.Inputs {
		if err := alloc(b); err != nil {
			return nil, err
		}
	}
	for _, b := range pl.VarBufs {
		if err := alloc(b); err != nil {
			return nil, err
		}
	}
	consts := make([]int, 0, len(pl.Constants))
	for b := range pl.Constants {
		consts = append(consts, b)
	}
	sort.Ints(consts)
	for _, b := range consts {
		if err := alloc(b); err != nil {
			return nil, err
		}
		if err := x.Rep.UploadSync(pr.dev[b], pl.Constants[b][:pl.Shapes[b].Size()]); err != nil {
			return nil, fmt.Errorf("gpuexec: constant of shape %v: %w", pl.Shapes[b], err)
		}
	}
	for _, st := range pl.Steps {
		if err := alloc(st.Out); err != nil {
			return nil, err
		}
	}
	for _, v := range pl.Views {
		pr.dev[v.Out] = pr.dev[v.In]
	}
	for _, st := range pl.Steps {
		for _, b := range st.Ins {
			if pr.dev[b] == 0 {
				return nil, fmt.Errorf("gpuexec: step %s reads buffer %d that nothing binds", st.Kind, b)
			}
		}
	}
	pr.launch = make([]launchFn, len(pl.Steps))
	x.mu.Lock()
	defer x.mu.Unlock()
	x.preparing = pr
	defer func() { x.preparing = nil }()
	for i := range pl.Steps {
		st := &pl.Steps[i]
		if b := builders[st.Kind]; b != nil {
			l, ok, err := safeBuild(b, x, st, pl.Shapes)
			if err != nil {
				return nil, fmt.Errorf("gpuexec: preparing %s %v -> %v: %w", st.Kind, shapesOf(pl.Shapes, st.Ins), pl.Shapes[st.Out], err)
			}
			if ok {
				if st.Op != nil && st.Op.RoundsBFloat16() {
					// The op with its output's CastToBFloat16 fused (ops/
					// cast_fused.go): the op, then the rounding in place
					// (on the host without our kernels).
					if x.kernelsOK {
						l = x.roundedOnDevice(pl.Shapes[st.Out].Size(), l)
					} else {
						l = x.roundedOnHost(pr, st, l)
						pr.native = false
						x.fallbacks["CastToBFloat16"]++
					}
				}
				pr.launch[i] = l
				continue
			}
		}
		pr.native = false
		x.fallbacks[st.Kind]++
	}
	sameFamily(pr, func(kind string) {
		pr.native = false
		x.fallbacks[kind]++
	})
	seen := map[int]bool{}
	for _, h := range pl.Hooks {
		for _, b := range h.Ins {
			if !seen[b] {
				seen[b] = true
				pr.fetch = append(pr.fetch, b)
			}
		}
	}
	for _, b := range pl.Outputs {
		if !seen[b] {
			seen[b] = true
			pr.fetch = append(pr.fetch, b)
		}
	}
	if verbose {
		var fb []string
		for i, l := range pr.launch {
			if l == nil {
				fb = append(fb, pl.Steps[i].Kind)
			}
		}
		st := x.Rep.Stats()
		logging.Infof("gpuexec: %s logical %d: program of %d steps, %d on the CPU %v; device memory in use %.1f MiB, peak %.1f MiB, held %.1f MiB",
			cuda.DeviceName(x.Rep.Place.Device), x.Rep.Place.Logical, len(pl.Steps), len(fb), fb,
			float64(st.InUse)/(1<<20), float64(st.Peak)/(1<<20), float64(st.Reserved)/(1<<20))
	}
	return pr, nil
}

// roundedOnDevice returns launch l followed by the rounding of its n
// outputs to bfloat16 in place (kernels.RoundBFloat16, bitwise
// ops.RoundBFloat16).
func (x *Exec) roundedOnDevice(n int, l launchFn) launchFn {
	return func(out cu.DevicePtr, ins []cu.DevicePtr) error {
		if err := l(out, ins); err != nil {
			return err
		}
		return kernels.RoundBFloat16(x.Rep.Compute, out, out, n)
	}
}

// roundedOnHost returns launch l followed by the rounding of the step's
// output to bfloat16 on the host (downloaded, rounded as
// ops.CastToBFloat16 rounds, uploaded), where our kernels did not load.
func (x *Exec) roundedOnHost(pr *prog, st *engine.PlanStep, l launchFn) launchFn {
	return func(out cu.DevicePtr, ins []cu.DevicePtr) error {
		if err := l(out, ins); err != nil {
			return err
		}
		h := x.hostBuf(pr, st.Out)
		if err := x.Rep.Download(h, out); err != nil {
			return err
		}
		for i, v := range h {
			h[i] = ops.RoundBFloat16(v)
		}
		return x.Rep.UploadSync(out, h)
	}
}

// safeBuild runs a builder; one that panics (attributes of an unexpected
// form) leaves the step on the CPU.
func safeBuild(b builder, x *Exec, st *engine.PlanStep, shapes []ops.Shape) (l launchFn, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			if verbose {
				logging.Infof("gpuexec: no GPU kernel for %s: %v", st.Kind, r)
			}
			l, ok, err = nil, false, nil
		}
	}()
	return b(x, st, shapes)
}

func shapesOf(shapes []ops.Shape, bufs []int) []ops.Shape {
	out := make([]ops.Shape, len(bufs))
	for i, b := range bufs {
		out[i] = shapes[b]
	}
	return out
}

// RunProgram implements engine.Executor.
func (x *Exec) RunProgram(p *engine.Program, rc ops.ReplicaContext, inputs []ops.Value) (outs []ops.Value, err error) {
	if rc == nil {
		rc = engine.Single{}
	}
	err = x.Rep.Do(func() error {
		pr := x.progs[p]
		if pr == nil {
			var err error
			if pr, err = x.prepare(p); err != nil {
				return err
			}
			x.progs[p] = pr
		}
		var err error
		outs, err = x.run(pr, rc, inputs)
		return err
	})
	return outs, err
}

func (x *Exec) run(pr *prog, rc ops.ReplicaContext, inputs []ops.Value) ([]ops.Value, error) {
	pl := pr.pl
	if len(inputs) != len(pl.Inputs) {
		return nil, fmt.Errorf("gpuexec: %d inputs for a program traced with %d", len(inputs), len(pl.Inputs))
	}
	for i, in := range inputs {
		s := pl.Shapes[pl.Inputs[i]]
		if !in.Shape.Equal(s) || len(in.Data) < s.Size() {
			return nil, fmt.Errorf("gpuexec: input %d has shape %v (%d values), traced with %v", i, in.Shape, len(in.Data), s)
		}
	}
	replica := rc.ReplicaID()
	for _, v := range pl.Vars {
		if replica >= v.Replicas() {
			return nil, fmt.Errorf("gpuexec: variable %q has %d copies, none for replica %d: it was created outside the strategy's scope", v.Name(), v.Replicas(), replica)
		}
	}
	// Uploads: the batch and the variables, through pinned memory on the
	// copy stream.
	if err := x.Rep.BeginUploads(); err != nil {
		return nil, err
	}
	for i, in := range inputs {
		b := pl.Inputs[i]
		if err := x.Rep.Upload(pr.dev[b], in.Data[:pl.Shapes[b].Size()]); err != nil {
			return nil, fmt.Errorf("gpuexec: input %d: %w", i, err)
		}
	}
	for i, v := range pl.Vars {
		b := pl.VarBufs[i]
		if err := x.Rep.Upload(pr.dev[b], v.Data(replica)[:pl.Shapes[b].Size()]); err != nil {
			return nil, fmt.Errorf("gpuexec: variable %q: %w", v.Name(), err)
		}
	}
	if err := x.Rep.EndUploads(); err != nil {
		return nil, err
	}
	pr.p.Trace().BindReplicaContext(rc)
	pr.runs++
	usedGraph := false
	if pr.native && Graphs() && !pr.noGraph && pr.runs >= 3 {
		if pr.graph == nil {
			g, err := cuda.Capture(x.Rep.Compute, func() error { return x.steps(pr) })
			if err != nil {
				// Surfaced: logged (once per program), counted, and an
				// error where GOKERAS_REQUIRE_GRAPHS=1 (the GPU checks).
				pr.noGraph = true
				msg := fmt.Sprintf("gpuexec: %s logical %d: CUDA graph capture of a program of %d steps failed, replaying it op by op: %v",
					cuda.DeviceName(x.Rep.Place.Device), x.Rep.Place.Logical, len(pl.Steps), err)
				logging.Warnf("%s", msg)
				x.mu.Lock()
				x.graphFailures = append(x.graphFailures, msg)
				x.mu.Unlock()
				if requireGraphs {
					return nil, fmt.Errorf("%s (GOKERAS_REQUIRE_GRAPHS=1)", msg)
				}
			} else {
				pr.graph = g
			}
		}
		if pr.graph != nil {
			if err := pr.graph.Launch(x.Rep.Compute); err != nil {
				return nil, fmt.Errorf("gpuexec: %w", err)
			}
			usedGraph = true
		}
	}
	if !usedGraph {
		if err := x.steps(pr); err != nil {
			return nil, err
		}
	}
	x.mu.Lock()
	x.replays++
	if usedGraph {
		x.graphRuns++
	}
	x.mu.Unlock()
	if len(pr.status) > 0 {
		var w [2]float32
		if err := x.Rep.Download(w[:], x.statusWord); err != nil {
			return nil, fmt.Errorf("gpuexec: reading the status word: %w", err)
		}
		if at := int64(math.Float32bits(w[0])) | int64(math.Float32bits(w[1]))<<32; at != kernels.StatusOK {
			return nil, fmt.Errorf("engine: ops: %v: an id or label out of range at position %d", pr.status, at)
		}
	}
	// The hooks' inputs and the outputs come to the host, once each; the
	// hooks run there and may change them in place, as on the CPU.
	for _, b := range pr.fetch {
		if err := x.Rep.Download(x.hostBuf(pr, b), pr.dev[b]); err != nil {
			return nil, fmt.Errorf("gpuexec: fetching a value of shape %v: %w", pl.Shapes[b], err)
		}
	}
	for _, h := range pl.Hooks {
		vals := make([]ops.Value, len(h.Ins))
		for j, b := range h.Ins {
			vals[j] = ops.Value{Shape: pl.Shapes[b], Data: pr.host[b]}
		}
		if err := h.Hook.Run(rc, vals); err != nil {
			return nil, fmt.Errorf("engine: %s: %w", h.Hook.Name, err)
		}
	}
	outs := make([]ops.Value, len(pl.Outputs))
	for i, b := range pl.Outputs {
		outs[i] = ops.Value{Shape: pl.Shapes[b], Data: pr.host[b]}
	}
	return outs, nil
}

// steps enqueues every step; a step without a GPU kernel waits for the
// stream, runs its CPU kernel on host copies and uploads its output.
func (x *Exec) steps(pr *prog) error {
	pl := pr.pl
	if len(pr.status) > 0 {
		if err := kernels.ResetStatus(x.Rep.Compute, x.statusWord); err != nil {
			return fmt.Errorf("gpuexec: %w", err)
		}
	}
	var ins []cu.DevicePtr
	for i := range pl.Steps {
		st := &pl.Steps[i]
		if l := pr.launch[i]; l != nil {
			ins = ins[:0]
			for _, b := range st.Ins {
				ins = append(ins, pr.dev[b])
			}
			if err := l(pr.dev[st.Out], ins); err != nil {
				return fmt.Errorf("gpuexec: %s %v -> %v: %w", st.Kind, shapesOf(pl.Shapes, st.Ins), pl.Shapes[st.Out], err)
			}
			continue
		}
		host := make([][]float32, len(st.Ins))
		for j, b := range st.Ins {
			host[j] = x.hostBuf(pr, b)
			if err := x.Rep.Download(host[j], pr.dev[b]); err != nil {
				return fmt.Errorf("gpuexec: %s input %d: %w", st.Kind, j, err)
			}
		}
		out := x.hostBuf(pr, st.Out)
		if err := pr.p.RunStepOnHost(i, out, host); err != nil {
			return err
		}
		if err := x.Rep.UploadSync(pr.dev[st.Out], out); err != nil {
			return fmt.Errorf("gpuexec: %s output: %w", st.Kind, err)
		}
	}
	return nil
}

// Release frees the device buffers of every prepared program and the
// cached blocks, once the replica's queued work is done (kernels may still
// read them). If that work failed, nothing is freed and the error says so.
func (x *Exec) Release() error {
	return x.Rep.Do(func() error {
		if err := x.Rep.Sync(); err != nil {
			return fmt.Errorf("gpuexec: release: the replica's work failed, its buffers are kept: %w", err)
		}
		var errs []error
		for p, pr := range x.progs {
			pr.graph.Destroy()
			freed := map[cu.DevicePtr]bool{}
			for _, d := range append(pr.dev, pr.scratch...) {
				if d != 0 && !freed[d] {
					freed[d] = true
					errs = append(errs, x.Rep.Free(d))
				}
			}
			delete(x.progs, p)
		}
		errs = append(errs, x.Rep.Alloc.EmptyCache())
		return errors.Join(errs...)
	})
}

// attrField reads an exported field of an op's attribute struct (the
// struct types are ops' own).
func attrField(attrs any, name string) (any, bool) {
	return fieldByName(attrs, name)
}
