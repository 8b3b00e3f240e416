package keras_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// The guide "Making new layers and models via subclassing", end to end:
// Sampling, Encoder and Decoder layers and the VariationalAutoEncoder
// model, each holding its parts in plain fields.

type sampling struct {
	layers.Base
	seed *ops.SeedGenerator
}

func newSampling() *sampling {
	return &sampling{Base: layers.NewBase("Sampling"), seed: ops.NewSeedGenerator("sampling/seed", 1337)}
}

func (s *sampling) Call(in []ops.Tensor, _ bool) ops.Tensor {
	zMean, zLogVar := in[0], in[1]
	eps := ops.RandomNormal(zMean.Trace(), zMean.Shape(), 0, 1, s.seed)
	return ops.Add(zMean, ops.Mul(ops.Exp(ops.Scale(zLogVar, 0.5)), eps))
}

type encoder struct {
	layers.Base
	denseProj, denseMean, denseLogVar *layers.Dense
	sampling                          *sampling
}

func newEncoder(latent, intermediate int) *encoder {
	return &encoder{
		Base:        layers.NewBase("Encoder", layers.WithName("encoder")),
		denseProj:   layers.NewDense(intermediate, layers.WithActivation("relu")),
		denseMean:   layers.NewDense(latent),
		denseLogVar: layers.NewDense(latent),
		sampling:    newSampling(),
	}
}

// encode returns z_mean, z_log_var and z.
func (e *encoder) encode(x ops.Tensor, training bool) (zMean, zLogVar, z ops.Tensor) {
	h := layers.Call(e.denseProj, training, x)
	zMean = layers.Call(e.denseMean, training, h)
	zLogVar = layers.Call(e.denseLogVar, training, h)
	return zMean, zLogVar, layers.Call(e.sampling, training, zMean, zLogVar)
}

func (e *encoder) Call(in []ops.Tensor, training bool) ops.Tensor {
	_, _, z := e.encode(in[0], training)
	return z
}

type decoder struct {
	layers.Base
	denseProj, denseOutput *layers.Dense
}

func newDecoder(original, intermediate int) *decoder {
	return &decoder{
		Base:        layers.NewBase("Decoder", layers.WithName("decoder")),
		denseProj:   layers.NewDense(intermediate, layers.WithActivation("relu")),
		denseOutput: layers.NewDense(original, layers.WithActivation("sigmoid")),
	}
}

func (d *decoder) Call(in []ops.Tensor, training bool) ops.Tensor {
	return layers.Call(d.denseOutput, training, layers.Call(d.denseProj, training, in[0]))
}

// vae is `class VariationalAutoEncoder(keras.Model)`: a Go type embedding
// *keras.Model, made by keras.Subclass, with the KL divergence added as a
// loss in its call.
type vae struct {
	*keras.Model
	encoder *encoder
	decoder *decoder
}

func newVAE(t testing.TB, original, intermediate, latent int) *vae {
	v := &vae{encoder: newEncoder(latent, intermediate), decoder: newDecoder(original, intermediate)}
	m, err := keras.Subclass(v)
	if err != nil {
		t.Fatal(err)
	}
	v.Model = m
	return v
}

func (v *vae) Call(in []ops.Tensor, training bool) ops.Tensor {
	zMean, zLogVar, z := v.encoder.encode(in[0], training)
	reconstructed := layers.Call(v.decoder, training, z)
	// kl_loss = -0.5 * mean(z_log_var - square(z_mean) - exp(z_log_var) + 1)
	kl := ops.Scale(ops.Mean(ops.AddScalar(ops.Sub(ops.Sub(zLogVar, ops.Square(zMean)), ops.Exp(zLogVar)), 1), false), -0.5)
	ops.AddLoss(kl)
	return reconstructed
}

// digits makes n images of dim pixels in [0, 1] with some structure (a
// few prototypes plus noise), standing in for MNIST.
func digits(n, dim int) *tensor.Dense {
	r := rand.New(rand.NewPCG(3, 3))
	protos := make([][]float32, 4)
	for i := range protos {
		protos[i] = make([]float32, dim)
		for j := range protos[i] {
			if r.Float32() < 0.3 {
				protos[i][j] = 1
			}
		}
	}
	x := make([]float32, n*dim)
	for i := range n {
		p := protos[i%len(protos)]
		for j := range dim {
			v := p[j] + float32(r.NormFloat64())*0.1
			x[i*dim+j] = min(max(v, 0), 1)
		}
	}
	return tensor.New(tensor.WithShape(n, dim), tensor.WithBacking(x))
}

