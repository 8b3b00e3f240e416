package ops_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// eagerAgainstTraced builds f on variables of the given shapes twice, in an
// eager trace and in a compiled program, and checks the outputs and the
// gradients of sum(f·R) are bitwise equal: eager ops run the kernels a
// program runs.
func eagerAgainstTraced(t *testing.T, name string, shapes []ops.Shape, f func(xs []ops.Tensor) ops.Tensor) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, uint64(len(name))))
	vars := make([]*ops.Variable, len(shapes))
	for i, s := range shapes {
		data := make([]float32, s.Size())
		for j := range data {
			data[j] = float32(r.NormFloat64())
		}
		vars[i] = ops.NewVariable(name, s, data, true)
	}
	var weights []float32
	build := func(tr *ops.Trace) []ops.Tensor {
		xs := make([]ops.Tensor, len(vars))
		for i, v := range vars {
			xs[i] = tr.Read(v)
		}
		y := f(xs)
		if weights == nil {
			weights = make([]float32, y.Shape().Size())
			for j := range weights {
				weights[j] = r.Float32()*2 - 1
			}
		}
		loss := ops.Sum(ops.Mul(y, tr.Constant(y.Shape(), weights)), false)
		grads, err := ops.Gradients(loss, vars)
		if err != nil {
			t.Fatalf("%s: Gradients: %v", name, err)
		}
		return append([]ops.Tensor{y, loss}, grads...)
	}
	eager := build(ops.NewEagerTrace(true, 1))
	tr := ops.NewTrace(true, 0, 1)
	p, err := engine.Compile(tr, build(tr))
	if err != nil {
		t.Fatalf("%s: compile: %v", name, err)
	}
	want, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatalf("%s: run: %v", name, err)
	}
	for i, e := range eager {
		if !e.IsEager() {
			t.Fatalf("%s: output %d is not eager", name, i)
		}
		got := e.Float32s()
		if !e.Shape().Equal(want[i].Shape) || !slices.Equal(got, want[i].Data) {
			t.Errorf("%s: output %d: eager %v (shape %v) != traced %v (shape %v)", name, i, head(got), e.Shape(), head(want[i].Data), want[i].Shape)
		}
	}
}

func head(v []float32) []float32 { return v[:min(len(v), 6)] }

func TestEagerEqualsTraced(t *testing.T) {
	conv := ops.Conv2DAttrs{Strides: [2]int{1, 1}, Dilations: [2]int{1, 1}, Padding: "same"}
	eagerAgainstTraced(t, "dense", []ops.Shape{{5, 7}, {7, 4}, {4}}, func(xs []ops.Tensor) ops.Tensor {
		return ops.Relu(ops.BiasAdd(ops.MatMul(xs[0], xs[1], false, false), xs[2]))
	})
	eagerAgainstTraced(t, "cnn", []ops.Shape{{2, 6, 6, 3}, {3, 3, 3, 4}, {4}}, func(xs []ops.Tensor) ops.Tensor {
		y := ops.Relu(ops.BiasAdd(ops.Conv2D(xs[0], xs[1], conv), xs[2]))
		y = ops.MaxPool2D(y, ops.Pool2DAttrs{Pool: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: "valid"})
		return ops.LogSoftmax(ops.Reshape(y, ops.Shape{2, -1}))
	})
	// A variable used twice: gorgonia sums the gradient terms with its own +.
	eagerAgainstTraced(t, "reuse", []ops.Shape{{3, 4}}, func(xs []ops.Tensor) ops.Tensor {
		return ops.Mul(ops.Tanh(xs[0]), ops.Exp(xs[0]))
	})
}

