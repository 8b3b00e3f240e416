package optimizers

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

func TestClipNorm(t *testing.T) {
	// SGD with lr 1 moves w by exactly -g, exposing the clipped gradient.
	opt := NewSGD(LearningRate(1), ClipNorm(1))
	a := newVar("a", 0, 0)
	b := newVar("b", 0)
	c := newVar("c", 0, 0)
	// Per tensor: a's gradient has norm 5 -> scaled by 1/5; b's has norm
	// 0.5 -> kept; c's has norm 1.5 -> scaled by 2/3.
	if err := opt.Apply(nil, [][]float32{{3, 4}, {0.5}, {0.9, -1.2}}, []*ops.Variable{a, b, c}); err != nil {
		t.Fatal(err)
	}
	approx(t, "a", a.Data(0), []float64{-0.6, -0.8})
	approx(t, "b", b.Data(0), []float64{-0.5})
	approx(t, "c", c.Data(0), []float64{-0.6, 0.8})
}

func TestGlobalClipNorm(t *testing.T) {
	opt := NewSGD(LearningRate(1), GlobalClipNorm(6.5))
	a := newVar("a", 0, 0)
	b := newVar("b", 0)
	// Global norm sqrt(9+16+144) = 13 -> every gradient halved.
	if err := opt.Apply(nil, [][]float32{{3, 4}, {12}}, []*ops.Variable{a, b}); err != nil {
		t.Fatal(err)
	}
	approx(t, "a", a.Data(0), []float64{-1.5, -2})
	approx(t, "b", b.Data(0), []float64{-6})
	// Below the threshold nothing changes.
	if err := opt.Apply(nil, [][]float32{{0.3, 0.4}, {1.2}}, []*ops.Variable{a, b}); err != nil {
		t.Fatal(err)
	}
	approx(t, "a", a.Data(0), []float64{-1.8, -2.4})
	approx(t, "b", b.Data(0), []float64{-7.2})
}

func TestClipValue(t *testing.T) {
	opt := NewSGD(LearningRate(1), ClipValue(0.5))
	a := newVar("a", 0, 0, 0)
	if err := opt.Apply(nil, [][]float32{{0.7, -2, 0.1}}, []*ops.Variable{a}); err != nil {
		t.Fatal(err)
	}
	approx(t, "a", a.Data(0), []float64{-0.5, 0.5, -0.1})
}

func TestGlobalClipNormNonFinite(t *testing.T) {
	// An infinite global norm makes every gradient NaN, as
	// tf.clip_by_global_norm does, instead of passing the overflow on.
	opt := NewSGD(LearningRate(1), GlobalClipNorm(1))
	a := newVar("a", 0)
	b := newVar("b", 0)
	inf := float32(math.Inf(1))
	if err := opt.Apply(nil, [][]float32{{inf}, {1}}, []*ops.Variable{a, b}); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(a.Data(0)[0])) || !math.IsNaN(float64(b.Data(0)[0])) {
		t.Errorf("got %v %v, want NaN", a.Data(0), b.Data(0))
	}
}