// The guide's VAE trains through Compile/Fit with no weight list written
// by hand: its weights are the encoder's and decoder's Dense layers (5
// layers, 10 weights), the KL loss it adds counts, the loss falls, and
// SaveWeights/LoadWeights restore a new instance exactly.
func TestSubclassedVAE(t *testing.T) {
	const original, intermediate, latent = 64, 32, 8
	v := newVAE(t, original, intermediate, latent)
	x := digits(256, original)
	if err := v.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(optimizers.LearningRate(1e-3)), Loss: losses.NewMeanSquaredError(), Metrics: []any{"mse"}}); err != nil {
		t.Fatal(err)
	}
	hist, err := v.Fit(x, x, keras.FitConfig{Epochs: 3, BatchSize: 32, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(v.TrainableVariables()); n != 10 {
		t.Errorf("%d trainable variables, want the 5 Dense layers' 10: %v", n, weightNames(v.TrainableVariables()))
	}
	loss := hist.History["loss"]
	if !(loss[2] < loss[0]) {
		t.Errorf("loss did not fall: %v", loss)
	}
	// The KL term the call adds is part of the loss: in the same steps
	// (the same noise) the loss exceeds the metric "mse", the compiled
	// loss alone, by the KL divergence, which is positive.
	logs, err := v.Evaluate(x, x, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if !(logs["loss"] > logs["mse"] && logs["mse"] > 0) {
		t.Errorf("evaluate: loss %v, mse %v: want the KL term on top of the mse", logs["loss"], logs["mse"])
	}
	// Summary counts the tracked weights: encoder 64*32+32 + 2*(32*8+8),
	// decoder 8*32+32 + 32*64+64.
	const params = 64*32 + 32 + 2*(32*8+8) + 8*32 + 32 + 32*64 + 64
	if v.CountParams() != params {
		t.Errorf("CountParams %d, want %d", v.CountParams(), params)
	}
	s, err := v.SummaryString()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "Total params: 5,008") {
		t.Errorf("summary does not count %d params:\n%s", params, s)
	}
	path := filepath.Join(t.TempDir(), "vae.weights.h5")
	if err := v.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	w := newVAE(t, original, intermediate, latent)
	if _, err := w.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err) // builds it
	}
	if err := w.LoadWeights(path); err != nil {
		t.Fatal(err)
	}
	for i, a := range w.Weights() {
		if !slices.Equal(a.Numpy(), v.Weights()[i].Numpy()) {
			t.Errorf("%s differs after LoadWeights", a.Name())
		}
	}
}

// A model whose only loss is the one its call adds compiles without a
// loss and trains (Keras' fit with add_loss alone).
func TestSubclassAddLossOnly(t *testing.T) {
	v := newVAE(t, 16, 8, 2)
	x := digits(64, 16)
	if err := v.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam()}); err != nil {
		t.Fatal(err)
	}
	hist, err := v.Fit(x, nil, keras.FitConfig{Epochs: 2, BatchSize: 16, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if l := hist.History["loss"]; len(l) != 2 || !(l[0] > 0) {
		t.Errorf("loss %v", l)
	}
}

// A struct embedding a zero keras.Model (the port of `class VAE(keras.Model)`
// without keras.Subclass) fails with an error that says what to do; it
// used to compile, then panic in Fit.
func TestZeroModelErrors(t *testing.T) {
	type port struct{ keras.Model }
	var p port
	x := digits(8, 4)
	err := p.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(), Loss: "mse"})
	if err == nil || !strings.Contains(err.Error(), "Subclass") {
		t.Errorf("Compile of a zero Model: %v", err)
	}
	if _, err := p.Fit(x, x, keras.FitConfig{Verbose: keras.VerboseSilent}); err == nil || !strings.Contains(err.Error(), "Subclass") {
		t.Errorf("Fit of a zero Model: %v", err)
	}
	if _, err := p.Predict(x, keras.PredictConfig{Verbose: keras.VerboseSilent}); err == nil {
		t.Error("Predict of a zero Model: no error")
	}
	if _, err := p.Evaluate(x, x, keras.EvaluateConfig{Verbose: keras.VerboseSilent}); err == nil {
		t.Error("Evaluate of a zero Model: no error")
	}
	// The same port with a pointer left nil.
	type ptrPort struct{ *keras.Model }
	var q ptrPort
	if _, err := q.Fit(x, x, keras.FitConfig{Verbose: keras.VerboseSilent}); err == nil || !strings.Contains(err.Error(), "Subclass") {
		t.Errorf("Fit of a nil *Model: %v", err)
	}
	if path := filepath.Join(t.TempDir(), "m.keras"); q.Save(path) == nil || p.Save(path) == nil {
		t.Error("Save of a zero or nil Model: no error")
	}
	if _, err := keras.NewCheckpoint(&p.Model, optimizers.NewAdam()).Save(filepath.Join(t.TempDir(), "ckpt")); err == nil || !strings.Contains(err.Error(), "Subclass") {
		t.Errorf("checkpoint of a zero Model: %v", err)
	}
}

