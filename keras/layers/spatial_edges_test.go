package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// The 1-D and 3-D padding, cropping and upsampling layers.

func TestPaddingCroppingUpsamplingConformance(t *testing.T) {
	layertest.Run(t, layers.NewZeroPadding1D(1, 2), ops.Shape{2, 3, 2}, ops.Shape{2, 6, 2}, 0)
	layertest.Run(t, layers.NewZeroPadding3D([3][2]int{{1, 0}, {0, 2}, {1, 1}}), ops.Shape{1, 2, 2, 1, 2}, ops.Shape{1, 3, 4, 3, 2}, 0)
	layertest.Run(t, layers.NewCropping1D(1, 2), ops.Shape{2, 6, 2}, ops.Shape{2, 3, 2}, 0)
	layertest.Run(t, layers.NewCropping3D([3][2]int{{1, 0}, {0, 1}, {1, 1}}), ops.Shape{1, 3, 3, 4, 2}, ops.Shape{1, 2, 2, 2, 2}, 0)
	layertest.Run(t, layers.NewUpSampling1D(3), ops.Shape{2, 3, 2}, ops.Shape{2, 9, 2}, 0)
	layertest.Run(t, layers.NewUpSampling3D(2, 1, 3), ops.Shape{1, 2, 2, 2, 2}, ops.Shape{1, 4, 2, 6, 2}, 0)
}

func TestPaddingCroppingUpsamplingValues(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{1, 3, 1}, Data: []float32{1, 2, 3}}
	layertest.AllClose(t, "ZeroPadding1D", layertest.Forward(t, layers.NewZeroPadding1D(2, 1), false, x).Data, []float64{0, 0, 1, 2, 3, 0}, 0)
	layertest.AllClose(t, "Cropping1D", layertest.Forward(t, layers.NewCropping1D(1, 1), false, x).Data, []float64{2}, 0)
	layertest.AllClose(t, "UpSampling1D", layertest.Forward(t, layers.NewUpSampling1D(2), false, x).Data, []float64{1, 1, 2, 2, 3, 3}, 0)
	v := ops.Value{Shape: ops.Shape{1, 2, 1, 2, 1}, Data: []float32{1, 2, 3, 4}} // depth 2, width 2
	layertest.AllClose(t, "UpSampling3D", layertest.Forward(t, layers.NewUpSampling3D(2, 2, 1), false, v).Data,
		[]float64{1, 2, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 3, 4}, 0)
	layertest.AllClose(t, "ZeroPadding3D", layertest.Forward(t, layers.NewZeroPadding3D([3][2]int{{0, 1}, {0, 0}, {1, 0}}), false, v).Data,
		[]float64{0, 1, 2, 0, 3, 4, 0, 0, 0}, 0)
	layertest.AllClose(t, "Cropping3D", layertest.Forward(t, layers.NewCropping3D([3][2]int{{1, 0}, {0, 0}, {0, 1}}), false, v).Data,
		[]float64{3}, 0)
}

func TestPaddingCroppingUpsamplingErrors(t *testing.T) {
	for _, err := range []error{
		layers.NewZeroPadding1D(-1, 0).Err(), layers.NewCropping1D(0, -2).Err(),
		layers.NewZeroPadding3D([3][2]int{{0, 0}, {-1, 0}, {0, 0}}).Err(), layers.NewCropping3D([3][2]int{{0, -1}}).Err(),
		layers.NewUpSampling1D(0).Err(), layers.NewUpSampling3D(1, 0, 1).Err(),
	} {
		if err == nil {
			t.Error("a negative size was accepted")
		}
	}
	wantErr(t, layers.Apply(layers.NewCropping1D(2, 2, layers.WithName("c1")), layers.Input([]int{4, 2})).Err(), "c1", "leaves nothing")
	wantErr(t, layers.Apply(layers.NewCropping3D([3][2]int{{0, 0}, {0, 0}, {2, 1}}, layers.WithName("c3")), layers.Input([]int{2, 2, 3, 1})).Err(),
		"c3", "leaves nothing")
	wantErr(t, layers.Apply(layers.NewZeroPadding1D(1, 1, layers.WithName("z1")), layers.Input([]int{4, 2, 1})).Err(), "z1", "rank-3")
	wantErr(t, layers.Apply(layers.NewUpSampling3D(2, 2, 2, layers.WithName("u3")), layers.Input([]int{4, 2})).Err(), "u3", "rank-5")
}
