package keras

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// TestMoreLayersRoundTrip: every class of registry_more_layers.go comes
// back from its config.
func TestMoreLayersRoundTrip(t *testing.T) {
	layers.ClearSession()
	seq := func() *layers.KerasTensor { return layers.Input([]int{6, 4}) }
	img := func() *layers.KerasTensor { return layers.Input([]int{4, 4, 2}) }
	vol := func() *layers.KerasTensor { return layers.Input([]int{3, 4, 3, 2}) }
	cases := []struct {
		l  layers.Layer
		in []*layers.KerasTensor
	}{
		{layers.NewAverage(), []*layers.KerasTensor{seq(), seq(), seq()}},
		{layers.NewSubtract(layers.WithName("sub")), []*layers.KerasTensor{seq(), seq()}},
		{layers.NewMaximum(), []*layers.KerasTensor{seq(), seq()}},
		{layers.NewMinimum(), []*layers.KerasTensor{seq(), seq()}},
		{layers.NewDot([]int{2}, layers.WithNormalize(true)), []*layers.KerasTensor{seq(), seq()}},
		{layers.NewDot([]int{1, 2}), []*layers.KerasTensor{layers.Input([]int{3, 5}), layers.Input([]int{4, 3})}},
		{layers.NewGaussianNoise(0.2, layers.WithSeed(4)), []*layers.KerasTensor{seq()}},
		{layers.NewGaussianDropout(0.3), []*layers.KerasTensor{seq()}},
		{layers.NewAlphaDropout(0.1, layers.WithSeed(2)), []*layers.KerasTensor{seq()}},
		{layers.NewAlphaDropout(0.1, layers.WithNoiseShape(layers.None, 1, 4)), []*layers.KerasTensor{seq()}},
		{layers.NewSpatialDropout1D(0.2), []*layers.KerasTensor{seq()}},
		{layers.NewSpatialDropout2D(0.2, layers.WithSeed(1)), []*layers.KerasTensor{img()}},
		{layers.NewSpatialDropout3D(0.2), []*layers.KerasTensor{vol()}},
		{layers.NewGroupNormalization(2, layers.WithEpsilon(0.01), layers.WithCenter(false),
			layers.WithGammaInitializer(layers.Constant(2)), layers.WithGammaRegularizer(layers.L2(0.1)),
			layers.WithGammaConstraint(layers.MaxNorm(1.5))), []*layers.KerasTensor{seq()}},
		{layers.NewGroupNormalization(-1, layers.WithAxis(1), layers.WithBetaConstraint(layers.NonNeg()),
			layers.WithBetaInitializer(layers.Ones()), layers.WithBetaRegularizer(layers.L1(0.2))), []*layers.KerasTensor{seq()}},
		{layers.NewRMSNormalization(layers.WithEpsilon(1e-3)), []*layers.KerasTensor{seq()}},
		{layers.NewActivityRegularization(0.01, 0.5, layers.WithName("act_reg")), []*layers.KerasTensor{seq()}},
		{layers.NewRMSNormalization(layers.WithAxes(1, 2)), []*layers.KerasTensor{seq()}},
		{layers.NewUnitNormalization(layers.WithAxes(-2, -1)), []*layers.KerasTensor{seq()}},
		{layers.NewUnitNormalization(), []*layers.KerasTensor{seq()}},
		{layers.NewZeroPadding1D(2, 0), []*layers.KerasTensor{seq()}},
		{layers.NewZeroPadding3D([3][2]int{{1, 0}, {2, 2}, {0, 1}}), []*layers.KerasTensor{vol()}},
		{layers.NewCropping1D(1, 2), []*layers.KerasTensor{seq()}},
		{layers.NewCropping3D([3][2]int{{1, 0}, {1, 2}, {0, 1}}), []*layers.KerasTensor{vol()}},
		{layers.NewUpSampling1D(3), []*layers.KerasTensor{seq()}},
		{layers.NewUpSampling3D(2, 1, 3), []*layers.KerasTensor{vol()}},
		{layers.NewGlobalAveragePooling3D(layers.WithKeepDims(true)), []*layers.KerasTensor{vol()}},
		{layers.NewGlobalMaxPooling3D(), []*layers.KerasTensor{vol()}},
		{layers.NewRandomBrightness(layers.RandomBrightnessSettings{Range: &[2]float64{-0.1, 0.3}, ValueRange: &[2]float64{0, 1}},
			layers.WithSeed(3)), []*layers.KerasTensor{img()}},
		{layers.NewDepthwiseConv1D(3, layers.WithDepthMultiplier(2), layers.WithPadding("same"), layers.WithActivation("relu"),
			layers.WithDepthwiseConstraint(layers.NonNeg())), []*layers.KerasTensor{seq()}},
		{layers.NewSeparableConv1D(3, 2, layers.WithStrides(2), layers.WithPointwiseRegularizer(layers.L2(0.1)),
			layers.WithPointwiseConstraint(layers.MaxNorm(1))), []*layers.KerasTensor{seq()}},
		{layers.NewConv1DTranspose(2, 3, layers.WithStrides(2), layers.WithOutputPadding(1), layers.WithKernelConstraint(layers.UnitNorm())),
			[]*layers.KerasTensor{seq()}},
		{layers.NewConv3D(2, 0, layers.WithKernelSize(2, 3, 1), layers.WithPadding("same"), layers.WithBiasConstraint(layers.NonNeg())),
			[]*layers.KerasTensor{vol()}},
		{layers.NewMaxPooling3D(layers.WithPoolSize(2, 2, 1), layers.WithPadding("same")), []*layers.KerasTensor{vol()}},
		{layers.NewAveragePooling3D(layers.WithPoolSize(1, 2, 2), layers.WithStrides(1)), []*layers.KerasTensor{vol()}},
		{layers.NewEinsumDense("abc,cde->abde", []int{-1, 2, 3}, layers.WithBiasAxes("e"), layers.WithActivation("relu"),
			layers.WithKernelConstraint(layers.MaxNorm(1, 0))), []*layers.KerasTensor{seq()}},
		{layers.NewEinsumDense("...b,bc->...c", []int{3}), []*layers.KerasTensor{vol()}},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		roundTrip(t, c.l, c.in...)
		covered[c.l.ClassName()] = true
	}
	for _, class := range moreLayers {
		if !covered[class] {
			t.Errorf("registered class %s is not tested", class)
		}
	}
}

