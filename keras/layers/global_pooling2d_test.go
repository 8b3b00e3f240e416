package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestGlobalPooling2DConformance(t *testing.T) {
	layertest.Run(t, layers.NewGlobalAveragePooling2D(), ops.Shape{2, 4, 5, 3}, ops.Shape{2, 3}, 0)
	layertest.Run(t, layers.NewGlobalAveragePooling2D(layers.WithKeepDims(true)), ops.Shape{2, 4, 5, 3}, ops.Shape{2, 1, 1, 3}, 0)
	layertest.Run(t, layers.NewGlobalMaxPooling2D(), ops.Shape{3, 3, 2, 4}, ops.Shape{3, 4}, 0)
	layertest.Run(t, layers.NewGlobalMaxPooling2D(layers.WithKeepDims(true)), ops.Shape{1, 5, 5, 2}, ops.Shape{1, 1, 1, 2}, 0)
}

// globalPoolRef reduces each (image, channel) over height and width.
func globalPoolRef(x []float32, s ops.Shape, isMax bool) []float64 {
	n, hw, c := s[0], s[1]*s[2], s[3]
	out := make([]float64, n*c)
	for b := 0; b < n; b++ {
		for ch := 0; ch < c; ch++ {
			acc := math.Inf(-1)
			if !isMax {
				acc = 0
			}
			for p := 0; p < hw; p++ {
				v := float64(x[(b*hw+p)*c+ch])
				if isMax {
					acc = math.Max(acc, v)
				} else {
					acc += v / float64(hw)
				}
			}
			out[b*c+ch] = acc
		}
	}
	return out
}

func TestGlobalPooling2DValues(t *testing.T) {
	s := ops.Shape{2, 3, 4, 3}
	x := make([]float32, s.Size())
	for i := range x {
		x[i] = float32(math.Sin(float64(i) * 1.3))
	}
	in := ops.Value{Shape: s, Data: x}
	for _, keep := range []bool{false, true} {
		avg := layertest.Forward(t, layers.NewGlobalAveragePooling2D(layers.WithKeepDims(keep)), false, in)
		mx := layertest.Forward(t, layers.NewGlobalMaxPooling2D(layers.WithKeepDims(keep)), false, in)
		want := ops.Shape{2, 3}
		if keep {
			want = ops.Shape{2, 1, 1, 3}
		}
		if !avg.Shape.Equal(want) || !mx.Shape.Equal(want) {
			t.Errorf("keepdims=%v: shapes %v and %v, want %v", keep, avg.Shape, mx.Shape, want)
		}
		layertest.AllClose(t, "global average", avg.Data, globalPoolRef(x, s, false), 1e-6)
		layertest.AllClose(t, "global max", mx.Data, globalPoolRef(x, s, true), 0)
	}
}

func TestGlobalPooling2DConfigAndErrors(t *testing.T) {
	for _, l := range []layers.Layer{layers.NewGlobalAveragePooling2D(layers.WithKeepDims(true)), layers.NewGlobalMaxPooling2D(layers.WithKeepDims(true))} {
		cfg := l.GetConfig()
		if cfg["keepdims"] != true || cfg["data_format"] != "channels_last" {
			t.Errorf("%s: config %v", l.ClassName(), cfg)
		}
		_, err := layers.OutputShape(l, []ops.Shape{{-1, 4}})
		wantErr(t, err, l.ClassName(), l.Name(), "rank-4")
	}
	if cfg := layers.NewGlobalMaxPooling2D().GetConfig(); cfg["keepdims"] != false {
		t.Errorf("default keepdims: %v", cfg)
	}
	l := layers.NewGlobalAveragePooling2D(layers.WithPoolSize(2), layers.WithName("gap"))
	wantErr(t, l.Err(), "GlobalAveragePooling2D", "gap", "pool_size")
}