// graphMethods build a traced step and return no error: on a zero or nil
// Model they panic with an *ops.Error (Fit and the other boundaries
// return it), never a runtime error.
// Apply and ApplyTraining return a symbolic tensor carrying the error,
// as layers.Apply does (NewModel reports it).
var graphMethods = map[string]bool{"Call": true, "Forward": true,
	"ComputeLoss": true, "CompiledLoss": true, "UpdateCompiledMetrics": true}

// Every method of a zero Model and of a nil *Model, called with zero
// arguments: those returning an error return one naming Subclass, the
// accessors return nothing, the graph methods panic with an *ops.Error;
// nothing panics with a runtime error (bug 6: a nil pointer in Fit).
func TestZeroModelEveryMethod(t *testing.T) {
	errType := reflect.TypeFor[error]()
	var zero keras.Model
	for _, m := range []any{&zero, (*keras.Model)(nil), zero.AsLayer(), (*keras.Model)(nil).AsLayer()} {
		v := reflect.ValueOf(m)
		for i := range v.NumMethod() {
			name := v.Type().Method(i).Name
			f := v.Method(i)
			ft := f.Type()
			args := make([]reflect.Value, ft.NumIn())
			for j := range args {
				args[j] = reflect.Zero(ft.In(j))
			}
			var out []reflect.Value
			var panicked any
			func() {
				defer func() { panicked = recover() }()
				if ft.IsVariadic() {
					out = f.CallSlice(args)
				} else {
					out = f.Call(args)
				}
			}()
			what := fmt.Sprintf("%s of %T %p", name, m, m)
			if panicked != nil {
				if e, ok := panicked.(*ops.Error); !ok || !graphMethods[name] {
					t.Errorf("%s panicked: %v", what, panicked)
				} else if !strings.Contains(e.Error(), "Subclass") && !strings.Contains(e.Error(), "No loss") {
					t.Errorf("%s panicked with %v, which does not say what to do", what, e)
				}
				continue
			}
			if graphMethods[name] {
				t.Errorf("%s did not panic", what)
			}
			if len(out) == 0 {
				continue
			}
			if e, ok := out[0].Interface().(interface{ Err() error }); ok {
				if err := e.Err(); err == nil || !strings.Contains(err.Error(), "Subclass") {
					t.Errorf("%s gave a tensor or layer of error %v, want one naming Subclass", what, err)
				}
			}
			if n := ft.NumOut(); n > 0 && ft.Out(n-1) == errType {
				if err, _ := out[n-1].Interface().(error); err == nil || !strings.Contains(err.Error(), "Subclass") {
					t.Errorf("%s returned %v, want an error naming Subclass", what, err)
				}
			}
		}
	}
}

// penalized is a composite layer whose sublayer carries a kernel
// regularizer: the penalty is the composite's, and the model's.
type penalized struct {
	layers.Base
	dense *layers.Dense
}

func (p *penalized) Call(in []ops.Tensor, training bool) ops.Tensor {
	return layers.Call(p.dense, training, in[0])
}

