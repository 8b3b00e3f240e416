package layertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

func TestRunOnLayers(t *testing.T) {
	Run(t, layers.NewDense(3, layers.WithActivation("tanh")), ops.Shape{2, 4}, ops.Shape{2, 3}, 15)
	Run(t, layers.NewConv2D(2, 3, layers.WithPadding("same")), ops.Shape{2, 5, 5, 3}, ops.Shape{2, 5, 5, 2}, 56)
	Run(t, layers.NewMaxPooling2D(), ops.Shape{2, 4, 4, 3}, ops.Shape{2, 2, 2, 3}, 0)
	Run(t, layers.NewDropout(0.5), ops.Shape{2, 4}, ops.Shape{2, 4}, 0)
	RunN(t, layers.NewAdd(), []ops.Shape{{2, 3}, {2, 3}}, ops.Shape{2, 3}, 0)
}

func TestForward(t *testing.T) {
	y := Forward(t, layers.NewRescaling(2, layers.WithOffset(1)), false, ops.Value{Shape: ops.Shape{1, 3}, Data: []float32{0, 1, 2}})
	AllClose(t, "rescaling", y.Data, []float64{1, 3, 5}, 0)
}

// recorder is a testing.TB that keeps the failures instead of reporting them.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(f, a...))
}
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); panic(r) }

func failures(layer layers.Layer, in, out ops.Shape, params int) (errs []string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		errs = r.errs
	}()
	runN(r, layer, []ops.Shape{in}, out, params)
	return r.errs
}

// twice is a layer computing 2x whose gradient is wrong (dy instead of 2dy)
// and whose config lacks "dtype".
type twice struct{ built bool }

func (l *twice) Name() string                         { return "twice" }
func (l *twice) ClassName() string                    { return "Twice" }
func (l *twice) Build([]ops.Shape) error              { l.built = true; return nil }
func (l *twice) Built() bool                          { return l.built }
func (l *twice) Weights() []*ops.Variable             { return nil }
func (l *twice) TrainableWeights() []*ops.Variable    { return nil }
func (l *twice) NonTrainableWeights() []*ops.Variable { return nil }
func (l *twice) Trainable() bool                      { return true }
func (l *twice) SetTrainable(bool)                    {}
func (l *twice) RegularizationLosses(*ops.Trace) []ops.Tensor {
	return nil
}
func (l *twice) GetConfig() map[string]any { return map[string]any{"name": "twice", "trainable": true} }
func (l *twice) InputShape() ops.Shape     { return nil }
func (l *twice) Err() error                { return nil }
func (l *twice) Call(in []ops.Tensor, _ bool) ops.Tensor {
	return ops.ApplyOp("Twice", nil, in[0].Shape(), func(o []float32, in [][]float32) {
		for i, v := range in[0] {
			o[i] = 2 * v
		}
	}, func(_ []ops.Tensor, _, dy ops.Tensor) []ops.Tensor { return []ops.Tensor{dy} }, in[0])
}

func TestRunCatches(t *testing.T) {
	errs := strings.Join(failures(&twice{}, ops.Shape{2, 3}, ops.Shape{2, 3}, 0), "\n")
	for _, want := range []string{"finite differences", `lacks "dtype"`} {
		if !strings.Contains(errs, want) {
			t.Errorf("failures %q do not mention %q", errs, want)
		}
	}
	errs = strings.Join(failures(layers.NewDense(3), ops.Shape{2, 4}, ops.Shape{2, 4}, 12), "\n")
	for _, want := range []string{"symbolic output shape (None, 3), want (None, 4)", "15 parameters, want 12", "output shape (2, 3), want (2, 4)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("failures %q do not mention %q", errs, want)
		}
	}
	if errs := failures(layers.NewDense(3), ops.Shape{2, 4}, ops.Shape{2, 3}, 15); len(errs) != 0 {
		t.Errorf("a good layer fails: %q", errs)
	}
}
