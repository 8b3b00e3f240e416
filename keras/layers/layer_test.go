package layers_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// wantErr fails unless err is non-nil and mentions every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want one mentioning %q", parts)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

// run computes out, of a trace without placeholders, and returns a copy.
func run(t *testing.T, tr *ops.Trace, out ops.Tensor) []float32 {
	t.Helper()
	p, err := engine.Compile(tr, []ops.Tensor{out})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Run(engine.Single{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), v[0].Data...)
}

func TestAutoNames(t *testing.T) {
	layers.ClearSession()
	got := []string{
		layers.NewConv2D(1, 1).Name(),
		layers.NewConv2D(1, 1).Name(),
		layers.NewMaxPooling2D().Name(),
		layers.NewAveragePooling2D().Name(),
		layers.NewMaxPooling2D().Name(),
		layers.NewReLU().Name(),
		layers.NewDense(1).Name(),
		layers.NewDense(1, layers.WithName("custom")).Name(),
		layers.NewDense(1).Name(),
		layers.NewFlatten().Name(),
		layers.NewDropout(0.1).Name(),
		layers.NewReshape([]int{1}).Name(),
		layers.NewActivation("relu").Name(),
		layers.NewSoftmax().Name(),
		layers.NewRescaling(1).Name(),
		layers.NewAdd().Name(),
		layers.NewDense(1).Name(),
	}
	want := []string{
		"conv2d", "conv2d_1", "max_pooling2d", "average_pooling2d", "max_pooling2d_1", "re_lu",
		"dense", "custom", "dense_1", "flatten", "dropout", "reshape", "activation", "softmax",
		"rescaling", "add", "dense_2",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, got[i], want[i])
		}
	}
	layers.ClearSession()
	if n := layers.NewConv2D(1, 1).Name(); n != "conv2d" {
		t.Errorf("after ClearSession: %q, want conv2d", n)
	}
}

func TestUniqueName(t *testing.T) {
	layers.ClearSession()
	for i, want := range []string{"model", "model_1", "model_2"} {
		if got := layers.UniqueName("model"); got != want {
			t.Errorf("UniqueName #%d = %q, want %q", i, got, want)
		}
	}
}

