//go:build cuda

package gpuexec_test

import (
	"math"
	"sync"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/cuda"
	"github.com/gokeras/gokeras/internal/gpuexec"
	"github.com/gokeras/gokeras/ops"
)

var (
	execOnce sync.Once
	execGPU  *gpuexec.Exec
	execErr  error
)

func gpu(t *testing.T) *gpuexec.Exec {
	t.Helper()
	execOnce.Do(func() { execGPU, execErr = gpuexec.NewExec(cuda.Placement{}) })
	if execErr != nil {
		t.Fatalf("no GPU executor: %v", execErr)
	}
	return execGPU
}

// onGPU is a replica context whose programs run on x.
type onGPU struct {
	engine.Single
	x engine.Executor
}

func (o onGPU) Executor() engine.Executor { return o.x }

// relErr is max|got-want| / max|want|: the error relative to the
// tensor's scale (elementwise relative error means nothing where an
// output crosses zero).
func relErr(got, want []float32) float64 {
	var d, s float64
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(g) != math.IsNaN(w) {
			return math.Inf(1)
		}
		d = math.Max(d, math.Abs(g-w))
		s = math.Max(s, math.Abs(w))
	}
	return d / math.Max(s, 1e-30)
}

func copyOuts(vs []ops.Value) [][]float32 {
	out := make([][]float32, len(vs))
	for i, v := range vs {
		out[i] = append([]float32(nil), v.Data...)
	}
	return out
}

