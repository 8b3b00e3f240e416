package optimizers

import (
	"maps"
	"math"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/ops"
)

// optionsCase is one case of testdata/keras/optimizer_options.json, written
// by tools/keras_reference/preprocessing_vectors.py.
type optionsCase struct {
	Name, Optimizer string
	Kwargs          map[string]any
	Shape           []int
	W0              []float32
	Grads, Steps    [][]float32
	Config          map[string]any
	Averages        [][]float32
	Finalized       []float32
}

// TestCommonOptionsMatchKeras runs SGD and Adam with Keras' use_ema,
// ema_momentum, ema_overwrite_frequency and gradient_accumulation_steps
// (with clipping and weight decay) on Keras' gradients and compares the
// variable and its moving average after every step, the variable after
// FinalizeVariableValues, and the config keys.
func TestCommonOptionsMatchKeras(t *testing.T) {
	cases := kerasvectors.Read[optionsCase](t, "testdata/keras/optimizer_options.json")
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			kw := maps.Clone(tc.Kwargs)
			var more []Option
			for k, v := range tc.Kwargs {
				f, _ := v.(float64)
				switch k {
				case "use_ema":
					more = append(more, UseEMA(v.(bool)))
				case "ema_momentum":
					more = append(more, EMAMomentum(f))
				case "ema_overwrite_frequency":
					more = append(more, EMAOverwriteFrequency(int(f)))
				case "gradient_accumulation_steps":
					more = append(more, GradientAccumulationSteps(int(f)))
				default:
					continue
				}
				delete(kw, k)
			}
			var opt Optimizer
			switch tc.Optimizer {
			case "SGD":
				opt = NewSGD(append(optionsOf(t, kw), more...)...)
			case "Adam":
				opt = NewAdam(append(optionsOf(t, kw), more...)...)
			default:
				t.Fatalf("no case for %s", tc.Optimizer)
			}
			if err := opt.(interface{ Err() error }).Err(); err != nil {
				t.Fatal(err)
			}
			v := ops.NewVariable("dense/kernel", ops.Shape(tc.Shape), append([]float32(nil), tc.W0...), true)
			check := func(what string, got, want []float32) {
				t.Helper()
				for i := range want {
					if e := math.Abs(float64(got[i]-want[i])) / math.Max(1, math.Abs(float64(want[i]))); !(e <= 1e-6) {
						t.Errorf("%s[%d] = %.9g, Keras %.9g", what, i, got[i], want[i])
					}
				}
			}
			for k, g := range tc.Grads {
				if err := opt.Apply(engine.Single{}, [][]float32{append([]float32(nil), g...)}, []*ops.Variable{v}); err != nil {
					t.Fatal(err)
				}
				check("step "+string(rune('1'+k))+" w", v.Data(0), tc.Steps[k])
				if tc.Averages != nil {
					var avg *ops.Variable
					for _, ov := range opt.Variables() {
						if ov.Name() == opt.Name()+"/average/dense_kernel" {
							avg = ov
						}
					}
					if avg == nil {
						t.Fatalf("no average among %v", opt.Variables())
					}
					check("step "+string(rune('1'+k))+" average", avg.Data(0), tc.Averages[k])
				}
			}
			if tc.Finalized != nil {
				opt.(interface{ FinalizeVariableValues([]*ops.Variable) }).FinalizeVariableValues([]*ops.Variable{v})
				check("finalized", v.Data(0), tc.Finalized)
			}
			cfg := opt.GetConfig()
			defaults := map[string]any{"use_ema": false, "ema_momentum": 0.99}
			for k, want := range tc.Config {
				got, ok := cfg[k]
				if !ok { // written only when in use; absent reads as the default
					got = defaults[k]
				}
				if gi, ok := got.(int); ok {
					got = float64(gi)
				}
				if got != want {
					t.Errorf("config %s = %v, Keras %v", k, cfg[k], want)
				}
			}
		})
	}
}

// optionsOf turns the Keras arguments kerasOptimizer knows into options.
func optionsOf(t *testing.T, kw map[string]any) []Option {
	t.Helper()
	var opts []Option
	for k, v := range kw {
		f, _ := v.(float64)
		switch k {
		case "learning_rate":
			opts = append(opts, LearningRate(f))
		case "momentum":
			opts = append(opts, Momentum(f))
		case "weight_decay":
			opts = append(opts, WeightDecay(f))
		case "clipnorm":
			opts = append(opts, ClipNorm(f))
		case "clipvalue":
			opts = append(opts, ClipValue(f))
		case "global_clipnorm":
			opts = append(opts, GlobalClipNorm(f))
		default:
			t.Fatalf("no option for Keras' %s", k)
		}
	}
	return opts
}

// TestCommonOptionsErrors: Keras' refusals.
func TestCommonOptionsErrors(t *testing.T) {
	for name, o := range map[string]Option{
		"ema_momentum 1.5":              EMAMomentum(1.5),
		"ema_momentum NaN":              EMAMomentum(math.NaN()),
		"ema_overwrite_frequency -1":    EMAOverwriteFrequency(-1),
		"gradient_accumulation_steps 1": GradientAccumulationSteps(1),
	} {
		if NewAdam(o).Err() == nil {
			t.Errorf("%s accepted", name)
		}
	}
	o := NewSGD(UseEMA(true), GradientAccumulationSteps(2))
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}
	v := ops.NewVariable("w", ops.Shape{2}, []float32{1, 2}, true)
	if err := o.Apply(engine.Single{}, [][]float32{{1, 1}}, []*ops.Variable{v}); err != nil {
		t.Fatal(err)
	}
	// Iterations, the average and the accumulator, in Keras' order.
	names := []string{}
	for _, x := range o.Variables() {
		names = append(names, x.Name())
	}
	want := []string{"SGD/iterations", "SGD/average/w", "SGD/gradient_accumulator/w"}
	if len(names) != 3 || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Errorf("variables %v, want %v", names, want)
	}
}