func TestUnknownOptions(t *testing.T) {
	for _, c := range []struct {
		l     layers.Layer
		parts []string
	}{
		{layers.NewDense(3, layers.WithPoolSize(2)), []string{"Dense", "pool_size"}},
		{layers.NewFlatten(layers.WithActivation("relu")), []string{"Flatten", "activation"}},
		{layers.NewMaxPooling2D(layers.WithActivation("relu"), layers.WithUseBias(false)), []string{"MaxPooling2D", "activation", "use_bias"}},
		{layers.NewAveragePooling2D(layers.WithKernelSize(3)), []string{"AveragePooling2D", "kernel_size"}},
		{layers.NewConv2D(2, 3, layers.WithMaxValue(6)), []string{"Conv2D", "max_value"}},
		{layers.NewDropout(0.5, layers.WithStrides(2)), []string{"Dropout", "strides"}},
		{layers.NewReLU(layers.WithAxis(1)), []string{"ReLU", "axis"}},
		{layers.NewSoftmax(layers.WithThreshold(1)), []string{"Softmax", "threshold"}},
		{layers.NewRescaling(2, layers.WithSeed(1)), []string{"Rescaling", "seed"}},
		{layers.NewReshape([]int{4}, layers.WithPadding("same")), []string{"Reshape", "padding"}},
		{layers.NewAdd(layers.WithActivation("relu")), []string{"Add", "activation"}},
		{layers.NewActivation("relu", layers.WithUseBias(true)), []string{"Activation", "use_bias"}},
	} {
		wantErr(t, c.l.Err(), c.parts...)
		// The error surfaces through the functional API too.
		y := layers.Apply(c.l, layers.Input([]int{4, 4, 4}))
		wantErr(t, y.Err(), c.parts...)
	}
	// Options every layer takes.
	for _, l := range []layers.Layer{
		layers.NewFlatten(layers.WithName("f"), layers.WithInputShape(2, 2), layers.WithTrainable(false), layers.WithDataFormat("channels_last")),
		layers.NewDense(2, layers.WithInputShape(3)),
	} {
		if err := l.Err(); err != nil {
			t.Errorf("%s: %v", l.Name(), err)
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	for _, c := range []struct {
		l     layers.Layer
		parts []string
	}{
		{layers.NewDense(-1, layers.WithName("neg")), []string{"Dense", "neg", "units", "-1"}},
		{layers.NewDense(0), []string{"Dense", "units"}},
		{layers.NewDense(3, layers.WithActivation("bogus")), []string{"Dense", "bogus"}},
		{layers.NewConv2D(0, 3), []string{"Conv2D", "filters"}},
		{layers.NewConv2D(2, -3), []string{"Conv2D", "kernel_size"}},
		{layers.NewConv2D(2, 3, layers.WithPadding("full")), []string{"Conv2D", "padding", "full"}},
		{layers.NewConv2D(2, 3, layers.WithActivation("swishy")), []string{"Conv2D", "swishy"}},
		{layers.NewConv2D(2, 3, layers.WithStrides(1, 2, 3)), []string{"Conv2D", "strides"}},
		{layers.NewConv2D(2, 3, layers.WithStrides(2), layers.WithDilationRate(2)), []string{"Conv2D", "dilation"}},
		{layers.NewConv2D(2, 3, layers.WithDataFormat("channels_first")), []string{"Conv2D", "channels_first"}},
		{layers.NewMaxPooling2D(layers.WithPadding("bad")), []string{"MaxPooling2D", "padding", "bad"}},
		{layers.NewAveragePooling2D(layers.WithPoolSize(2, 2, 2)), []string{"AveragePooling2D", "pool_size"}},
		{layers.NewConv2D(2, 3, layers.WithStrides(0)), []string{"Conv2D", "strides", "positive"}},
		{layers.NewConv2D(2, 3, layers.WithDilationRate(1, 0)), []string{"Conv2D", "dilation_rate", "positive"}},
		{layers.NewMaxPooling2D(layers.WithPoolSize(0), layers.WithName("mp")), []string{"MaxPooling2D", `"mp"`, "pool_size", "positive"}},
		{layers.NewAveragePooling2D(layers.WithStrides(2, -1)), []string{"AveragePooling2D", "strides", "positive"}},
		{layers.NewActivation("bogus"), []string{"Activation", "bogus"}},
		{layers.NewDropout(1.5), []string{"Dropout", "rate"}},
		{layers.NewDropout(-0.1), []string{"Dropout", "rate"}},
		{layers.NewReLU(layers.WithMaxValue(-1)), []string{"ReLU", "max_value"}},
		{layers.NewReLU(layers.WithNegativeSlope(-0.1)), []string{"ReLU", "negative_slope"}},
		{layers.NewReLU(layers.WithThreshold(-1)), []string{"ReLU", "threshold"}},
	} {
		wantErr(t, c.l.Err(), c.parts...)
		_, err := layers.OutputShape(c.l, []ops.Shape{{-1, 8, 8, 3}})
		wantErr(t, err, c.parts...)
	}
}

func TestWrongInputRank(t *testing.T) {
	in := layers.Input([]int{28, 28})
	for _, c := range []struct {
		l     layers.Layer
		class string
	}{
		{layers.NewConv2D(4, 3, layers.WithName("c")), "Conv2D"},
		{layers.NewMaxPooling2D(layers.WithName("c")), "MaxPooling2D"},
		{layers.NewAveragePooling2D(layers.WithName("c")), "AveragePooling2D"},
	} {
		y := layers.Apply(c.l, in)
		wantErr(t, y.Err(), c.class, `"c"`, "(None, 28, 28)")
	}
	// A built layer called again on another rank.
	conv := layers.NewConv2D(4, 3, layers.WithName("c2"))
	if y := layers.Apply(conv, layers.Input([]int{8, 8, 1})); y.Err() != nil {
		t.Fatal(y.Err())
	}
	wantErr(t, layers.Apply(conv, layers.Input([]int{8, 8})).Err(), "Conv2D", "c2", "(None, 8, 8)")
	wantErr(t, layers.Apply(conv, layers.Input([]int{8, 8, 2})).Err(), "Conv2D", "c2", "(None, 8, 8, 2)")
	pool := layers.NewMaxPooling2D(layers.WithName("p2"))
	if y := layers.Apply(pool, layers.Input([]int{8, 8, 1})); y.Err() != nil {
		t.Fatal(y.Err())
	}
	wantErr(t, layers.Apply(pool, layers.Input([]int{8})).Err(), "MaxPooling2D", "p2", "(None, 8)")
}

func TestTrainable(t *testing.T) {
	d := layers.NewDense(2, layers.WithTrainable(false))
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	if len(d.TrainableWeights()) != 0 || len(d.NonTrainableWeights()) != 2 || d.Trainable() {
		t.Errorf("frozen layer: %d trainable, %d non-trainable", len(d.TrainableWeights()), len(d.NonTrainableWeights()))
	}
	if d.GetConfig()["trainable"] != false {
		t.Errorf("config trainable %v", d.GetConfig()["trainable"])
	}
	d.SetTrainable(true)
	if len(d.TrainableWeights()) != 2 || len(d.NonTrainableWeights()) != 0 {
		t.Errorf("unfrozen layer: %d trainable", len(d.TrainableWeights()))
	}
	// Weights keep Keras' order (kernel, bias) whatever the flags.
	if w := d.Weights(); w[0] != d.Kernel || w[1] != d.Bias {
		t.Errorf("weights order %v", w)
	}
}

func TestInputShapeOption(t *testing.T) {
	d := layers.NewDense(2, layers.WithInputShape(5))
	if s := d.InputShape(); !s.Equal(ops.Shape{5}) {
		t.Errorf("InputShape %v", s)
	}
	if bs := d.GetConfig()["batch_input_shape"]; bs == nil {
		t.Error("config lacks batch_input_shape")
	}
	if s := layers.NewDense(2).InputShape(); s != nil {
		t.Errorf("InputShape %v, want nil", s)
	}
}

func TestSeededInitialisation(t *testing.T) {
	build := func() []float32 {
		layers.SetRandomSeed(123)
		d := layers.NewDense(4)
		if _, err := layers.OutputShape(d, []ops.Shape{{-1, 3}}); err != nil {
			t.Fatal(err)
		}
		return d.Kernel.Numpy()
	}
	a, b := build(), build()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different kernels: %v vs %v", a, b)
		}
	}
	d := layers.NewDense(4)
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	same := true
	for i, v := range d.Kernel.Numpy() {
		same = same && v == a[i]
	}
	if same {
		t.Error("two layers drew the same kernel")
	}
}
