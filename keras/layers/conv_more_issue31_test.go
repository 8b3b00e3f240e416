package layers_test

import (
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// The convolutions and poolings of issue 31's optional list: finite
// differences of every gradient (layertest) on their 1-D and 3-D
// geometries; their values are checked against Keras in
// keras/layer_vectors_more_layers_test.go.

func TestConv1DVariantsConformance(t *testing.T) {
	layertest.Run(t, layers.NewDepthwiseConv1D(3, layers.WithDepthMultiplier(2)), ops.Shape{2, 6, 3}, ops.Shape{2, 4, 6}, 3*3*2+6)
	layertest.Run(t, layers.NewDepthwiseConv1D(2, layers.WithStrides(2), layers.WithPadding("same")), ops.Shape{1, 7, 2}, ops.Shape{1, 4, 2}, 2*2+2)
	layertest.Run(t, layers.NewSeparableConv1D(4, 3, layers.WithPadding("same")), ops.Shape{2, 5, 3}, ops.Shape{2, 5, 4}, 3*3+3*4+4)
	layertest.Run(t, layers.NewConv1DTranspose(3, 3), ops.Shape{2, 4, 2}, ops.Shape{2, 6, 3}, 3*3*2+3)
	layertest.Run(t, layers.NewConv1DTranspose(2, 2, layers.WithStrides(3), layers.WithOutputPadding(1)), ops.Shape{1, 3, 2}, ops.Shape{1, 9, 2}, 2*2*2+2)
}

func TestConv3DConformance(t *testing.T) {
	layertest.Run(t, layers.NewConv3D(2, 2), ops.Shape{2, 3, 3, 3, 2}, ops.Shape{2, 2, 2, 2, 2}, 2*2*2*2*2+2)
	layertest.Run(t, layers.NewConv3D(2, 0, layers.WithKernelSize(3, 2, 3), layers.WithStrides(2, 1, 2), layers.WithPadding("same")),
		ops.Shape{1, 5, 4, 5, 1}, ops.Shape{1, 3, 4, 3, 2}, 3*2*3*2+2)
	layertest.Run(t, layers.NewConv3D(1, 2, layers.WithDilationRate(2, 1, 1), layers.WithUseBias(false)), ops.Shape{1, 4, 3, 3, 2}, ops.Shape{1, 2, 2, 2, 1}, 16)
}

// TestConv3DValues: a 2x1x1 kernel of ones sums each voxel with the one
// behind it.
func TestConv3DValues(t *testing.T) {
	l := layers.NewConv3D(1, 0, layers.WithKernelSize(2, 1, 1), layers.WithKernelInitializer(layers.Ones()), layers.WithUseBias(false))
	x := ops.Value{Shape: ops.Shape{1, 3, 1, 2, 1}, Data: []float32{1, 2, 3, 4, 5, 6}}
	layertest.AllClose(t, "Conv3D", layertest.Forward(t, l, false, x).Data, []float64{1 + 3, 2 + 4, 3 + 5, 4 + 6}, 0)
}

func TestPooling3DConformance(t *testing.T) {
	distinct := ops.Shape{2, 4, 4, 2, 2}
	layertest.Run(t, layers.NewMaxPooling3D(), distinct, ops.Shape{2, 2, 2, 1, 2}, 0)
	layertest.Run(t, layers.NewAveragePooling3D(layers.WithPoolSize(3), layers.WithStrides(2), layers.WithPadding("same")),
		ops.Shape{1, 5, 4, 5, 2}, ops.Shape{1, 3, 2, 3, 2}, 0)
	layertest.Run(t, layers.NewMaxPooling3D(layers.WithPoolSize(3, 2, 2), layers.WithStrides(2, 1, 2), layers.WithPadding("same")),
		ops.Shape{1, 5, 3, 3, 2}, ops.Shape{1, 3, 3, 2, 2}, 0)
	layertest.Run(t, layers.NewGlobalAveragePooling3D(), ops.Shape{2, 2, 3, 2, 3}, ops.Shape{2, 3}, 0)
	layertest.Run(t, layers.NewGlobalMaxPooling3D(layers.WithKeepDims(true)), ops.Shape{2, 2, 3, 2, 3}, ops.Shape{2, 1, 1, 1, 3}, 0)
}

// TestPooling3DSamePadding: "same" padding never wins a maximum, even
// over negative values, and is left out of a mean.
func TestPooling3DSamePadding(t *testing.T) {
	x := ops.Value{Shape: ops.Shape{1, 3, 1, 1, 1}, Data: []float32{-1, -2, -3}}
	same := []layers.Option{layers.WithPoolSize(2, 1, 1), layers.WithStrides(2, 1, 1), layers.WithPadding("same")}
	layertest.AllClose(t, "MaxPooling3D", layertest.Forward(t, layers.NewMaxPooling3D(same...), false, x).Data, []float64{-1, -3}, 0)
	layertest.AllClose(t, "AveragePooling3D", layertest.Forward(t, layers.NewAveragePooling3D(same...), false, x).Data, []float64{-1.5, -3}, 1e-6)
}

func TestConvMoreIssue31Errors(t *testing.T) {
	for _, err := range []error{
		layers.NewConv3D(0, 2).Err(), layers.NewConv3D(2, 2, layers.WithKernelSize(2, 2)).Err(),
		layers.NewConv3D(2, 2, layers.WithStrides(2), layers.WithDilationRate(2)).Err(),
		layers.NewDepthwiseConv1D(0).Err(), layers.NewSeparableConv1D(0, 2).Err(),
		layers.NewConv1DTranspose(2, 2, layers.WithStrides(2), layers.WithOutputPadding(2)).Err(),
		layers.NewMaxPooling3D(layers.WithPoolSize(2, 0, 2)).Err(),
	} {
		if err == nil {
			t.Error("bad arguments accepted")
		}
	}
	wantErr(t, layers.Apply(layers.NewConv3D(2, 3, layers.WithName("c3")), layers.Input([]int{2, 4, 4, 1})).Err(), "c3", "smaller than")
	wantErr(t, layers.Apply(layers.NewMaxPooling3D(layers.WithName("p3")), layers.Input([]int{4, 4, 1})).Err(), "p3", "rank-5")
	wantErr(t, layers.Apply(layers.NewSeparableConv1D(2, 2, layers.WithName("s1")), layers.Input([]int{4, 4, 1})).Err(), "s1", "rank-3")
}