// FuzzMoreLayerFromConfig: any JSON config of the classes of
// registry_more_layers.go gives a layer or an error, and building the
// layer on small inputs of its rank gives an output shape or an error:
// never a panic, a hang or a huge allocation.
//
//	go test ./keras/ -run '^$' -fuzz '^FuzzMoreLayerFromConfig$' -fuzztime 1m
func FuzzMoreLayerFromConfig(f *testing.F) {
	layers.ClearSession()
	seeds := []layers.Layer{
		layers.NewDot([]int{1, 2}, layers.WithNormalize(true)),
		layers.NewGaussianNoise(0.2, layers.WithSeed(1)),
		layers.NewGroupNormalization(2, layers.WithGammaConstraint(layers.MaxNorm(1, 0))),
		layers.NewRMSNormalization(layers.WithAxes(1, 2)),
		layers.NewZeroPadding3D([3][2]int{{1, 0}, {0, 2}, {1, 1}}),
		layers.NewCropping1D(1, 2),
		layers.NewUpSampling3D(2, 1, 3),
		layers.NewConv3D(2, 0, layers.WithKernelSize(2, 1, 2), layers.WithStrides(2), layers.WithPadding("same")),
		layers.NewMaxPooling3D(layers.WithPoolSize(3, 2, 2), layers.WithPadding("same")),
		layers.NewConv1DTranspose(2, 3, layers.WithStrides(2), layers.WithOutputPadding(1)),
		layers.NewSeparableConv1D(2, 2, layers.WithDepthMultiplier(2)),
		layers.NewRandomBrightness(layers.RandomBrightnessSettings{Factor: 0.3}),
		layers.NewEinsumDense("abc,cde->abde", []int{-1, 2, 3}, layers.WithBiasAxes("de")),
	}
	for i, l := range seeds {
		b, err := json.Marshal(l.GetConfig())
		if err != nil {
			f.Fatal(err)
		}
		for j, c := range moreLayers {
			if c == l.ClassName() {
				f.Add(uint8(j), uint8(i), b)
			}
		}
	}
	shapes := []ops.Shape{{-1, 6}, {-1, 6, 4}, {-1, 4, 4, 2}, {-1, 3, 4, 3, 2}}
	f.Fuzz(func(t *testing.T, class, rank uint8, cfgJSON []byte) {
		var cfg map[string]any
		if json.Unmarshal(cfgJSON, &cfg) != nil {
			return
		}
		l, err := LayerFromConfig(moreLayers[int(class)%len(moreLayers)], cfg)
		if err != nil {
			return
		}
		var budget int64 = 1 << 20 // weight values a small file could hold
		if b, ok := l.(interface{ LimitWeights(*int64) }); ok {
			b.LimitWeights(&budget)
		}
		in := shapes[int(rank)%len(shapes)]
		n := 1
		if l.ClassName() == "Dot" || l.ClassName() == "Subtract" || rank >= 128 {
			n = 2
		}
		ins := make([]ops.Shape, n)
		for i := range ins {
			ins[i] = in
		}
		layers.OutputShape(l, ins)
	})
}

// TestDeepWindowsAreCheap: a 3-D pooling or convolution window far deeper
// than its input (a count a config may declare up to the tensor budget)
// builds and runs the taps that read the input only, not one per window
// position.
func TestDeepWindowsAreCheap(t *testing.T) {
	for _, cfg := range []struct {
		class string
		m     map[string]any
	}{
		{"MaxPooling3D", map[string]any{"pool_size": []any{float64(1 << 22), 1.0, 1.0}, "strides": []any{1.0, 1.0, 1.0}, "padding": "same"}},
		{"AveragePooling3D", map[string]any{"pool_size": []any{float64(1 << 22), 1.0, 1.0}, "padding": "same"}},
	} {
		l, err := LayerFromConfig(cfg.class, cfg.m)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var out ops.Shape
		alloc := allocDuring(func() { out, err = layers.OutputShape(l, []ops.Shape{{-1, 3, 2, 2, 1}}) })
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 2*time.Second || alloc > 16<<20 {
			t.Errorf("%s over a window of 2^22: %v and %d bytes for output %v", cfg.class, d, alloc, out)
		}
	}
}
