package layers_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func stats(v []float32) (mean, std, maxAbs float64) {
	for _, x := range v {
		mean += float64(x)
		maxAbs = math.Max(maxAbs, math.Abs(float64(x)))
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (float64(x) - mean) * (float64(x) - mean)
	}
	return mean, math.Sqrt(std / float64(len(v))), maxAbs
}

func draw(init layers.Initializer, s ops.Shape) []float32 {
	v := init.Init(s, rand.New(rand.NewPCG(11, 12)))
	if len(v) != s.Size() {
		panic(fmt.Sprintf("%s: %d values for %v", init.Name(), len(v), s))
	}
	return v
}

// Keras' fans: (in, out) for a matrix; for a conv kernel (kh, kw, in, out)
// the receptive field kh*kw multiplies both.
var fanCases = []struct {
	shape         ops.Shape
	fanIn, fanOut float64
}{
	{ops.Shape{300, 200}, 300, 200},
	{ops.Shape{784, 10}, 784, 10},
	{ops.Shape{3, 3, 16, 32}, 144, 288},
	{ops.Shape{5, 5, 1, 64}, 25, 1600},
}

func TestUniformFanInitializers(t *testing.T) {
	for _, c := range fanCases {
		for _, u := range []struct {
			init  layers.Initializer
			limit float64
		}{
			{layers.GlorotUniform(), math.Sqrt(6 / (c.fanIn + c.fanOut))},
			{layers.HeUniform(), math.Sqrt(6 / c.fanIn)},
		} {
			v := draw(u.init, c.shape)
			mean, std, maxAbs := stats(v)
			what := fmt.Sprintf("%s%v", u.init.Name(), c.shape)
			if maxAbs > u.limit {
				t.Errorf("%s: |w| up to %v beyond the limit %v", what, maxAbs, u.limit)
			}
			if maxAbs < 0.98*u.limit {
				t.Errorf("%s: |w| only up to %v, limit %v", what, maxAbs, u.limit)
			}
			// U(-l, l) has standard deviation l/sqrt(3).
			if want := u.limit / math.Sqrt(3); math.Abs(std-want) > 0.05*want {
				t.Errorf("%s: std %v, want %v", what, std, want)
			}
			if math.Abs(mean) > 0.05*u.limit {
				t.Errorf("%s: mean %v", what, mean)
			}
		}
	}
}

func TestTruncatedNormalFanInitializers(t *testing.T) {
	for _, c := range fanCases {
		for _, n := range []struct {
			init layers.Initializer
			std  float64
		}{
			{layers.HeNormal(), math.Sqrt(2 / c.fanIn)},
			{layers.GlorotNormal(), math.Sqrt(2 / (c.fanIn + c.fanOut))},
		} {
			v := draw(n.init, c.shape)
			mean, std, maxAbs := stats(v)
			what := fmt.Sprintf("%s%v", n.init.Name(), c.shape)
			// Keras scales the truncated normal so that the drawn values
			// have the target standard deviation.
			if math.Abs(std-n.std) > 0.05*n.std {
				t.Errorf("%s: std %v, want %v", what, std, n.std)
			}
			if math.Abs(mean) > 0.05*n.std {
				t.Errorf("%s: mean %v", what, mean)
			}
			// Truncated at two standard deviations of the untruncated normal.
			if limit := 2 * n.std / 0.87962566103423978; maxAbs > limit*(1+1e-6) {
				t.Errorf("%s: |w| up to %v beyond the truncation %v", what, maxAbs, limit)
			}
		}
	}
}

