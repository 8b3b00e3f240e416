package layers_test

import (
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestCutMixConformance(t *testing.T) {
	layertest.Run(t, layers.NewCutMix(layers.CutMixSettings{}), ops.Shape{3, 5, 6, 2}, ops.Shape{3, 5, 6, 2}, 0)
	layertest.Run(t, layers.NewCutMix(layers.CutMixSettings{}), ops.Shape{5, 6, 2}, ops.Shape{5, 6, 2}, 0)
}

// TestCutMixMapPairs: each image gets one box (every channel) pasted from
// its partner of a random permutation, and its labels keep 1 - box area /
// image area on its own class, the rest on the partner's: the pasted
// pixels count as the box's area to within its perimeter. A symbolic
// CallWithLabels draws anew at every replay. Inference and one unbatched
// image are the identity.
func TestCutMixMapPairs(t *testing.T) {
	const n, h, w = 400, 12, 10
	xs := make([]float32, n*h*w*2)
	ys := make([]float32, n*n)
	for i := range n {
		for j := range h * w * 2 {
			xs[i*h*w*2+j] = float32(i)
		}
		ys[i*n+i] = 1
	}
	x := tensor.New(tensor.WithShape(n, h, w, 2), tensor.WithBacking(xs))
	y := tensor.New(tensor.WithShape(n, n), tensor.WithBacking(ys))
	l := layers.NewCutMix(layers.CutMixSettings{Factor: &[2]float64{0.5, 1}}, layers.WithSeed(3))
	xo, yo, err := l.MapPairs(x, y)
	if err != nil {
		t.Fatal(err)
	}
	lam, partner := mixedPartners(t, yo.Data().([]float32), n)
	xd := xo.Data().([]float32)
	cut := 0
	for i := range n {
		ok, bw, bh := box(xd, xs, i, h, w, 2)
		if !ok {
			t.Fatalf("image %d: the pasted pixels are not one box", i)
		}
		pasted := bw * bh
		if pasted > 0 {
			cut++
			for j, v := range xd[i*h*w*2 : (i+1)*h*w*2] {
				if v != float32(i) && v != float32(partner[i]) {
					t.Fatalf("image %d pixel %d = %v: neither its own nor partner %d's", i, j, v, partner[i])
				}
			}
		}
		if partner[i] == i {
			continue // a fixed point: labels read 1
		}
		area := (1 - lam[i]) * h * w
		if math.Abs(area-float64(pasted)) > float64(bw+bh+1) {
			t.Fatalf("image %d: %d pixels pasted, labels say %.2f", i, pasted, area)
		}
	}
	if cut < n/2 {
		t.Errorf("only %d of %d images got a box", cut, n)
	}
	// Symbolic: two replays draw different boxes.
	tr := ops.NewTrace(true, 0, 1)
	l2 := layers.NewCutMix(layers.CutMixSettings{}, layers.WithSeed(1))
	xi, yl := l2.CallWithLabels(tr.Constant(ops.Shape{n, h, w, 2}, xs), tr.Constant(ops.Shape{n, n}, ys), true)
	p, err := engine.Compile(tr, []ops.Tensor{xi, yl})
	if err != nil {
		t.Fatal(err)
	}
	var first []float32
	for k := range 2 {
		v, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			first = append([]float32(nil), v[0].Data...)
		} else if equal32(first, v[0].Data) {
			t.Error("two replays cut alike")
		}
	}
	in := ops.Value{Shape: ops.Shape{n, h, w, 2}, Data: xs}
	if y := layertest.Forward(t, layers.NewCutMix(layers.CutMixSettings{}), false, in); !equal32(y.Data, xs) {
		t.Error("inference changed the input")
	}
	one := ops.Value{Shape: ops.Shape{h, w, 2}, Data: xs[h*w*2 : 2*h*w*2]}
	if y := layertest.Forward(t, layers.NewCutMix(layers.CutMixSettings{}), true, one); !equal32(y.Data, one.Data) {
		t.Error("one unbatched image changed")
	}
}

func TestCutMixErrors(t *testing.T) {
	wantErr(t, layers.NewCutMix(layers.CutMixSettings{Factor: &[2]float64{1.5, 2}}, layers.WithName("cm")).Err(), "CutMix", "cm", "factor")
	l := layers.NewCutMix(layers.CutMixSettings{})
	x := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(make([]float32, 6)))
	_, _, err := l.MapPairs(x, x)
	wantErr(t, err, "CutMix", "images")
}
