package optimizers

import (
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/logging/logtest"
	"github.com/gokeras/gokeras/ops"
)

// group is a test all-reduce across n goroutines: a barrier per call, the
// sum taken in replica order by the last to arrive, so every replica gets
// the same bits.
type group struct {
	n       int
	mu      sync.Mutex
	cond    *sync.Cond
	pending [][][]float32
	arrived int
	gen     int
	result  [][]float32
}

func newGroup(n int) *group {
	g := &group{n: n, pending: make([][][]float32, n)}
	g.cond = sync.NewCond(&g.mu)
	return g
}

type member struct {
	g  *group
	id int
}

func (m member) ReplicaID() int   { return m.id }
func (m member) NumReplicas() int { return m.g.n }

func (m member) AllReduceSum(bufs [][]float32) error {
	g := m.g
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending[m.id] = bufs
	g.arrived++
	if g.arrived == g.n {
		sum := make([][]float32, len(bufs))
		for i := range bufs {
			s := append([]float32(nil), g.pending[0][i]...)
			for r := 1; r < g.n; r++ {
				if len(g.pending[r][i]) != len(s) {
					return fmt.Errorf("buffer %d: sizes differ across replicas", i)
				}
				for j, x := range g.pending[r][i] {
					s[j] += x
				}
			}
			sum[i] = s
		}
		// The result stays until the next round completes, which needs
		// every replica, so slow readers are safe.
		g.result, g.arrived, g.pending = sum, 0, make([][][]float32, g.n)
		g.gen++
		g.cond.Broadcast()
	} else {
		for gen := g.gen; g.gen == gen; {
			g.cond.Wait()
		}
	}
	for i := range bufs {
		copy(bufs[i], g.result[i])
	}
	return nil
}

// TestApplyGradientsSGDTrace: loss = sum(w²), gradient 2w, so SGD with lr
// 0.1 multiplies w by 0.8 each replay.
func TestApplyGradientsSGDTrace(t *testing.T) {
	v := newVar("dense/kernel", w0...)
	tr := ops.NewTrace(true, 0, 1)
	loss := ops.Sum(ops.Square(tr.Read(v)), false)
	vars := []*ops.Variable{v}
	grads, err := ops.Gradients(loss, vars)
	if err != nil {
		t.Fatal(err)
	}
	opt := NewSGD(LearningRate(0.1))
	if err := opt.ApplyGradients(grads, vars); err != nil {
		t.Fatal(err)
	}
	p, err := engine.Compile(tr, []ops.Tensor{loss})
	if err != nil {
		t.Fatal(err)
	}
	f := 1.0
	for k := 1; k <= 3; k++ {
		outs, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The loss is computed before the hook updates w.
		approx(t, fmt.Sprint("loss ", k), outs[0].Data, []float64{f * f * 5})
		f *= 0.8
		approx(t, fmt.Sprint("w step ", k), v.Data(0), []float64{f, -2 * f})
	}
	if opt.Iterations() != 3 {
		t.Errorf("Iterations() = %d", opt.Iterations())
	}
}

func TestApplyGradientsAdamTraceAndNoneGradient(t *testing.T) {
	v := newVar("dense/kernel", w0...)
	unused := newVar("dense/bias", 7)
	tr := ops.NewTrace(true, 0, 1)
	loss := ops.Sum(ops.Square(tr.Read(v)), false)
	vars := []*ops.Variable{v, unused}
	grads, err := ops.Gradients(loss, vars)
	if err != nil {
		t.Fatal(err)
	}
	if !grads[1].IsNone() {
		t.Fatal("expected a none gradient for the unused variable")
	}
	rec := logtest.Capture(t) // through slog, as keras.SetLogger routes it
	opt := NewAdam(LearningRate(0.1))
	if err := opt.ApplyGradients(grads, vars); err != nil {
		t.Fatal(err)
	}
	if w := rec.Matching("gradients do not exist"); len(w) != 1 || w[0].Level != slog.LevelWarn || !strings.Contains(w[0].Message, "dense/bias") {
		t.Errorf("warnings %+v, want one at WARN naming the variable without gradient", rec.All())
	}
	p, err := engine.Compile(tr, []ops.Tensor{loss})
	if err != nil {
		t.Fatal(err)
	}
	// Reference: Adam on g = 2w, in float64.
	w := append([]float64(nil), w0...)
	m, s := make([]float64, 2), make([]float64, 2)
	for k := 1; k <= 3; k++ {
		if _, err := p.Run(engine.Single{}, nil); err != nil {
			t.Fatal(err)
		}
		alpha := 0.1 * math.Sqrt(1-math.Pow(0.999, float64(k))) / (1 - math.Pow(0.9, float64(k)))
		for j := range w {
			g := 2 * w[j]
			m[j] += (g - m[j]) * 0.1
			s[j] += (g*g - s[j]) * 0.001
			w[j] -= alpha * m[j] / (math.Sqrt(s[j]) + 1e-7)
		}
		approx(t, fmt.Sprint("step ", k), v.Data(0), w)
	}
	approx(t, "unused", unused.Data(0), []float64{7})
	if n := len(opt.Variables()); n != 3 {
		t.Errorf("%d variables: slots made for the skipped variable?", n)
	}
}

