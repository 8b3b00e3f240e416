// Package layertest is the shared conformance check for Keras layers of
// package keras/layers, in the spirit of Keras' testing_utils.layer_test.
//
// [Run] (one input) and [RunN] (several inputs) take a fresh layer and:
//
//   - build it through [layers.OutputShape] on symbolic shapes (batch -1)
//     and compare the symbolic output shape and the parameter count;
//   - check GetConfig: "name" (equal to Name()), "trainable", "dtype", the
//     Keras keys of the layer's class, and that it encodes as JSON;
//   - trace a forward pass on random input, compile it with package engine
//     and run it in inference and in training, checking the output's shape
//     and that every value is finite;
//   - ask [ops.Gradients] for d sum(output) / d (input, trainable weights):
//     none may be missing, each must run to a finite value of the right
//     shape, and in inference a few entries are compared with central
//     finite differences.
//
// [Forward] runs a layer on given values, for the value checks (does Dense
// compute x·W+b?) that stay in each layer's own tests.
package layertest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// configKeys are the Keras config keys each class must report besides
// name, trainable and dtype.
var configKeys = map[string][]string{
	"Dense": {"units", "activation", "use_bias", "kernel_initializer", "bias_initializer",
		"kernel_regularizer", "bias_regularizer"},
	"Conv2D": {"filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "activation",
		"use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer"},
	"MaxPooling2D":     {"pool_size", "strides", "padding", "data_format"},
	"AveragePooling2D": {"pool_size", "strides", "padding", "data_format"},
	"Flatten":          {"data_format"},
	"Reshape":          {"target_shape"},
	"Dropout":          {"rate", "noise_shape", "seed"},
	"Activation":       {"activation"},
	"ReLU":             {"max_value", "negative_slope", "threshold"},
	"LeakyReLU":        {"negative_slope"},
	"ELU":              {"alpha"},
	"PReLU":            {"alpha_initializer", "alpha_regularizer", "alpha_constraint", "shared_axes"},
	"Softmax":          {"axis"},
	"Rescaling":        {"scale", "offset"},
}

// Run checks a single-input layer: inShape and wantOutShape include a
// concrete batch dimension; wantParams is the number of weight values.
func Run(t *testing.T, layer layers.Layer, inShape, wantOutShape ops.Shape, wantParams int) {
	t.Helper()
	runN(t, layer, []ops.Shape{inShape}, wantOutShape, wantParams)
}

// RunN is [Run] for a layer with several inputs, such as Add.
func RunN(t *testing.T, layer layers.Layer, inShapes []ops.Shape, wantOutShape ops.Shape, wantParams int) {
	t.Helper()
	runN(t, layer, inShapes, wantOutShape, wantParams)
}

func runN(t testing.TB, layer layers.Layer, inShapes []ops.Shape, wantOutShape ops.Shape, wantParams int) {
	t.Helper()
	sym := make([]ops.Shape, len(inShapes))
	for i, s := range inShapes {
		sym[i] = batchless(s)
	}
	got, err := layers.OutputShape(layer, sym)
	if err != nil {
		t.Fatalf("%s: OutputShape(%v): %v", layer.ClassName(), sym, err)
	}
	if want := batchless(wantOutShape); !got.Equal(want) {
		t.Errorf("%s: symbolic output shape %v, want %v", layer.ClassName(), got, want)
	}
	if !layer.Built() {
		t.Errorf("%s: not built after OutputShape", layer.ClassName())
	}
	params := 0
	for _, w := range layer.Weights() {
		params += w.Shape().Size()
	}
	if params != wantParams {
		t.Errorf("%s: %d parameters, want %d", layer.ClassName(), params, wantParams)
	}
	checkConfig(t, layer)

	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]*ops.Variable, len(inShapes))
	for i, s := range inShapes {
		data := make([]float32, s.Size())
		for j := range data {
			data[j] = float32(rng.NormFloat64())
		}
		xs[i] = ops.NewVariable(fmt.Sprintf("layertest/x%d", i), s, data, true)
	}
	for _, training := range []bool{false, true} {
		forward(t, layer, xs, wantOutShape, training)
	}
}

// forward runs the layer on inputs held in variables (so gradients reach
// them too) and checks the output and the gradients of its sum.
func forward(t testing.TB, layer layers.Layer, xs []*ops.Variable, wantOut ops.Shape, training bool) {
	t.Helper()
	name := fmt.Sprintf("%s (training=%v)", layer.ClassName(), training)
	wrt := append(append([]*ops.Variable(nil), xs...), layer.TrainableWeights()...)
	if training && noInputGradientInTraining[layer.ClassName()] {
		wrt = layer.TrainableWeights()
	}
	p, err := build(layer, xs, wrt, training)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	outs, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatalf("%s: run: %v", name, err)
	}
	if !outs[0].Shape.Equal(wantOut) {
		t.Errorf("%s: output shape %v, want %v", name, outs[0].Shape, wantOut)
	}
	for i, o := range outs {
		what := "output"
		if i > 0 {
			what = "gradient of " + wrt[i-1].Name()
			if !o.Shape.Equal(wrt[i-1].Shape()) {
				t.Errorf("%s: %s has shape %v, want %v", name, what, o.Shape, wrt[i-1].Shape())
			}
		}
		for j, v := range o.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s: %s[%d] = %v", name, what, j, v)
			}
		}
	}
	if training {
		return // dropout draws a new mask per run: no finite differences
	}
	grads := make([][]float32, len(wrt))
	for i := range wrt {
		grads[i] = append([]float32(nil), outs[i+1].Data...)
	}
	loss := func() float64 {
		o, err := p.Run(engine.Single{}, nil)
		if err != nil {
			t.Fatalf("%s: run: %v", name, err)
		}
		var s float64
		for _, v := range o[0].Data {
			s += float64(v)
		}
		return s
	}
	diff := func(data []float32, j int, eps float32) float64 {
		old := data[j]
		data[j] = old + eps
		up := loss()
		data[j] = old - eps
		down := loss()
		data[j] = old
		return (up - down) / float64(2*eps)
	}
	for i, v := range wrt {
		data := v.Data(0)
		for _, j := range []int{0, len(data) / 2, len(data) - 1} {
			num := diff(data, j, 1e-3)
			tol := 1e-2 + 1e-2*math.Abs(num)
			if math.Abs(num-diff(data, j, 4e-3)) > tol {
				continue // a kink (relu, max) within reach: not comparable
			}
			if g := float64(grads[i][j]); math.Abs(g-num) > tol {
				t.Errorf("%s: d sum(output)/d %s[%d] = %v, finite differences give %v", name, v.Name(), j, g, num)
			}
		}
	}
}

