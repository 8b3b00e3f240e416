package applications

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras"
)

// predCase is one case of testdata/keras/predictions.json: Keras'
// output for the model of the constructor and arguments, with the
// weights of weightValues and the input of inputValues (or, with File,
// the weights of mobilenet_025.weights.h5), as a strided sample.
type predCase struct {
	Constructor string
	Kwargs      map[string]any
	Input       string
	File        bool
	KerasFile   string `json:"keras_file"`
	NormFile    bool   `json:"norm_file"`
	OutputShape []int  `json:"output_shape"`
	Output      struct {
		Size, Stride int
		Values       []float64
		Mean         float64
		MeanAbs      float64 `json:"mean_abs"`
	}
}

// pathPhase is the script's path_phase: the key's bytes weighted by
// their position, mod 1000, over 1000.
func pathPhase(key string) float64 {
	s := 0
	for i, b := range []byte(key) {
		s += (i + 1) * int(b)
	}
	return float64(s%1000) / 1000
}

// weightValues is the script's weight_values: a variable's values from
// its key ("<layer name>/<index among the layer's variables>"), its
// Keras name ("kernel", "moving_variance"), its layer's class and its
// shape.
func weightValues(key, name, class string, shape []int) []float32 {
	n := 1
	for _, d := range shape {
		n *= d
	}
	phase := 6.2831853*pathPhase(key) + 0.3
	fanIn := 1
	switch {
	case len(shape) == 4 && (class == "DepthwiseConv2D" || name == "depthwise_kernel"):
		fanIn = shape[0] * shape[1]
	case len(shape) >= 2:
		for _, d := range shape[:len(shape)-1] {
			fanIn *= d
		}
	}
	out := make([]float32, n)
	for i := range out {
		s := math.Sin(0.61*float64(i) + phase)
		var v float64
		switch name {
		case "moving_variance", "variance":
			v = 1 + 0.5*s
		case "gamma":
			v = 1 + 0.25*s
		case "moving_mean", "mean", "beta", "bias":
			v = 0.1 * s
		default:
			v = s * 2 / math.Sqrt(float64(fanIn))
		}
		out[i] = float32(v)
	}
	return out
}

// setFormulaWeights gives every variable of m its weightValues.
func setFormulaWeights(t *testing.T, m *keras.Model) {
	t.Helper()
	paths := kerasPaths(m)
	for _, l := range m.Layers() {
		for i, v := range l.Weights() {
			if strings.HasSuffix(v.Name(), "/count") {
				continue
			}
			p := paths[v]
			key := l.Name() + "/" + strconv.Itoa(i)
			if err := v.Assign(weightValues(key, p[strings.LastIndex(p, "/")+1:], l.ClassName(), v.Shape())); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// inputValues is the script's input_values.
func inputValues(kind string, shape []int) *tensor.Dense {
	n := 1
	for _, d := range shape {
		n *= d
	}
	x := make([]float32, n)
	for i := range x {
		s := math.Sin(0.37*float64(i) + 0.5)
		if kind == "pixels" {
			s = 127.5 + 127.5*s
		}
		x[i] = float32(s)
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(x))
}

// predTol is the predictions' tolerance, relative to the larger of the
// value and the outputs' mean magnitude.
const predTol = 1e-5

// comparePrediction checks m's output for the case's input against
// Keras' sample and returns the largest difference (relative to the
// larger of the value and the outputs' mean magnitude).
func comparePrediction(t *testing.T, m *keras.Model, c predCase) float64 {
	t.Helper()
	shape := []int{1}
	for _, d := range c.Kwargs["input_shape"].([]any) {
		shape = append(shape, int(d.(float64)))
	}
	y, err := m.Predict(inputValues(c.Input, shape), keras.PredictConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if got := y.Shape(); len(got) != len(c.OutputShape) {
		t.Fatalf("output shape %v, Keras %v", got, c.OutputShape)
	}
	ys := y.Data().([]float32)
	if len(ys) != c.Output.Size {
		t.Fatalf("%d outputs, Keras %d", len(ys), c.Output.Size)
	}
	scale := c.Output.MeanAbs
	worst := 0.0
	bad := 0
	for j, want := range c.Output.Values {
		got := float64(ys[j*c.Output.Stride])
		d := math.Abs(got-want) / math.Max(math.Abs(want), scale)
		if !(d <= predTol) {
			if bad++; bad <= 3 {
				t.Errorf("output[%d] = %.7g, Keras %.7g", j*c.Output.Stride, got, want)
			}
		}
		worst = max(worst, d)
	}
	mean, meanAbs := 0.0, 0.0
	for _, v := range ys {
		mean += float64(v)
		meanAbs += math.Abs(float64(v))
	}
	mean /= float64(len(ys))
	meanAbs /= float64(len(ys))
	if d := math.Abs(meanAbs-c.Output.MeanAbs) / scale; !(d <= predTol) {
		t.Errorf("mean |output| %.7g, Keras %.7g", meanAbs, c.Output.MeanAbs)
	}
	if d := math.Abs(mean-c.Output.Mean) / scale; !(d <= predTol) {
		t.Errorf("mean output %.7g, Keras %.7g", mean, c.Output.Mean)
	}
	return worst
}

// TestPredictionsMatchKeras: each case's model, with the weights of the
// script's formula, predicts Keras' outputs for the formula's input.
func TestPredictionsMatchKeras(t *testing.T) {
	for _, c := range kerasvectors.Read[predCase](t, "testdata/keras/predictions.json") {
		if c.File || c.KerasFile != "" || c.NormFile {
			continue // TestKerasWeightFilesLoad, TestCustomScaleLayerKerasFile, TestNormalizationCountLoads
		}
		t.Run(caseName(c.Constructor, c.Kwargs), func(t *testing.T) {
			m := build(t, c.Constructor, c.Kwargs)
			setFormulaWeights(t, m)
			worst := comparePrediction(t, m, c)
			t.Logf("largest difference from Keras %.2g (of the outputs' mean magnitude %.3g)", worst, c.Output.MeanAbs)
		})
	}
}
