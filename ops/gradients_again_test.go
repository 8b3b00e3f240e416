package ops

import (
	"strings"
	"testing"
)

// TestGradientsTwice: a second Gradients call over a computation of its own
// (a GAN's generator step after the discriminator's) gives exact
// gradients; one through nodes the first call differentiated is refused,
// since gorgonia would reuse their cached derivatives.
func TestGradientsTwice(t *testing.T) {
	tr := NewEagerTrace(true, 1)
	a := NewVariable("a", Shape{3}, []float32{1, 2, 3}, true)
	b := NewVariable("b", Shape{3}, []float32{4, 5, 6}, true)
	x := tr.Constant(Shape{3}, []float32{0.5, -1, 2})
	// loss1 = sum(a*a*x): d/da = 2*a*x.
	loss1 := Sum(Mul(Mul(tr.Read(a), tr.Read(a)), x), false)
	g1, err := Gradients(loss1, []*Variable{a})
	if err != nil {
		t.Fatal(err)
	}
	// loss2 = sum(a*b*b): reads a (differentiated before) but asks for b
	// only, along new nodes: d/db = 2*a*b.
	loss2 := Sum(Mul(tr.Read(a), Mul(tr.Read(b), tr.Read(b))), false)
	g2, err := Gradients(loss2, []*Variable{b})
	if err != nil {
		t.Fatalf("second call over new nodes: %v", err)
	}
	want1 := []float32{2 * 1 * 0.5, 2 * 2 * -1, 2 * 3 * 2}
	want2 := []float32{2 * 1 * 4, 2 * 2 * 5, 2 * 3 * 6}
	for i, w := range want1 {
		if got := g1[0].Float32s()[i]; got != w {
			t.Errorf("d loss1/da[%d] = %v, want %v", i, got, w)
		}
	}
	for i, w := range want2 {
		if got := g2[0].Float32s()[i]; got != w {
			t.Errorf("d loss2/db[%d] = %v, want %v", i, got, w)
		}
	}
	// loss3 reuses loss1's differentiated nodes on the path from a.
	loss3 := Sum(Mul(loss1Node(tr, a, x), x), false)
	if _, err := Gradients(loss3, []*Variable{a}); err == nil || !strings.Contains(err.Error(), "differentiated by an earlier call") {
		t.Errorf("third call through differentiated nodes: error %v", err)
	}
}

// loss1Node rebuilds a*a (hash-consed by gorgonia into loss1's node).
func loss1Node(tr *Trace, a *Variable, x Tensor) Tensor {
	return Mul(Mul(tr.Read(a), tr.Read(a)), x)
}
