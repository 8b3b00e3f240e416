package layers_test

import (
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestMixUpConformance(t *testing.T) {
	layertest.Run(t, layers.NewMixUp(layers.MixUpSettings{}), ops.Shape{3, 5, 6, 2}, ops.Shape{3, 5, 6, 2}, 0)
}

// indexBatch is n one-pixel images whose value is their index, and
// one-hot labels of the index (n classes).
func indexBatch(n int) (*tensor.Dense, *tensor.Dense) {
	x := make([]float32, n)
	y := make([]float32, n*n)
	for i := range n {
		x[i] = float32(i)
		y[i*n+i] = 1
	}
	return tensor.New(tensor.WithShape(n, 1, 1, 1), tensor.WithBacking(x)), tensor.New(tensor.WithShape(n, n), tensor.WithBacking(y))
}

// mixedPartners reads, from the mixed labels of indexBatch, each image's
// weight w (on its own class) and partner (the class holding 1 - w, or
// itself), checking that nothing else is set.
func mixedPartners(t *testing.T, y []float32, n int) (w []float64, partner []int) {
	t.Helper()
	for i := range n {
		row := y[i*n : (i+1)*n]
		p := i
		for j, v := range row {
			if j != i && v != 0 {
				if p != i {
					t.Fatalf("image %d: labels %v mix more than two classes", i, row)
				}
				p = j
			}
		}
		w = append(w, float64(row[i]))
		if p != i && math.Abs(float64(row[i]+row[p])-1) > 1e-6 {
			t.Fatalf("image %d: weights %v and %v do not sum to 1", i, row[i], row[p])
		}
		partner = append(partner, p)
	}
	return w, partner
}

// TestMixUpMapPairs: ds.MapPairs(mixUp.MapPairs) mixes each image with a
// partner of a random permutation and its labels with the same weight;
// the weights follow Beta(alpha, alpha) (mean 1/2, variance 1/(4(2 alpha
// + 1))); the next batch draws anew. Call mixes images alone; inference
// is the identity.
func TestMixUpMapPairs(t *testing.T) {
	const n = 1500
	for _, alpha := range []float64{0.2, 1.5} {
		l := layers.NewMixUp(layers.MixUpSettings{Alpha: &alpha}, layers.WithSeed(7))
		x, y := indexBatch(n)
		xo, yo, err := l.MapPairs(x, y)
		if err != nil {
			t.Fatal(err)
		}
		w, partner := mixedPartners(t, yo.Data().([]float32), n)
		seen := make([]int, n)
		for i, p := range partner {
			seen[p]++
			want := w[i]*float64(i) + (1-w[i])*float64(p)
			if got := float64(xo.Data().([]float32)[i]); math.Abs(got-want) > 1e-3 {
				t.Fatalf("alpha %v: image %d = %v, want %v mixed with %d: %v", alpha, i, got, w[i], p, want)
			}
		}
		for i, s := range seen {
			if s > 1 && w[i] != 1 { // a partner twice: not a permutation (a fixed point reads as its own partner)
				t.Fatalf("alpha %v: image %d is the partner of %d images", alpha, i, s)
			}
		}
		m, sd := meanStd(w)
		if v := 1 / (4 * (2*alpha + 1)); math.Abs(m-0.5) > 0.03 || math.Abs(sd*sd-v) > 0.1*v {
			t.Errorf("alpha %v: weights mean %.4f variance %.4f, want 0.5 and %.4f", alpha, m, sd*sd, v)
		}
		xo2, _, err := l.MapPairs(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if equal32(xo.Data().([]float32), xo2.Data().([]float32)) {
			t.Errorf("alpha %v: two batches mixed alike", alpha)
		}
	}
	l := layers.NewMixUp(layers.MixUpSettings{})
	in := ops.Value{Shape: ops.Shape{50, 2, 2, 1}, Data: seq(200, 1, 0)}
	if y := layertest.Forward(t, l, false, in); !equal32(y.Data, in.Data) {
		t.Error("inference changed the input")
	}
	if y := layertest.Forward(t, l, true, in); equal32(y.Data, in.Data) {
		t.Error("training mixed nothing")
	}
}

func TestMixUpErrors(t *testing.T) {
	zero := 0.0
	wantErr(t, layers.NewMixUp(layers.MixUpSettings{Alpha: &zero}, layers.WithName("mu")).Err(), "MixUp", "mu", "alpha")
	l := layers.NewMixUp(layers.MixUpSettings{})
	x, _ := indexBatch(4)
	_, y := indexBatch(5)
	_, _, err := l.MapPairs(x, y)
	wantErr(t, err, "MixUp", "same N")
	_, _, err = l.MapPairs(nil, y)
	wantErr(t, err, "MixUp", "nil")
}
