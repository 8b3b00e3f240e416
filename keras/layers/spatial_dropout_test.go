package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestSpatialDropoutConformance(t *testing.T) {
	layertest.Run(t, layers.NewSpatialDropout1D(0.3), ops.Shape{2, 4, 3}, ops.Shape{2, 4, 3}, 0)
	layertest.Run(t, layers.NewSpatialDropout2D(0.3), ops.Shape{2, 3, 3, 2}, ops.Shape{2, 3, 3, 2}, 0)
	layertest.Run(t, layers.NewSpatialDropout3D(0.3), ops.Shape{1, 2, 2, 2, 2}, ops.Shape{1, 2, 2, 2, 2}, 0)
}

// TestSpatialDropoutDropsWholeMaps: in training, each (sample, channel)
// map is kept (scaled by 1/(1-rate)) or zeroed as a whole, with
// probability rate of dropping.
func TestSpatialDropoutDropsWholeMaps(t *testing.T) {
	const rate = 0.4
	for _, c := range []struct {
		l     layers.Layer
		shape ops.Shape
	}{
		{layers.NewSpatialDropout1D(rate, layers.WithSeed(1)), ops.Shape{50, 6, 40}},
		{layers.NewSpatialDropout2D(rate, layers.WithSeed(2)), ops.Shape{50, 3, 2, 40}},
		{layers.NewSpatialDropout3D(rate), ops.Shape{50, 2, 2, 2, 40}},
	} {
		n := c.shape.Size()
		x := make([]float32, n)
		for i := range x {
			x[i] = 1 + float32(i%5)
		}
		in := ops.Value{Shape: c.shape, Data: x}
		if y := layertest.Forward(t, c.l, false, in); !equal32(y.Data, x) {
			t.Errorf("%s: inference changed the input", c.l.ClassName())
		}
		y := layertest.Forward(t, c.l, true, in)
		b, ch := c.shape[0], c.shape[len(c.shape)-1]
		steps := n / (b * ch)
		dropped := 0
		for s := range b {
			for k := range ch {
				first := y.Data[s*steps*ch+k] == 0
				if first {
					dropped++
				}
				for p := range steps {
					i := (s*steps+p)*ch + k
					want := float64(x[i]) / (1 - rate)
					if first {
						want = 0
					}
					if math.Abs(float64(y.Data[i])-want) > 1e-5*want {
						t.Fatalf("%s: sample %d channel %d step %d: %v, want %v (the map's first value was %v)",
							c.l.ClassName(), s, k, p, y.Data[i], want, y.Data[s*steps*ch+k])
					}
				}
			}
		}
		if frac := float64(dropped) / float64(b*ch); math.Abs(frac-rate) > 4*math.Sqrt(rate*(1-rate)/float64(b*ch)) {
			t.Errorf("%s: %.3f of the maps dropped, want %v", c.l.ClassName(), frac, rate)
		}
	}
	wantErr(t, layers.Apply(layers.NewSpatialDropout2D(0.1, layers.WithName("sd")), layers.Input([]int{3, 4})).Err(), "sd", "rank 4")
	if err := layers.NewSpatialDropout1D(1).Err(); err == nil {
		t.Error("rate 1 accepted")
	}
}
