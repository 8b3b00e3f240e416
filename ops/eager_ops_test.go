package ops_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

func TestGradientsEagerOps(t *testing.T) {
	s := func(d ...int) ops.Shape { return ops.Shape(d) }
	for _, c := range []gradCase{
		{name: "AddN", shapes: []ops.Shape{s(3, 4), s(3, 4), s(3, 4)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Mul(ops.AddN(x...), x[1]) // x[1] twice: its gradient sums two terms
		}},
		// Greater and Cast have no gradient; through Mul the gradient is
		// the mask (finite differences agree away from the thresholds).
		{name: "Greater", shapes: []ops.Shape{s(3, 4)}, gen: func(i int, r *rand.Rand) float32 {
			return float32(r.IntN(7)-3) + 0.25 // at least 0.25 from the thresholds
		}, build: func(tr *ops.Trace, x []ops.Tensor) ops.Tensor {
			return ops.Mul(x[0], ops.Greater(x[0], tr.Constant(ops.Shape{4}, []float32{-1, 0, 1, 0.5})))
		}},
		{name: "CastInt", shapes: []ops.Shape{s(3, 4)}, gen: func(_ int, r *rand.Rand) float32 {
			return float32(r.IntN(9)-4) + 0.5 // away from integers, where the truncation jumps
		}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Mul(x[0], ops.Cast(x[0], "int32")) }},
		{name: "CastFloat", shapes: []ops.Shape{s(5)}, build: func(_ *ops.Trace, x []ops.Tensor) ops.Tensor { return ops.Cast(x[0], "float32") }},
	} {
		checkGrad(t, c)
	}
}

func TestEagerOpsValues(t *testing.T) {
	a := ops.FromValue(ops.Value{Shape: ops.Shape{2, 3}, Data: []float32{-1.5, 0, 2.7, 3, float32(math.NaN()), -0.2}})
	b := ops.FromValue(ops.Value{Shape: ops.Shape{3}, Data: []float32{0, 0, 3}})
	// Independent references: Go's own comparisons and conversions.
	av, bv := a.Float32s(), b.Float32s()
	var wantG, wantI, wantB []float32
	for i, x := range av {
		y := bv[i%3]
		g := float32(0)
		if x > y {
			g = 1
		}
		wantG = append(wantG, g)
		if math.IsNaN(float64(x)) {
			wantI = append(wantI, x)
		} else {
			wantI = append(wantI, float32(int32(x)))
		}
		nb := float32(0)
		if x != 0 {
			nb = 1
		}
		wantB = append(wantB, nb)
	}
	if got := ops.Greater(a, b).Float32s(); !slices.Equal(got, wantG) {
		t.Errorf("Greater = %v, want %v", got, wantG)
	}
	if got := ops.Cast(a, "int32").Float32s(); !sameBits(got, wantI) {
		t.Errorf("Cast int32 = %v, want %v", got, wantI)
	}
	if got := ops.Cast(a, "bool").Float32s(); !slices.Equal(got, wantB) {
		t.Errorf("Cast bool = %v, want %v", got, wantB)
	}
	if got := ops.AddN(b, b, ops.Ones(ops.Shape{3})).Float32s(); !slices.Equal(got, []float32{1, 1, 7}) {
		t.Errorf("AddN = %v, want [1 1 7]", got)
	}
	if got := ops.Zeros(ops.Shape{2, 2}).Float32s(); !slices.Equal(got, make([]float32, 4)) {
		t.Errorf("Zeros = %v", got)
	}
	if got := ops.OnesLike(a).Numpy(); !got.Shape.Equal(ops.Shape{2, 3}) || slices.Max(got.Data) != 1 || slices.Min(got.Data) != 1 {
		t.Errorf("OnesLike = %v", got)
	}
	if got := ops.ZerosLike(a).Float32s(); slices.Max(got) != 0 {
		t.Errorf("ZerosLike = %v", got)
	}
	for name, f := range map[string]func(){
		"Cast complex64": func() { ops.Cast(a, "complex64") },
		"AddN shapes":    func() { ops.AddN(a, b) },
		"AddN none":      func() { ops.AddN() },
		"Greater shapes": func() { ops.Greater(a, ops.Ones(ops.Shape{4})) },
		"Ones negative":  func() { ops.Ones(ops.Shape{2, -1}) },
		"Zeros huge":     func() { ops.Zeros(ops.Shape{1 << 20, 1 << 20}) },
		"AddLoss shape":  func() { ops.AddLoss(a) },
	} {
		func() {
			defer func() {
				if _, ok := recover().(*ops.Error); !ok {
					t.Errorf("%s: no *ops.Error panic", name)
				}
			}()
			f()
		}()
	}
}

func sameBits(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

func TestAddLoss(t *testing.T) {
	tr := ops.NewTrace(true, 0, 0)
	x := tr.Input("x", ops.Shape{3})
	l1, l2 := ops.Sum(x, false), ops.Mean(x, false)
	ops.AddLoss(l1)
	ops.AddLoss(l2)
	got := tr.AddedLosses()
	if len(got) != 2 || got[0] != l1 || got[1] != l2 {
		t.Fatalf("AddedLosses = %v, want [%v %v]", got, l1, l2)
	}
	if other := ops.NewTrace(true, 0, 0); len(other.AddedLosses()) != 0 {
		t.Error("a new trace has added losses")
	}
}