func TestApplyGradientsErrors(t *testing.T) {
	a := newVar("dense/kernel", 1, 2)
	b := newVar("dense/bias", 1, 2, 3)
	frozen := ops.NewVariable("frozen", ops.Shape{2}, []float32{1, 2}, false)
	tr := ops.NewTrace(true, 0, 1)
	loss := ops.Add(ops.Sum(ops.Square(tr.Read(a)), false), ops.Sum(ops.Square(tr.Read(b)), false))
	grads, err := ops.Gradients(loss, []*ops.Variable{a, b})
	if err != nil {
		t.Fatal(err)
	}
	other := ops.NewTrace(true, 0, 1)
	oloss := ops.Sum(ops.Square(other.Read(a)), false)
	ograds, err := ops.Gradients(oloss, []*ops.Variable{a})
	if err != nil {
		t.Fatal(err)
	}
	opt := NewAdam()
	for _, c := range []struct {
		name  string
		grads []ops.Tensor
		vars  []*ops.Variable
		want  []string
	}{
		{"lengths", grads, []*ops.Variable{a}, []string{"2 gradients for 1 variables"}},
		{"shape", []ops.Tensor{grads[1]}, []*ops.Variable{a}, []string{"(3,)", `"dense/kernel"`, "(2,)"}},
		{"frozen", []ops.Tensor{grads[0]}, []*ops.Variable{frozen}, []string{`"frozen"`, "not trainable"}},
		{"all none", []ops.Tensor{{}}, []*ops.Variable{a}, []string{"no gradients"}},
		{"two traces", []ops.Tensor{grads[0], ograds[0]}, []*ops.Variable{a, a}, []string{"another trace"}},
	} {
		err := opt.ApplyGradients(c.grads, c.vars)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
	if n := len(tr.Hooks()); n != 0 {
		t.Errorf("failed calls registered %d hooks", n)
	}
	// A trace of replica 1 over a variable with one copy is refused.
	r1 := ops.NewTrace(true, 1, 1)
	l1 := ops.Sum(ops.Square(r1.Read(a)), false)
	g1, _ := ops.Gradients(l1, []*ops.Variable{a})
	if err := opt.ApplyGradients(g1, []*ops.Variable{a}); err == nil || !strings.Contains(err.Error(), "mirror") {
		t.Errorf("replica 1 without copy: %v", err)
	}
}

// TestTwoReplicas runs one optimizer on two replicas concurrently, each
// with its own data, and checks that both copies stay bitwise identical and
// equal to a one-replica run on the summed gradients.
func TestTwoReplicas(t *testing.T) {
	for _, mk := range []func() Optimizer{
		func() Optimizer { return NewAdam(LearningRate(0.1), ClipNorm(1.5)) },
		func() Optimizer { return NewSGD(LearningRate(0.1), Momentum(0.9), Nesterov(true), GlobalClipNorm(2)) },
		func() Optimizer { return NewRMSprop(LearningRate(0.01), Centered(true), Momentum(0.5)) },
		func() Optimizer { return NewAdamW(LearningRate(0.1), Amsgrad(true), ClipValue(0.7)) },
	} {
		opt := mk()
		t.Run(opt.Name(), func(t *testing.T) { testTwoReplicas(t, opt, mk()) })
	}
}

func testTwoReplicas(t *testing.T, opt, ref Optimizer) {
	const steps = 4
	v := newVar("dense/kernel", w0...)
	v.Mirror(2)
	data := [][]float32{{1, 2}, {-3, 0.5}}
	progs := make([]*engine.Program, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	// Replicas trace concurrently too: slot creation must not race.
	for r := range 2 {
		wg.Go(func() {
			tr := ops.NewTrace(true, r, 1)
			x := tr.Input("x", ops.Shape{2})
			loss := ops.Sum(ops.Square(ops.Sub(tr.Read(v), x)), false)
			grads, err := ops.Gradients(loss, []*ops.Variable{v})
			if err == nil {
				err = opt.ApplyGradients(grads, []*ops.Variable{v})
			}
			if err == nil {
				progs[r], err = engine.Compile(tr, []ops.Tensor{loss, grads[0]})
			}
			errs[r] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	g := newGroup(2)
	seen := make([][][]float32, 2) // per replica, per step: its own gradient
	for r := range 2 {
		wg.Go(func() {
			for range steps {
				outs, err := progs[r].Run(member{g, r}, []ops.Value{{Shape: ops.Shape{2}, Data: data[r]}})
				if err != nil {
					errs[r] = err
					return
				}
				seen[r] = append(seen[r], append([]float32(nil), outs[1].Data...))
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c0, c1 := v.Data(0), v.Data(1)
	for j := range c0 {
		if math.Float32bits(c0[j]) != math.Float32bits(c1[j]) {
			t.Errorf("copies differ: %v vs %v", c0, c1)
		}
	}
	for _, s := range opt.Variables() {
		a, b := s.Data(0), s.Data(1)
		for j := range a {
			if math.Float32bits(a[j]) != math.Float32bits(b[j]) {
				t.Errorf("%s copies differ: %v vs %v", s.Name(), a, b)
			}
		}
	}
	if opt.Iterations() != steps || opt.Variables()[0].Data(1)[0] != steps {
		t.Errorf("iterations %d / %v, want %d on both replicas", opt.Iterations(), opt.Variables()[0].Data(1)[0], steps)
	}
	// One replica, the summed gradient (summed in replica order).
	rv := newVar("dense/kernel", w0...)
	for k := range steps {
		sum := make([]float32, 2)
		for j := range sum {
			sum[j] = seen[0][k][j] + seen[1][k][j]
		}
		if err := ref.Apply(engine.Single{}, [][]float32{sum}, []*ops.Variable{rv}); err != nil {
			t.Fatal(err)
		}
	}
	for j, x := range rv.Data(0) {
		if math.Float32bits(x) != math.Float32bits(c0[j]) {
			t.Errorf("replicated %v != single-replica %v on the summed gradient", c0, rv.Data(0))
			break
		}
	}
	// The gradients really differed, so the sum mattered.
	if seen[0][0][0] == seen[1][0][0] {
		t.Errorf("replicas saw the same gradient %v", seen[0][0])
	}
}
