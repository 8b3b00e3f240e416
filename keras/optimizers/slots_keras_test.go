package optimizers

import (
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/ops"
)

// kerasSlotCase is one case of testdata/keras/optimizer_slots.json, written
// by tools/keras_reference/gen_vectors.py: a Keras optimizer's own
// variables (its slots for the trained variable "kernel") after three
// apply_gradients steps.
type kerasSlotCase struct {
	Name, Optimizer string
	Kwargs          map[string]any
	Shape           []int
	W0, W           []float32
	Grads           [][]float32
	Iterations      int64
	Variables       []struct {
		Slot  string
		Shape []int
		Value []float32
	}
}

// TestOptimizerSlotsMatchKeras applies Keras' gradients for three steps
// and compares the iteration count, the variable and every slot variable
// (found by Keras' slot name) with Keras' to 1e-5 relative (below a
// thousandth of the tensor's largest value, relative to that: slots such
// as Adam's velocity are small). Nadam's running product of momentum factors, a
// scalar Keras keeps as a variable, is derived from the iteration count in
// gokeras, so there is no slot to compare.
func TestOptimizerSlotsMatchKeras(t *testing.T) {
	for _, tc := range kerasvectors.Read[kerasSlotCase](t, "testdata/keras/optimizer_slots.json") {
		t.Run(tc.Name, func(t *testing.T) {
			opt, err := kerasOptimizer(tc.Optimizer, tc.Kwargs)
			if err != nil {
				t.Fatal(err)
			}
			v := ops.NewVariable("kernel", ops.Shape(tc.Shape), append([]float32(nil), tc.W0...), true)
			for _, g := range tc.Grads {
				if err := opt.Apply(engine.Single{}, [][]float32{append([]float32(nil), g...)}, []*ops.Variable{v}); err != nil {
					t.Fatal(err)
				}
			}
			if opt.Iterations() != tc.Iterations {
				t.Errorf("Iterations() = %d, Keras %d", opt.Iterations(), tc.Iterations)
			}
			check := func(what string, got, want []float32) {
				t.Helper()
				if len(got) != len(want) {
					t.Fatalf("%s: %d values, Keras %d", what, len(got), len(want))
				}
				floor := 0.0
				for _, w := range want {
					floor = math.Max(floor, 1e-3*math.Abs(float64(w)))
				}
				for i := range want {
					w := float64(want[i])
					if e := math.Abs(float64(got[i])-w) / math.Max(floor, math.Abs(w)); !(e <= 1e-5) {
						t.Errorf("%s[%d] = %.9g, Keras %.9g", what, i, got[i], w)
					}
				}
			}
			check("kernel", v.Data(0), tc.W)
			slots := map[string]*ops.Variable{}
			for _, sv := range opt.Variables()[1:] {
				// gokeras names a slot <optimizer>/<slot>/<variable>.
				parts := strings.Split(sv.Name(), "/")
				if len(parts) == 3 && parts[2] == "kernel" {
					slots[parts[1]] = sv
				}
			}
			compared := 0
			for _, kv := range tc.Variables {
				if tc.Optimizer == "Nadam" && kv.Slot == "u_product" {
					continue
				}
				sv := slots[kv.Slot]
				if sv == nil {
					t.Errorf("no slot %q (Keras has it; gokeras has %v)", kv.Slot, keys(slots))
					continue
				}
				if !sv.Shape().Equal(ops.Shape(kv.Shape)) {
					t.Errorf("slot %s has shape %v, Keras %v", kv.Slot, sv.Shape(), kv.Shape)
					continue
				}
				check(kv.Slot, sv.Data(0), kv.Value)
				compared++
			}
			if compared != len(slots) {
				t.Errorf("gokeras has slots %v, Keras compared %d of them", keys(slots), compared)
			}
		})
	}
}

func keys(m map[string]*ops.Variable) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