func TestFixedInitializers(t *testing.T) {
	s := ops.Shape{100, 50}
	for _, c := range []struct {
		init      layers.Initializer
		mean, std float64
		lo, hi    float64
	}{
		{layers.RandomNormal(0, 0.05), 0, 0.05, math.Inf(-1), math.Inf(1)},
		{layers.RandomNormal(1, 2), 1, 2, math.Inf(-1), math.Inf(1)},
		{layers.RandomUniform(-0.05, 0.05), 0, 0.1 / math.Sqrt(12), -0.05, 0.05},
		{layers.RandomUniform(2, 4), 3, 2 / math.Sqrt(12), 2, 4},
	} {
		v := draw(c.init, s)
		mean, std, _ := stats(v)
		if math.Abs(mean-c.mean) > 0.05*c.std || math.Abs(std-c.std) > 0.05*c.std {
			t.Errorf("%s: mean %v std %v, want %v %v", c.init.Name(), mean, std, c.mean, c.std)
		}
		for _, x := range v {
			if float64(x) < c.lo || float64(x) > c.hi {
				t.Fatalf("%s: %v outside [%v, %v]", c.init.Name(), x, c.lo, c.hi)
			}
		}
	}
	for _, c := range []struct {
		init layers.Initializer
		v    float32
		name string
	}{{layers.Zeros(), 0, "Zeros"}, {layers.Ones(), 1, "Ones"}, {layers.Constant(-2.5), -2.5, "Constant"}} {
		if c.init.Name() != c.name {
			t.Errorf("name %q, want %q", c.init.Name(), c.name)
		}
		for _, x := range draw(c.init, ops.Shape{3, 4}) {
			if x != c.v {
				t.Fatalf("%s: %v, want %v", c.name, x, c.v)
			}
		}
	}
}

func TestGetInitializer(t *testing.T) {
	for key, want := range map[string]string{
		"glorot_uniform": "GlorotUniform", "glorot_normal": "GlorotNormal", "he_normal": "HeNormal",
		"he_uniform": "HeUniform", "zeros": "Zeros", "ones": "Ones", "random_normal": "RandomNormal",
		"random_uniform": "RandomUniform", "GlorotUniform": "GlorotUniform", "lecun_normal": "LecunNormal",
		"lecun_uniform": "LecunUniform", "truncated_normal": "TruncatedNormal", "variance_scaling": "VarianceScaling",
	} {
		i, err := layers.GetInitializer(key)
		if err != nil || i.Name() != want {
			t.Errorf("GetInitializer(%q) = %v, %v; want %s", key, i, err, want)
		}
	}
	_, err := layers.GetInitializer("orthogonalish")
	wantErr(t, err, "orthogonalish")
}

func TestLayerInitializers(t *testing.T) {
	c := layers.NewConv2D(64, 3, layers.WithKernelInitializer(layers.HeNormal()), layers.WithBiasInitializer(layers.Constant(0.1)))
	if _, err := layers.OutputShape(c, []ops.Shape{{-1, 8, 8, 32}}); err != nil {
		t.Fatal(err)
	}
	_, std, _ := stats(c.Kernel.Numpy())
	// fan_in of a 3x3x32 kernel is 288.
	if want := math.Sqrt(2.0 / 288); math.Abs(std-want) > 0.05*want {
		t.Errorf("conv kernel std %v, want %v", std, want)
	}
	for _, b := range c.Bias.Numpy() {
		if b != 0.1 {
			t.Fatalf("bias %v, want 0.1", b)
		}
	}
	cfg := c.GetConfig()
	if fmt.Sprint(cfg["kernel_initializer"], cfg["bias_initializer"]) != "map[class_name:HeNormal config:map[seed:<nil>]] map[class_name:Constant config:map[value:0.1]]" {
		t.Errorf("config %v %v", cfg["kernel_initializer"], cfg["bias_initializer"])
	}
	// The default kernel initializer is GlorotUniform with the conv fans.
	d := layers.NewConv2D(32, 3)
	if _, err := layers.OutputShape(d, []ops.Shape{{-1, 8, 8, 16}}); err != nil {
		t.Fatal(err)
	}
	if _, _, maxAbs := stats(d.Kernel.Numpy()); maxAbs > math.Sqrt(6.0/(144+288)) {
		t.Errorf("default conv kernel |w| up to %v, beyond the glorot limit", maxAbs)
	}
}

func TestInitializerConfigs(t *testing.T) {
	for _, c := range []struct {
		init layers.Initializer
		want string
	}{
		{layers.RandomNormal(0, 0.05), "map[class_name:RandomNormal config:map[mean:0 seed:<nil> stddev:0.05]]"},
		{layers.RandomUniform(-1, 2), "map[class_name:RandomUniform config:map[maxval:2 minval:-1 seed:<nil>]]"},
		{layers.GlorotUniform(), "map[class_name:GlorotUniform config:map[seed:<nil>]]"},
		{layers.Zeros(), "map[class_name:Zeros config:map[]]"},
	} {
		got := fmt.Sprint(layers.NewDense(1, layers.WithKernelInitializer(c.init)).GetConfig()["kernel_initializer"])
		if got != c.want {
			t.Errorf("%s: config %s, want %s", c.init.Name(), got, c.want)
		}
	}
}

