package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestLayerNormalizationConformance(t *testing.T) {
	layertest.Run(t, layers.NewLayerNormalization(), ops.Shape{2, 5}, ops.Shape{2, 5}, 10)
	layertest.Run(t, layers.NewLayerNormalization(), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 8)
	layertest.Run(t, layers.NewLayerNormalization(layers.WithCenter(false)), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 4)
	layertest.Run(t, layers.NewLayerNormalization(layers.WithScale(false), layers.WithCenter(false)), ops.Shape{3, 4}, ops.Shape{3, 4}, 0)
	layertest.Run(t, layers.NewLayerNormalization(layers.WithAxis(1)), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 4}, 6)
}

// layerNormRef normalises x (rows of n along axis a of shape s) in float64.
func layerNormRef(x []float32, s ops.Shape, a int, gamma, beta []float64, eps float64) []float64 {
	inner := 1
	for _, d := range s[a+1:] {
		inner *= d
	}
	n := s[a]
	outer := s.Size() / (n * inner)
	out := make([]float64, len(x))
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			at := func(j int) int { return (o*n+j)*inner + i }
			var mean, v float64
			for j := 0; j < n; j++ {
				mean += float64(x[at(j)]) / float64(n)
			}
			for j := 0; j < n; j++ {
				d := float64(x[at(j)]) - mean
				v += d * d / float64(n)
			}
			for j := 0; j < n; j++ {
				out[at(j)] = (float64(x[at(j)])-mean)/math.Sqrt(v+eps)*gamma[j] + beta[j]
			}
		}
	}
	return out
}

func TestLayerNormalizationValues(t *testing.T) {
	type tc struct {
		s             ops.Shape
		axis, a       int
		eps           float64
		center, scale bool
	}
	for _, c := range []tc{
		{ops.Shape{3, 5}, -1, 1, 1e-3, true, true},
		{ops.Shape{2, 3, 4}, -1, 2, 0.5, true, true},
		{ops.Shape{2, 3, 4}, 1, 1, 1e-3, true, true},
		{ops.Shape{2, 3, 4}, -2, 1, 1e-3, false, true},
		{ops.Shape{2, 6}, -1, 1, 1e-3, true, false},
	} {
		opts := []layers.Option{layers.WithAxis(c.axis), layers.WithCenter(c.center), layers.WithScale(c.scale)}
		if c.eps != 1e-3 {
			opts = append(opts, layers.WithEpsilon(c.eps))
		}
		l := layers.NewLayerNormalization(opts...)
		sym := c.s.Clone()
		sym[0] = -1
		if _, err := layers.OutputShape(l, []ops.Shape{sym}); err != nil {
			t.Fatal(err)
		}
		n := c.s[c.a]
		gamma, beta := make([]float64, n), make([]float64, n)
		for j := range gamma {
			gamma[j], beta[j] = 1, 0
			if c.scale {
				gamma[j] = 0.5 + 0.25*float64(j)
			}
			if c.center {
				beta[j] = 0.1*float64(j) - 0.2
			}
		}
		if c.scale {
			if err := l.Gamma.Assign(f32(gamma)); err != nil {
				t.Fatal(err)
			}
		} else if l.Gamma != nil {
			t.Error("scale=false made gamma")
		}
		if c.center {
			if err := l.Beta.Assign(f32(beta)); err != nil {
				t.Fatal(err)
			}
		} else if l.Beta != nil {
			t.Error("center=false made beta")
		}
		x := make([]float32, c.s.Size())
		for i := range x {
			x[i] = float32(3*math.Sin(float64(i)*0.9) + 0.1*float64(i))
		}
		y := layertest.Forward(t, l, false, ops.Value{Shape: c.s, Data: x})
		layertest.AllClose(t, "layer norm", y.Data, layerNormRef(x, c.s, c.a, gamma, beta, c.eps), 2e-5)
	}
}

func TestLayerNormalizationWeightsAndConfig(t *testing.T) {
	l := layers.NewLayerNormalization(layers.WithName("ln"), layers.WithEpsilon(1e-5))
	if _, err := layers.OutputShape(l, []ops.Shape{{-1, 7, 4}}); err != nil {
		t.Fatal(err)
	}
	ws := l.Weights()
	if len(ws) != 2 || ws[0].Name() != "ln/gamma" || ws[1].Name() != "ln/beta" || !ws[0].Shape().Equal(ops.Shape{4}) {
		t.Fatalf("weights %v", ws)
	}
	for i, v := range ws[0].Data(0) {
		if v != 1 || ws[1].Data(0)[i] != 0 {
			t.Fatalf("gamma %v, beta %v: want ones and zeros", ws[0].Data(0), ws[1].Data(0))
		}
	}
	cfg := l.GetConfig()
	for _, k := range []string{"axis", "epsilon", "center", "scale", "beta_initializer", "gamma_initializer"} {
		if _, ok := cfg[k]; !ok {
			t.Errorf("config lacks %q", k)
		}
	}
	if cfg["axis"] != -1 || cfg["epsilon"] != 1e-5 || cfg["center"] != true || cfg["scale"] != true {
		t.Errorf("config %v", cfg)
	}
}

func TestLayerNormalizationErrors(t *testing.T) {
	wantErr(t, layers.NewLayerNormalization(layers.WithEpsilon(0), layers.WithName("ln1")).Err(), "LayerNormalization", "ln1", "epsilon")
	wantErr(t, layers.NewLayerNormalization(layers.WithMomentum(0.9)).Err(), "LayerNormalization", "momentum")
	_, err := layers.OutputShape(layers.NewLayerNormalization(layers.WithAxis(0), layers.WithName("ln2")), []ops.Shape{{-1, 4}})
	wantErr(t, err, "LayerNormalization", "ln2", "axis 0")
	_, err = layers.OutputShape(layers.NewLayerNormalization(layers.WithAxis(2), layers.WithName("ln3")), []ops.Shape{{-1, 4}})
	wantErr(t, err, "LayerNormalization", "ln3", "axis 2")
}
