package layers_test

import (
	"math"
	"testing"

	"github.com/gokeras/gokeras/internal/layertest"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestDenseConformance(t *testing.T) {
	layertest.Run(t, layers.NewDense(3), ops.Shape{4, 5}, ops.Shape{4, 3}, 5*3+3)
	layertest.Run(t, layers.NewDense(2, layers.WithActivation("tanh")), ops.Shape{2, 3, 4}, ops.Shape{2, 3, 2}, 4*2+2)
	layertest.Run(t, layers.NewDense(4, layers.WithUseBias(false), layers.WithActivation("sigmoid")), ops.Shape{3, 2}, ops.Shape{3, 4}, 2*4)
	layertest.Run(t, layers.NewDense(3, layers.WithActivation("softmax")), ops.Shape{2, 2, 2, 5}, ops.Shape{2, 2, 2, 3}, 5*3+3)
}

// denseRef is activation(x · k + b) on the last axis, in float64.
func denseRef(x []float32, k, b []float64, in, units int, act func(float64) float64) []float64 {
	rows := len(x) / in
	out := make([]float64, rows*units)
	for r := 0; r < rows; r++ {
		for u := 0; u < units; u++ {
			s := b[u]
			for i := 0; i < in; i++ {
				s += float64(x[r*in+i]) * k[i*units+u]
			}
			out[r*units+u] = act(s)
		}
	}
	return out
}

func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func seq(n int, scale, offset float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(i)*scale + offset
	}
	return out
}

func TestDenseKnownWeights(t *testing.T) {
	d := layers.NewDense(2)
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	if got := d.Kernel.Shape(); !got.Equal(ops.Shape{3, 2}) {
		t.Fatalf("kernel shape %v, want (3, 2)", got)
	}
	if err := d.Kernel.Assign([]float32{1, 2, 3, 4, 5, 6}); err != nil {
		t.Fatal(err)
	}
	if err := d.Bias.Assign([]float32{0.5, -1}); err != nil {
		t.Fatal(err)
	}
	// [1 0 -1] · [[1 2] [3 4] [5 6]] + [0.5 -1] = [-4+0.5, -4-1]
	// [2 1 0.5] · ...                              = [2+3+2.5+0.5, 4+4+3-1]
	y := layertest.Forward(t, d, false, ops.Value{Shape: ops.Shape{2, 3}, Data: []float32{1, 0, -1, 2, 1, 0.5}})
	if !y.Shape.Equal(ops.Shape{2, 2}) {
		t.Fatalf("shape %v", y.Shape)
	}
	layertest.AllClose(t, "dense", y.Data, []float64{-3.5, -5, 8, 10}, 1e-6)
}

func TestDenseRank3(t *testing.T) {
	const in, units = 4, 3
	k := make([]float64, in*units)
	for i := range k {
		k[i] = float64(i%5)*0.25 - 0.5
	}
	b := []float64{0.1, -0.2, 0.3}
	for _, act := range []struct {
		name string
		f    func(float64) float64
	}{
		{"linear", func(v float64) float64 { return v }},
		{"relu", func(v float64) float64 { return math.Max(v, 0) }},
		{"sigmoid", func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }},
		{"tanh", math.Tanh},
		{"softplus", func(v float64) float64 { return math.Log1p(math.Exp(v)) }},
	} {
		d := layers.NewDense(units, layers.WithActivation(act.name))
		if _, err := layers.OutputShape(d, []ops.Shape{{-1, 5, in}}); err != nil {
			t.Fatal(err)
		}
		if err := d.Kernel.Assign(f32(k)); err != nil {
			t.Fatal(err)
		}
		if err := d.Bias.Assign(f32(b)); err != nil {
			t.Fatal(err)
		}
		x := seq(2*5*in, 0.1, -2)
		y := layertest.Forward(t, d, false, ops.Value{Shape: ops.Shape{2, 5, in}, Data: x})
		if !y.Shape.Equal(ops.Shape{2, 5, units}) {
			t.Fatalf("%s: shape %v, want (2, 5, 3)", act.name, y.Shape)
		}
		layertest.AllClose(t, "dense "+act.name, y.Data, denseRef(x, k, b, in, units, act.f), 1e-5)
	}
}

func TestDenseSoftmaxActivation(t *testing.T) {
	d := layers.NewDense(3, layers.WithActivation("softmax"), layers.WithKernelInitializer(layers.Ones()),
		layers.WithBiasInitializer(layers.Constant(0)))
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 2}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Bias.Assign([]float32{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	y := layertest.Forward(t, d, false, ops.Value{Shape: ops.Shape{1, 2}, Data: []float32{3, -1}})
	e := []float64{math.Exp(2), math.Exp(3), math.Exp(4)}
	s := e[0] + e[1] + e[2]
	layertest.AllClose(t, "dense softmax", y.Data, []float64{e[0] / s, e[1] / s, e[2] / s}, 1e-6)
}

func TestDenseConfig(t *testing.T) {
	d := layers.NewDense(7, layers.WithActivation("relu"), layers.WithUseBias(false), layers.WithKernelInitializer(layers.HeNormal()), layers.WithName("fc"))
	cfg := d.GetConfig()
	if cfg["name"] != "fc" || cfg["units"] != 7 || cfg["activation"] != "relu" || cfg["use_bias"] != false {
		t.Errorf("config %v", cfg)
	}
	if ki := cfg["kernel_initializer"].(map[string]any); ki["class_name"] != "HeNormal" {
		t.Errorf("kernel_initializer %v", ki)
	}
	if bi := cfg["bias_initializer"].(map[string]any); bi["class_name"] != "Zeros" {
		t.Errorf("bias_initializer %v", bi)
	}
	if a := layers.NewDense(1).GetConfig()["activation"]; a != "linear" {
		t.Errorf("default activation %v, want linear", a)
	}
}

func TestDenseWeights(t *testing.T) {
	d := layers.NewDense(4, layers.WithName("head"))
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 3}}); err != nil {
		t.Fatal(err)
	}
	ws := d.Weights()
	if len(ws) != 2 || ws[0].Name() != "head/kernel" || ws[1].Name() != "head/bias" {
		t.Fatalf("weights %v", ws)
	}
	for _, v := range d.Bias.Numpy() {
		if v != 0 {
			t.Fatalf("bias not zero-initialised: %v", d.Bias.Numpy())
		}
	}
	limit := math.Sqrt(6.0 / (3 + 4))
	for _, v := range d.Kernel.Numpy() {
		if math.Abs(float64(v)) > limit {
			t.Fatalf("kernel value %v beyond the glorot limit %v", v, limit)
		}
	}
}

func TestDenseWrongInput(t *testing.T) {
	d := layers.NewDense(2, layers.WithName("d4"))
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 4}}); err != nil {
		t.Fatal(err)
	}
	_, err := layers.OutputShape(d, []ops.Shape{{-1, 5}})
	wantErr(t, err, "Dense", "d4", "(None, 5)")
	_, err = layers.OutputShape(layers.NewDense(2, layers.WithName("d1")), []ops.Shape{{-1}})
	wantErr(t, err, "Dense", "d1", "(None,)")
}