// The losses of a composite layer's sublayers count as Keras' layer.losses
// do: Evaluate's loss on zero data is the sublayer's L2 penalty,
// 0.1 * (1 + 4), and the regularization losses list it.
func TestCompositeLayerLosses(t *testing.T) {
	p := &penalized{Base: layers.NewBase("Penalized"),
		dense: layers.NewDense(1, layers.WithUseBias(false), layers.WithKernelRegularizer(layers.L2(0.1)))}
	m, err := keras.NewSequential(layers.NewInputLayer([]int{2}), p)
	if err != nil {
		t.Fatal(err)
	}
	p.dense.Weights()[0].Assign([]float32{1, 2})
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	zeros := tensor.New(tensor.WithShape(4, 2), tensor.WithBacking(make([]float32, 8)))
	y := tensor.New(tensor.WithShape(4, 1), tensor.WithBacking(make([]float32, 4)))
	logs, err := m.Evaluate(zeros, y, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if got := logs["loss"]; math.Abs(got-0.5) > 1e-6 {
		t.Errorf("loss %v, want the sublayer's penalty 0.5", got)
	}
}

// energy adds the mean square of its output as its only loss.
type energy struct {
	*keras.Model
	out *layers.Dense
}

func (e *energy) Call(in []ops.Tensor, training bool) ops.Tensor {
	y := layers.Call(e.out, training, in[0])
	ops.AddLoss(ops.Mean(ops.Square(y), false))
	return y
}

// Compiled without a loss, Evaluate and Fit on x alone report the loss the
// call adds, exactly (Keras' fit(x) of an add_loss model): with kernel
// [1, 1] and learning rate 0, outputs 3 and 7, mean square 29, and per
// batch of one 9 and 49, averaged to 29.
func TestAddLossOnlyValue(t *testing.T) {
	e := &energy{out: layers.NewDense(1)}
	m, err := keras.Subclass(e, keras.SubclassInputShape(2))
	if err != nil {
		t.Fatal(err)
	}
	e.Model = m
	e.out.Weights()[0].Assign([]float32{1, 1})
	if err := e.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0))}); err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{1, 2, 3, 4}))
	logs, err := e.Evaluate(x, nil, keras.EvaluateConfig{Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	hist, err := e.Fit(x, nil, keras.FitConfig{Epochs: 2, BatchSize: 1, NoShuffle: true, Verbose: keras.VerboseSilent})
	if err != nil {
		t.Fatal(err)
	}
	if logs["loss"] != 29 || !slices.Equal(hist.History["loss"], []float64{29, 29}) {
		t.Errorf("Evaluate loss %v, Fit losses %v: want the added loss 29", logs["loss"], hist.History["loss"])
	}
}

// fineTuner is fine-tuning's subclassed model: a pretrained base model in
// a field (self.base = base_model), called with training false, and a
// head.
type fineTuner struct {
	*keras.Model
	base *keras.Model
	head *layers.Dense
}

func (f *fineTuner) Call(in []ops.Tensor, training bool) ops.Tensor {
	return layers.Call(f.head, training, layers.Call(f.base.AsLayer(), false, in[0]))
}

// A model in a subclassed model's field is a part, as Keras tracks it:
// its weights are the model's (8, 6 trainable: the BatchNormalization's
// moving statistics are not), called with training false it keeps its
// moving statistics in Fit, freezing it leaves the head's 2, and the
// weights file holds it at Keras' paths (Keras 3.15.1 writes
// base/layers/dense/vars/0 ... head/vars/1 for the same model). The
// subclassed model's own embedded *Model is not a part of itself.
func TestSubclassTracksNestedModel(t *testing.T) {
	base := keras.MustSequential(layers.NewInputLayer([]int{3}), layers.NewDense(4), layers.NewBatchNormalization())
	f := &fineTuner{base: base, head: layers.NewDense(1)}
	m, err := keras.Subclass(f, keras.SubclassInputShape(3))
	if err != nil {
		t.Fatal(err)
	}
	f.Model = m
	if n, tr := len(f.Weights()), len(f.TrainableVariables()); n != 8 || tr != 6 {
		t.Errorf("%d weights, %d trainable; Keras 8 and 6", n, tr)
	}
	base.SetTrainable(false)
	if tr := len(f.TrainableVariables()); tr != 2 {
		t.Errorf("base frozen: %d trainable; Keras 2", tr)
	}
	path := filepath.Join(t.TempDir(), "m.weights.h5")
	if err := f.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"base/layers/batch_normalization/vars/0", "base/layers/batch_normalization/vars/1",
		"base/layers/batch_normalization/vars/2", "base/layers/batch_normalization/vars/3",
		"base/layers/dense/vars/0", "base/layers/dense/vars/1", "head/vars/0", "head/vars/1",
	}
	if got := datasetPaths(t, path); !slices.Equal(got, want) {
		t.Errorf("weights file paths %v, Keras' %v", got, want)
	}
	base.SetTrainable(true)
	// Called with training false, the base stays in inference mode while
	// the model trains unfrozen: its BatchNormalization's moving
	// statistics keep their values, its other weights train.
	if err := f.Compile(keras.CompileConfig{Optimizer: optimizers.NewSGD(optimizers.LearningRate(0.1)), Loss: "mse"}); err != nil {
		t.Fatal(err)
	}
	before := f.GetWeights()
	x := digits(16, 3)
	y := tensor.New(tensor.WithShape(16, 1), tensor.WithBacking(make([]float32, 16)))
	if _, err := f.Fit(x, y, keras.FitConfig{BatchSize: 8, Verbose: keras.VerboseSilent}); err != nil {
		t.Fatal(err)
	}
	for i, w := range f.Weights() {
		moving := strings.Contains(w.Name(), "moving")
		if same := slices.Equal(w.Numpy(), before[i].Data().([]float32)); same != moving {
			t.Errorf("%s changed %v in Fit; want only the moving statistics kept", w.Name(), !same)
		}
	}
}