// build traces the layer on the variables xs and compiles a program whose
// outputs are the layer's output and d sum(output) / d wrt.
func build(layer layers.Layer, xs, wrt []*ops.Variable, training bool) (p *engine.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*ops.Error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	tr := ops.NewTrace(training, 0, 42)
	ins := make([]ops.Tensor, len(xs))
	for i, x := range xs {
		ins[i] = tr.Read(x)
	}
	y := layer.Call(ins, training)
	grads, err := ops.Gradients(ops.Sum(y, false), wrt)
	if err != nil {
		return nil, err
	}
	for i, g := range grads {
		if g.IsNone() {
			return nil, fmt.Errorf("no gradient reaches %s", wrt[i].Name())
		}
	}
	return engine.Compile(tr, append([]ops.Tensor{y}, grads...))
}

// noInputGradientInTraining: classes whose training output does not
// depend differentiably on their input, as in Keras (RandomPosterization
// casts to uint8, which TensorFlow does not differentiate): in training
// no gradient is asked of their input.
var noInputGradientInTraining = map[string]bool{"RandomPosterization": true}

// noTrainableKey: classes whose Keras config has no "trainable" (their
// get_config lists its keys itself and their constructors take no
// **kwargs, so Keras refuses a file that has it).
var noTrainableKey = map[string]bool{"SpatialDropout1D": true, "SpatialDropout2D": true, "SpatialDropout3D": true}

func checkConfig(t testing.TB, layer layers.Layer) {
	t.Helper()
	cfg := layer.GetConfig()
	if cfg["name"] != layer.Name() {
		t.Errorf("%s: config name %v, want %q", layer.ClassName(), cfg["name"], layer.Name())
	}
	want := []string{"trainable", "dtype"}
	if noTrainableKey[layer.ClassName()] {
		want = want[1:]
		if _, ok := cfg["trainable"]; ok {
			t.Errorf("%s: config has \"trainable\", which Keras' constructor refuses: %v", layer.ClassName(), cfg)
		}
	}
	for _, k := range append(want, configKeys[layer.ClassName()]...) {
		if _, ok := cfg[k]; !ok {
			t.Errorf("%s: config lacks %q: %v", layer.ClassName(), k, cfg)
		}
	}
	if _, err := json.Marshal(cfg); err != nil {
		t.Errorf("%s: config does not encode as JSON: %v", layer.ClassName(), err)
	}
}

// Forward builds layer if needed (for the inputs' shapes, batch unknown)
// and returns its output on inputs, computed by tracing a call and running
// it with package engine. The result is a copy the caller owns.
func Forward(t *testing.T, layer layers.Layer, training bool, inputs ...ops.Value) ops.Value {
	t.Helper()
	shapes := make([]ops.Shape, len(inputs))
	for i, in := range inputs {
		shapes[i] = batchless(in.Shape)
	}
	if !layer.Built() {
		if _, err := layers.OutputShape(layer, shapes); err != nil {
			t.Fatalf("%s: OutputShape(%v): %v", layer.ClassName(), shapes, err)
		}
	}
	var (
		p   *engine.Program
		err error
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				e, ok := r.(*ops.Error)
				if !ok {
					panic(r)
				}
				err = e
			}
		}()
		tr := ops.NewTrace(training, 0, 7)
		ins := make([]ops.Tensor, len(inputs))
		for i, in := range inputs {
			ins[i] = tr.Input(fmt.Sprint("x", i), in.Shape)
		}
		p, err = engine.Compile(tr, []ops.Tensor{layer.Call(ins, training)})
	}()
	if err != nil {
		t.Fatalf("%s: %v", layer.ClassName(), err)
	}
	outs, err := p.Run(engine.Single{}, inputs)
	if err != nil {
		t.Fatalf("%s: run: %v", layer.ClassName(), err)
	}
	return ops.Value{Shape: outs[0].Shape.Clone(), Data: append([]float32(nil), outs[0].Data...)}
}

// batchless returns s with the batch dimension unknown (-1).
func batchless(s ops.Shape) ops.Shape {
	c := s.Clone()
	if len(c) > 0 {
		c[0] = -1
	}
	return c
}

// AllClose reports (as test errors) the entries of got that differ from
// want by more than tol + tol*|want|, and a length mismatch.
func AllClose(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= tol+tol*math.Abs(want[i])) {
			if bad++; bad <= 5 {
				t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d values differ", what, bad, len(got))
	}
}