// runBoth runs a case's program on the CPU and, built afresh from the same
// seed (random ops draw the same), on the GPU, four times (later replays
// reuse the prepared program; from the third, a fully native program
// replays as a CUDA graph) and compares every output.
func runBoth(t *testing.T, x *gpuexec.Exec, c opCase, tol float64) {
	t.Helper()
	pc, err := buildCase(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := buildCase(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	for rep := 0; rep < 4; rep++ {
		w, err := pc.Run(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := copyOuts(w)
		got, err := pg.Run(onGPU{x: x}, nil)
		if err != nil {
			t.Fatalf("GPU: %v", err)
		}
		for i := range want {
			if len(got[i].Data) != len(want[i]) {
				t.Fatalf("output %d: %d values on the GPU, %d on the CPU", i, len(got[i].Data), len(want[i]))
			}
			if e := relErr(got[i].Data, want[i]); e > tol {
				t.Errorf("replay %d, output %d (shape %v): relative error %.3g > %.0g", rep, i, got[i].Shape, e, tol)
			}
		}
	}
}

// TestConformance: every op kind's GPU kernel (or its CPU fallback) agrees
// with its CPU kernel within 1e-5 relative, forward and gradient.
func TestConformance(t *testing.T) {
	x := gpu(t)
	for _, c := range opCases {
		t.Run(c.name, func(t *testing.T) { runBoth(t, x, c, 1e-5) })
	}
	t.Logf("native kinds: %v", gpuexec.NativeKinds())
	t.Logf("steps on the CPU by kind: %v", x.Fallbacks())
}

// TestGraphReplay: a dense layer's forward and backward pass is native
// throughout, so its later replays are CUDA graph launches, with the same
// results as op by op (runBoth compares each replay with the CPU).
func TestGraphReplay(t *testing.T) {
	x := gpu(t)
	if !gpuexec.Graphs() {
		t.Skip("CUDA graphs are off (GOKERAS_CUDA_GRAPHS=0)")
	}
	g0, _ := x.GraphReplays()
	for _, c := range opCases {
		if c.name == "DenseRelu" {
			runBoth(t, x, c, 1e-5)
		}
	}
	if g1, all := x.GraphReplays(); g1-g0 < 2 {
		t.Errorf("%d graph launches in 4 replays of a native program (%d replays in all; steps on the CPU: %v; failed captures: %q)", g1-g0, all, x.Fallbacks(), x.GraphFailures())
	}
}

// TestConformanceLarge repeats some cases at sizes where kernels take
// their multi-block paths.
func TestConformanceLarge(t *testing.T) {
	x := gpu(t)
	large := []opCase{
		{name: "MatMul512", shapes: []ops.Shape{{256, 784}, {784, 128}}, wrt: []int{0, 1},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor { return ops.MatMul(in[0], in[1], false, false) }},
		{name: "ConvBlock32", shapes: []ops.Shape{{32, 28, 28, 16}, {3, 3, 16, 32}, {32}}, wrt: []int{0, 1, 2},
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				y := ops.Relu(ops.BiasAdd(ops.Conv2D(in[0], in[1], conv), in[2]))
				return ops.MaxPool2D(y, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
			}},
		unaryCaseShape("SoftmaxWide", ops.Shape{256, 1000}, ops.Softmax),
		unaryCaseShape("SumMillion", ops.Shape{1000, 1000}, func(x ops.Tensor) ops.Tensor { return ops.Sum(x, false, 0) }),
		unaryCaseShape("MeanMillion", ops.Shape{1000, 1000}, func(x ops.Tensor) ops.Tensor { return ops.Mean(x, false) }),
		{name: "BatchNorm64", shapes: []ops.Shape{{64, 16, 16, 32}, {32}, {32}}, wrt: []int{0, 1, 2}, training: true,
			build: func(_ *ops.Trace, in []ops.Tensor) ops.Tensor {
				m := ops.BatchNormMoments(ops.BatchNormSums(in[0]))
				return ops.BatchNormApply(in[0], m, in[1], in[2], ops.BatchNormAttrs{Epsilon: 1e-3, Training: true})
			}},
	}
	for _, c := range large {
		t.Run(c.name, func(t *testing.T) { runBoth(t, x, c, 1e-5) })
	}
}

func unaryCaseShape(name string, s ops.Shape, f func(ops.Tensor) ops.Tensor) opCase {
	c := unaryCase(name, normal, f)
	c.shapes = []ops.Shape{s}
	return c
}

// TestTrainStepMatchesCPU trains a small CNN three SGD steps on the CPU
// and on the GPU from the same start: losses and weights agree within
// 1e-5 (relative), and a steady-state step allocates no device memory.
func TestTrainStepMatchesCPU(t *testing.T) {
	x := gpu(t)
	type result struct {
		losses  []float32
		weights [][]float32
	}
	train := func(rc ops.ReplicaContext, steps int) result {
		r := newRand(11)
		mk := func(name string, s ops.Shape, scale float32) *ops.Variable {
			d := make([]float32, s.Size())
			for i := range d {
				d[i] = scale * float32(r.NormFloat64())
			}
			return ops.NewVariable(name, s, d, true)
		}
		w1, b1 := mk("w1", ops.Shape{3, 3, 1, 8}, 0.3), mk("b1", ops.Shape{8}, 0.1)
		w2, b2 := mk("w2", ops.Shape{14 * 14 * 8, 10}, 0.05), mk("b2", ops.Shape{10}, 0.1)
		vars := []*ops.Variable{w1, b1, w2, b2}
		f := &engine.Function{Name: "cnn", Training: true, Fn: func(tr *ops.Trace, in []ops.Tensor) ([]ops.Tensor, error) {
			h := ops.Relu(ops.BiasAdd(ops.Conv2D(in[0], tr.Read(w1), conv), tr.Read(b1)))
			h = ops.MaxPool2D(h, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
			h = ops.Reshape(h, ops.Shape{h.Shape()[0], 14 * 14 * 8})
			logits := ops.BiasAdd(ops.MatMul(h, tr.Read(w2), false, false), tr.Read(b2))
			loss := ops.Mean(ops.SparseSoftmaxCrossEntropyWithLogits(in[1], logits), false)
			grads, err := ops.Gradients(loss, vars)
			if err != nil {
				return nil, err
			}
			tr.AddHook(ops.Hook{Name: "sgd", Inputs: grads, Run: func(rc ops.ReplicaContext, g []ops.Value) error {
				for i, v := range vars {
					d := v.Data(rc.ReplicaID())
					for j := range d {
						d[j] -= 0.05 * g[i].Data[j]
					}
				}
				return nil
			}})
			return []ops.Tensor{loss}, nil
		}}
		xs, ys := make([]float32, 16*28*28), make([]float32, 16)
		for i := range xs {
			xs[i] = r.Float32()
		}
		for i := range ys {
			ys[i] = float32(r.IntN(10))
		}
		var res result
		for range steps {
			out, err := f.Call(rc, []ops.Value{{Shape: ops.Shape{16, 28, 28, 1}, Data: xs}, {Shape: ops.Shape{16}, Data: ys}})
			if err != nil {
				t.Fatal(err)
			}
			res.losses = append(res.losses, out[0].Data[0])
		}
		for _, v := range vars {
			res.weights = append(res.weights, v.Numpy())
		}
		return res
	}
	cpu := train(nil, 3)
	before := x.Stats()
	g := train(onGPU{x: x}, 3)
	for i := range cpu.losses {
		if e := relErr([]float32{g.losses[i]}, []float32{cpu.losses[i]}); e > 1e-5 {
			t.Errorf("step %d: loss %v on the GPU, %v on the CPU", i, g.losses[i], cpu.losses[i])
		}
	}
	for i := range cpu.weights {
		if e := relErr(g.weights[i], cpu.weights[i]); e > 1e-5 {
			t.Errorf("weight %d: relative error %.3g", i, e)
		}
	}
	// Steady state: more steps of the same program allocate nothing.
	mid := x.Stats()
	_ = train(onGPU{x: x}, 5)
	after := x.Stats()
	t.Logf("device memory: before %+v, after the first run %+v, after the second %+v", before, mid, after)
	if after.Mallocs-mid.Mallocs > mid.Mallocs-before.Mallocs {
		t.Errorf("a second run of the same shapes called cuMemAlloc %d times (the first: %d)", after.Mallocs-mid.Mallocs, mid.Mallocs-before.Mallocs)
	}
	gr, all := x.GraphReplays()
	t.Logf("replays: %d, of which CUDA graph launches: %d; steps on the CPU by kind: %v", all, gr, x.Fallbacks())
}