func TestEagerCombinesTraces(t *testing.T) {
	a := ops.FromValue(ops.Value{Shape: ops.Shape{2}, Data: []float32{1, 2}})
	b := ops.ConvertToTensor(tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{10, 20})))
	if a.Trace() == b.Trace() {
		t.Fatal("two constants share a trace")
	}
	c := ops.Add(a, b)
	if got := c.Float32s(); !slices.Equal(got, []float32{11, 22}) {
		t.Fatalf("a+b = %v, want [11 22]", got)
	}

	// Two "model calls" on arrays (two traces reading the same variable v,
	// and w and u one each) summed into one loss: the gradients flow
	// through both, as a tape around both calls gives in TensorFlow.
	v := ops.NewVariable("v", ops.Shape{3}, []float32{1, 2, 3}, true)
	w := ops.NewVariable("w", ops.Shape{3}, []float32{-1, 0.5, 2}, true)
	u := ops.NewVariable("u", ops.Shape{}, []float32{4}, true)
	x1 := ops.FromValue(ops.Value{Shape: ops.Shape{3}, Data: []float32{1, 0, 2}})
	call1 := ops.Scale(ops.Sum(ops.Mul(ops.Mul(x1.Trace().Read(v), x1), x1.Trace().Read(w)), false), 1) // sum(v·x1·w)
	x2 := ops.FromValue(ops.Value{Shape: ops.Shape{3}, Data: []float32{3, 1, 1}})
	call2 := ops.Mul(ops.Sum(ops.Mul(x2.Trace().Read(v), x2), false), x2.Trace().Read(u)) // u·sum(v·x2)
	loss := ops.Add(call1, call2)
	if loss.Trace() != call1.Trace() {
		t.Error("the larger graph (the first call) should receive the op")
	}
	// By hand: call1 = 1·1·-1 + 0 + 3·2·2 = 11; call2 = 4·(3+2+3) = 32.
	if got := loss.Float32(); got != 43 {
		t.Fatalf("loss = %v, want 43", got)
	}
	grads, err := ops.Gradients(loss, []*ops.Variable{v, w, u})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{
		{1*-1 + 4*3, 0 + 4*1, 2*2 + 4*1}, // x1·w + u·x2
		{1 * 1, 0, 3 * 2},                // v·x1
		{8},                              // sum(v·x2)
	}
	for i, g := range grads {
		if g.IsNone() || !slices.Equal(g.Float32s(), want[i]) {
			t.Errorf("gradient %d = %v, want %v", i, g, want[i])
		}
	}
	// A gradient (gorgonia's sum of two terms) used in another trace comes
	// as its value.
	h := ops.Add(ops.FromValue(ops.Value{Shape: ops.Shape{3}, Data: []float32{1, 1, 1}}), grads[0])
	if got := h.Float32s(); !slices.Equal(got, []float32{12, 5, 9}) {
		t.Errorf("1 + gradient = %v, want [12 5 9]", got)
	}
}

func TestEagerVariableReadsSeeUpdates(t *testing.T) {
	v := ops.NewVariable("v", ops.Shape{2}, []float32{1, 2}, true)
	tr := ops.NewEagerTrace(false, 0)
	first := tr.Read(v)
	if err := v.Assign([]float32{5, 6}); err != nil {
		t.Fatal(err)
	}
	second := tr.Read(v)
	if got := first.Float32s(); !slices.Equal(got, []float32{1, 2}) {
		t.Errorf("first read = %v, want the value at the time [1 2]", got)
	}
	if got := second.Float32s(); !slices.Equal(got, []float32{5, 6}) {
		t.Errorf("read after Assign = %v, want [5 6]", got)
	}
}

func TestEagerHooksRunAtOnce(t *testing.T) {
	tr := ops.NewEagerTrace(false, 0)
	x := tr.Constant(ops.Shape{3}, []float32{1, 2, 3})
	var seen []float32
	tr.AddHook(ops.Hook{Name: "h", Inputs: []ops.Tensor{ops.Sum(x, false)}, Run: func(rc ops.ReplicaContext, vals []ops.Value) error {
		seen = slices.Clone(vals[0].Data)
		return nil
	}})
	if !slices.Equal(seen, []float32{6}) {
		t.Fatalf("hook saw %v, want [6]", seen)
	}
	defer func() {
		r := recover()
		e, ok := r.(*ops.Error)
		if !ok || !strings.Contains(e.Error(), "boom") {
			t.Fatalf("a failing eager hook panicked with %v, want an *ops.Error with its error", r)
		}
	}()
	tr.AddHook(ops.Hook{Name: "bad", Inputs: []ops.Tensor{x}, Run: func(ops.ReplicaContext, []ops.Value) error { return errors.New("boom") }})
}

