package optimizers

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// fakeServers stands in for a ParameterServerStrategy worker's context: it
// records what the optimizer pushes and applies its own optimizer, as a
// parameter server would, then writes the fresh values back.
type fakeServers struct {
	server Optimizer       // the servers' copy of the optimizer
	owned  []*ops.Variable // the servers' variables, by position
	pushed []Optimizer
}

func (f *fakeServers) ReplicaID() int   { return 0 }
func (f *fakeServers) NumReplicas() int { return 1 }
func (f *fakeServers) AllReduceSum([][]float32) error {
	panic("a parameter-server step must not all-reduce")
}

func (f *fakeServers) PushGradients(opt any, vars []*ops.Variable, grads [][]float32) error {
	f.pushed = append(f.pushed, opt.(Optimizer))
	if err := f.server.Apply(nil, grads, f.owned[:len(vars)]); err != nil {
		return err
	}
	for i, v := range vars {
		copy(v.Data(0), f.owned[i].Data(0))
	}
	return nil
}

// TestApplyPushesToParameterServers: under a ParameterServerContext the
// optimizer neither updates in place nor counts the step; the servers'
// optimizer does, and the worker's variable ends up with the servers'
// value, which equals a local step of the same optimizer.
func TestApplyPushesToParameterServers(t *testing.T) {
	worker := NewAdam(LearningRate(0.1))
	local := NewAdam(LearningRate(0.1))
	wv := newVar("dense/kernel", w0...)
	lv := newVar("dense/kernel", w0...)
	ps := &fakeServers{server: NewAdam(LearningRate(0.1)), owned: []*ops.Variable{newVar("dense/kernel", w0...)}}
	for _, g := range stepGrads[:3] {
		if err := worker.Apply(ps, [][]float32{f32(g)}, []*ops.Variable{wv}); err != nil {
			t.Fatal(err)
		}
		if err := local.Apply(nil, [][]float32{f32(g)}, []*ops.Variable{lv}); err != nil {
			t.Fatal(err)
		}
	}
	if len(ps.pushed) != 3 || ps.pushed[0] != Optimizer(worker) {
		t.Fatalf("pushed %d times (%v), want 3 times the worker's optimizer", len(ps.pushed), ps.pushed)
	}
	if worker.Iterations() != 0 || len(worker.Variables()) != 1 {
		t.Errorf("worker's optimizer counted %d steps and has %d variables; the servers own both", worker.Iterations(), len(worker.Variables()))
	}
	for i, w := range lv.Data(0) {
		if got := wv.Data(0)[i]; got != w {
			t.Fatalf("worker's value %d = %v, local step gives %v", i, got, w)
		}
	}
}

// TestLossScaleRefusesParameterServers: the loss scale cannot live on the
// servers yet, so the step is an error, not a silent local update.
func TestLossScaleRefusesParameterServers(t *testing.T) {
	o := NewLossScaleOptimizer(NewSGD())
	v := newVar("dense/kernel", w0...)
	ps := &fakeServers{server: NewSGD(), owned: []*ops.Variable{newVar("dense/kernel", w0...)}}
	err := o.Apply(ps, [][]float32{f32(stepGrads[0])}, []*ops.Variable{v})
	if err == nil || !strings.Contains(err.Error(), "ParameterServerStrategy") {
		t.Fatalf("err = %v, want a refusal naming ParameterServerStrategy", err)
	}
}
