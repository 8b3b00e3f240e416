package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestZeroPadding2DConformance(t *testing.T) {
	layertest.Run(t, layers.NewZeroPadding2D(1, 2, 0, 3), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 6, 7, 2}, 0)
	layertest.Run(t, layers.NewZeroPadding2DUniform(1), ops.Shape{2, 3, 4, 2}, ops.Shape{2, 5, 6, 2}, 0)
	layertest.Run(t, layers.NewZeroPadding2DUniform(0), ops.Shape{1, 2, 2, 1}, ops.Shape{1, 2, 2, 1}, 0)
}

func TestZeroPadding2DValues(t *testing.T) {
	s := ops.Shape{2, 2, 3, 2}
	x := seq(s.Size(), 1, 1)
	y := layertest.Forward(t, layers.NewZeroPadding2D(2, 1, 1, 0), false, ops.Value{Shape: s, Data: x})
	os := ops.Shape{2, 5, 4, 2}
	if !y.Shape.Equal(os) {
		t.Fatalf("shape %v, want %v", y.Shape, os)
	}
	want := make([]float64, os.Size())
	for b := 0; b < 2; b++ {
		for i := 0; i < 2; i++ {
			for j := 0; j < 3; j++ {
				for c := 0; c < 2; c++ {
					want[((b*5+i+2)*4+j+1)*2+c] = float64(x[((b*2+i)*3+j)*2+c])
				}
			}
		}
	}
	layertest.AllClose(t, "padded", y.Data, want, 0)
}

func TestZeroPadding2DConfigAndErrors(t *testing.T) {
	cfg := layers.NewZeroPadding2D(1, 2, 3, 4).GetConfig()
	p, ok := cfg["padding"].([]any)
	if !ok || len(p) != 2 || p[0].([]any)[0] != 1 || p[0].([]any)[1] != 2 || p[1].([]any)[0] != 3 || p[1].([]any)[1] != 4 || cfg["data_format"] != "channels_last" {
		t.Errorf("config %v", cfg)
	}
	wantErr(t, layers.NewZeroPadding2D(1, -1, 0, 0, layers.WithName("zp")).Err(), "ZeroPadding2D", "zp", "non-negative")
	wantErr(t, layers.NewZeroPadding2DUniform(1, layers.WithPadding("same")).Err(), "ZeroPadding2D", "padding")
	_, err := layers.OutputShape(layers.NewZeroPadding2DUniform(1), []ops.Shape{{-1, 4, 4}})
	wantErr(t, err, "ZeroPadding2D", "rank-4")
}