func TestEagerValueAccessors(t *testing.T) {
	tr := ops.NewTrace(false, 0, 0)
	sym := tr.Input("x", ops.Shape{2})
	if sym.IsEager() {
		t.Fatal("a placeholder is eager")
	}
	func() {
		defer func() {
			if _, ok := recover().(*ops.Error); !ok {
				t.Error("Float32s of a symbolic tensor did not panic with an *ops.Error")
			}
		}()
		sym.Float32s()
	}()
	e := ops.FromValue(ops.Value{Shape: ops.Shape{2}, Data: []float32{1, 2}})
	func() {
		defer func() {
			if _, ok := recover().(*ops.Error); !ok {
				t.Error("Float32 of a 2-element tensor did not panic with an *ops.Error")
			}
		}()
		e.Float32()
	}()
	// An eager tensor in a traced function is a constant of the trace.
	y := ops.Add(sym, e)
	p, err := engine.Compile(tr, []ops.Tensor{y})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(engine.Single{}, []ops.Value{{Shape: ops.Shape{2}, Data: []float32{10, 20}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out[0].Data, []float32{11, 22}) {
		t.Errorf("traced x + eager constant = %v, want [11 22]", out[0].Data)
	}
	v := ops.Value{Shape: ops.Shape{}, Data: []float32{2.5}}
	if f := v.Float32(); f != 2.5 {
		t.Errorf("Value.Float32 = %v", f)
	}
	func() {
		defer func() {
			if _, ok := recover().(*ops.Error); !ok {
				t.Error("Value.Float32 of two values did not panic with an *ops.Error")
			}
		}()
		(ops.Value{Shape: ops.Shape{2}, Data: []float32{1, 2}}).Float32()
	}()
	if math.IsNaN(float64(e.Float32s()[0])) {
		t.Error("unexpected NaN")
	}
}

// TestEagerDropoutGradient: an eager dropout draws its mask once, and the
// gradient uses that mask: d sum(dropout(x)) / dx is y / x elementwise.
func TestEagerDropoutGradient(t *testing.T) {
	data := make([]float32, 64)
	for i := range data {
		data[i] = float32(i + 1)
	}
	v := ops.NewVariable("x", ops.Shape{64}, data, true)
	tr := ops.NewEagerTrace(true, 9)
	y := ops.Dropout(tr.Read(v), 0.5)
	grads, err := ops.Gradients(ops.Sum(y, false), []*ops.Variable{v})
	if err != nil {
		t.Fatal(err)
	}
	ys, gs := y.Float32s(), grads[0].Float32s()
	kept := 0
	for i := range ys {
		if want := ys[i] / data[i]; gs[i] != want || (want != 0 && want != 2) {
			t.Fatalf("element %d: y %v, gradient %v, want y/x (0 or 2)", i, ys[i], gs[i])
		}
		if ys[i] != 0 {
			kept++
		}
	}
	if kept == 0 || kept == 64 {
		t.Errorf("%d of 64 kept at rate 0.5", kept)
	}
}

// TestEagerRunningSumKeepsValues: summing the losses of many eager steps
// (each differentiated) into one tensor keeps their values, not their
// graphs: the sum's graph grows by a constant and an Add per step.
func TestEagerRunningSumKeepsValues(t *testing.T) {
	v := ops.NewVariable("v", ops.Shape{16}, make([]float32, 16), true)
	total := ops.FromValue(ops.Value{Shape: ops.Shape{}, Data: []float32{0}})
	want := float32(0)
	for step := range 20 {
		x := ops.FromValue(ops.Value{Shape: ops.Shape{16}, Data: slices.Repeat([]float32{float32(step)}, 16)})
		tr := x.Trace()
		loss := ops.Mean(ops.Square(ops.Sub(ops.Tanh(ops.Mul(tr.Read(v), x)), x)), false)
		if _, err := ops.Gradients(loss, []*ops.Variable{v}); err != nil {
			t.Fatal(err)
		}
		total = ops.Add(total, loss)
		want += loss.Float32()
	}
	if got := total.Float32(); got != want {
		t.Errorf("running sum %v, want %v", got, want)
	}
	if n := len(total.Trace().Graph().AllNodes()); n > 100 {
		t.Errorf("the running sum's graph has %d nodes after 20 steps: it keeps the steps' graphs", n)
	}
}

// TestEagerConcurrentLoops: eager computations in several goroutines are
// independent (run with -race): each starts its own traces.
func TestEagerConcurrentLoops(t *testing.T) {
	done := make(chan []float32, 4)
	for g := range 4 {
		go func() {
			v := ops.NewVariable("v", ops.Shape{4}, []float32{1, 2, 3, 4}, true)
			var last []float32
			for step := range 25 {
				x := ops.FromValue(ops.Value{Shape: ops.Shape{4}, Data: slices.Repeat([]float32{float32(g + step)}, 4)})
				loss := ops.Sum(ops.Mul(x.Trace().Read(v), x), false)
				grads, err := ops.Gradients(loss, []*ops.Variable{v})
				if err != nil {
					panic(err)
				}
				last = grads[0].Float32s()
			}
			done <- last
		}()
	}
	for range 4 {
		got := <-done
		// d sum(v·x)/dv = x, the last step's x: g + 24 for some g in 0..3.
		if got[0] < 24 || got[0] > 27 || !slices.Equal(got, slices.Repeat(got[:1], 4)) {
			t.Errorf("last gradient %v", got)
		}
	}
}

// TestEagerDifferentiatedTraceComesAsConstant: a loss whose graph was
// differentiated already, added to a new model call, leaves the new graph
// differentiable (once more), whatever their sizes.
func TestEagerDifferentiatedTraceComesAsConstant(t *testing.T) {
	v := ops.NewVariable("v", ops.Shape{2}, []float32{1, 2}, true)
	x := ops.FromValue(ops.Value{Shape: ops.Shape{2}, Data: []float32{3, 4}})
	big := ops.Sum(ops.Exp(ops.Tanh(ops.Mul(x.Trace().Read(v), x))), false) // the larger graph
	if _, err := ops.Gradients(big, []*ops.Variable{v}); err != nil {
		t.Fatal(err)
	}
	z := ops.FromValue(ops.Value{Shape: ops.Shape{2}, Data: []float32{5, 6}})
	small := ops.Sum(ops.Mul(z.Trace().Read(v), z), false)
	loss := ops.Add(big, small)
	grads, err := ops.Gradients(loss, []*ops.Variable{v})
	if err != nil {
		t.Fatalf("second loss: %v", err)
	}
	if got := grads[0].Float32s(); !slices.Equal(got, []float32{5, 6}) {
		t.Errorf("gradient %v, want z = [5 6] (the first loss is a constant)", got)
	}
}