func mustVS(t *testing.T, scale float64, mode, dist string) layers.Initializer {
	t.Helper()
	i, err := layers.VarianceScaling(scale, mode, dist)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// TestVarianceScaling checks each mode and distribution against Keras'
// formulas: variance scale/n with n = fan_in, fan_out or their mean; a
// uniform draw has limit sqrt(3*variance), normals the target std (the
// truncated one rescaled so the drawn values have it).
func TestVarianceScaling(t *testing.T) {
	for _, c := range fanCases {
		for _, mode := range []string{"fan_in", "fan_out", "fan_avg"} {
			n := map[string]float64{"fan_in": c.fanIn, "fan_out": c.fanOut, "fan_avg": (c.fanIn + c.fanOut) / 2}[mode]
			const scale = 0.7
			want := math.Sqrt(scale / n)
			for _, dist := range []string{"truncated_normal", "untruncated_normal", "uniform"} {
				v := draw(mustVS(t, scale, mode, dist), c.shape)
				mean, std, maxAbs := stats(v)
				what := fmt.Sprintf("VarianceScaling(%v, %s, %s)%v", scale, mode, dist, c.shape)
				if math.Abs(std-want) > 0.05*want || math.Abs(mean) > 0.05*want {
					t.Errorf("%s: mean %v std %v, want 0 and %v", what, mean, std, want)
				}
				switch dist {
				case "uniform":
					if limit := math.Sqrt(3) * want; maxAbs > limit || maxAbs < 0.98*limit {
						t.Errorf("%s: |w| up to %v, limit %v", what, maxAbs, limit)
					}
				case "truncated_normal":
					if limit := 2 * want / 0.87962566103423978; maxAbs > limit*(1+1e-6) {
						t.Errorf("%s: |w| up to %v beyond the truncation %v", what, maxAbs, limit)
					}
				case "untruncated_normal":
					if maxAbs < 3*want {
						t.Errorf("%s: |w| only up to %v: looks truncated", what, maxAbs)
					}
				}
			}
		}
	}
	// Lecun initializers are VarianceScaling(1, fan_in, ...); PyTorch's
	// default weight init is VarianceScaling(1/3, fan_in, uniform), that is
	// U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
	s := ops.Shape{3, 3, 16, 32}
	if _, std, _ := stats(draw(layers.LecunNormal(), s)); math.Abs(std-math.Sqrt(1.0/144)) > 0.05*math.Sqrt(1.0/144) {
		t.Errorf("LecunNormal std %v", std)
	}
	if _, _, maxAbs := stats(draw(layers.LecunUniform(), s)); maxAbs > math.Sqrt(3.0/144) || maxAbs < 0.98*math.Sqrt(3.0/144) {
		t.Errorf("LecunUniform |w| up to %v", maxAbs)
	}
	if _, _, maxAbs := stats(draw(mustVS(t, 1.0/3, "fan_in", "uniform"), s)); maxAbs > 1.0/12 || maxAbs < 0.98/12 {
		t.Errorf("torch-style |w| up to %v, want 1/sqrt(144)", maxAbs)
	}
	for _, bad := range [][3]any{{0.0, "fan_in", "uniform"}, {1.0, "fan_sum", "uniform"}, {1.0, "fan_in", "cauchy"}} {
		if _, err := layers.VarianceScaling(bad[0].(float64), bad[1].(string), bad[2].(string)); err == nil {
			t.Errorf("VarianceScaling%v: no error", bad)
		}
	}
	v := draw(layers.TruncatedNormal(1, 0.5), ops.Shape{200, 100})
	mean, _, _ := stats(v)
	if math.Abs(mean-1) > 0.02 {
		t.Errorf("TruncatedNormal(1, 0.5) mean %v", mean)
	}
	for _, x := range v {
		if x < 0 || x > 2 {
			t.Fatalf("TruncatedNormal(1, 0.5) drew %v, beyond two standard deviations", x)
		}
	}
	got := fmt.Sprint(layers.NewDense(1, layers.WithKernelInitializer(mustVS(t, 2, "fan_out", "uniform"))).GetConfig()["kernel_initializer"])
	if want := "map[class_name:VarianceScaling config:map[distribution:uniform mode:fan_out scale:2 seed:<nil>]]"; got != want {
		t.Errorf("config %s, want %s", got, want)
	}
}
