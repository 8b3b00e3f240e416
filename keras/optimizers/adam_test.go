package optimizers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// adamRef is Adam (epsilon-hat form) in float64 from the formulas; wd > 0
// adds AdamW's decoupled decay first.
func adamRef(lr, b1, b2, eps, wd float64, amsgrad bool, grads [][]float64) [][]float64 {
	w := append([]float64(nil), w0...)
	m := make([]float64, len(w))
	v := make([]float64, len(w))
	vh := make([]float64, len(w))
	var out [][]float64
	for k, g := range grads {
		t := float64(k + 1)
		alpha := lr * math.Sqrt(1-math.Pow(b2, t)) / (1 - math.Pow(b1, t))
		for j := range w {
			w[j] -= w[j] * wd * lr
			m[j] += (g[j] - m[j]) * (1 - b1)
			v[j] += (g[j]*g[j] - v[j]) * (1 - b2)
			den := v[j]
			if amsgrad {
				vh[j] = math.Max(vh[j], v[j])
				den = vh[j]
			}
			w[j] -= alpha * m[j] / (math.Sqrt(den) + eps)
		}
		out = append(out, append([]float64(nil), w...))
	}
	return out
}

func TestAdamFirstStepByHand(t *testing.T) {
	// Bias correction makes the first step lr*sign(g) up to epsilon:
	// m = 0.1g, v = 0.001g², alpha = lr*sqrt(0.001)/0.1.
	run(t, NewAdam(), [][]float64{{1 - 0.001, -2 - 0.001}})
}

func TestAdam(t *testing.T) {
	run(t, NewAdam(LearningRate(0.1)), adamRef(0.1, 0.9, 0.999, 1e-7, 0, false, stepGrads))
}

func TestAdamCustomBetas(t *testing.T) {
	run(t, NewAdam(LearningRate(0.05), Beta1(0.5), Beta2(0.8), Epsilon(0.1)),
		adamRef(0.05, 0.5, 0.8, 0.1, 0, false, stepGrads))
}

func TestAdamAmsgrad(t *testing.T) {
	// A large then small gradients: v decays below its maximum, so vhat
	// differs from v and the AMSGrad result from plain Adam's.
	saved := stepGrads
	defer func() { stepGrads = saved }()
	stepGrads = [][]float64{{4, -4}, {0.1, 0.2}, {0.1, -0.1}}
	want := adamRef(0.1, 0.9, 0.5, 1e-7, 0, true, stepGrads)
	plain := adamRef(0.1, 0.9, 0.5, 1e-7, 0, false, stepGrads)
	if math.Abs(want[2][0]-plain[2][0]) < 1e-3 {
		t.Fatalf("test data does not separate amsgrad: %v vs %v", want[2], plain[2])
	}
	opt := NewAdam(LearningRate(0.1), Beta2(0.5), Amsgrad(true))
	run(t, opt, want)
	if n := len(opt.Variables()); n != 4 {
		t.Errorf("amsgrad Adam has %d variables, want 4", n)
	}
}

// TestAdamLargeVariable covers the vectorised, multi-core path (more than
// par.MinElems elements, a length that is not a multiple of the vector
// width) against the float64 formulas, element by element.
func TestAdamLargeVariable(t *testing.T) {
	const n = 100_003
	r := rand.New(rand.NewPCG(3, 4))
	w := make([]float64, n)
	for i := range w {
		w[i] = r.NormFloat64()
	}
	v := ops.NewVariable("big/kernel", ops.Shape{n}, f32(w), true)
	opt := NewAdam()
	m, s := make([]float64, n), make([]float64, n)
	for k := 1; k <= 3; k++ {
		g := make([]float64, n)
		for i := range g {
			g[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(5)-2))
		}
		if err := opt.Apply(engine.Single{}, [][]float32{f32(g)}, []*ops.Variable{v}); err != nil {
			t.Fatal(err)
		}
		alpha := 0.001 * math.Sqrt(1-math.Pow(0.999, float64(k))) / (1 - math.Pow(0.9, float64(k)))
		for j := range w {
			gj := float64(float32(g[j]))
			m[j] += (gj - m[j]) * 0.1
			s[j] += (gj*gj - s[j]) * 0.001
			w[j] -= alpha * m[j] / (math.Sqrt(s[j]) + 1e-7)
		}
		approx(t, fmt.Sprintf("step %d", k), v.Data(0), w)
		if t.Failed() {
			return
		}
	}
}
