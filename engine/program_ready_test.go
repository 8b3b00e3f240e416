package engine_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// logRC is a replica context of two replicas whose all-reduce (the
// in-graph AllReduceSum op's kernel) only writes to the log.
type logRC struct{ log *[]string }

func (logRC) ReplicaID() int   { return 0 }
func (logRC) NumReplicas() int { return 2 }
func (c logRC) AllReduceSum([][]float32) error {
	*c.log = append(*c.log, "all-reduce step")
	return nil
}

// TestRunReportsHookInputsWhenComputed: a hook's Ready hears -1 before the
// replay, then each input right after the step computing it, before the
// later steps run (here an all-reduce step between the two inputs), with
// the input's final value; inputs no step computes are left to Run, and
// a hook without Ready is unaffected.
func TestRunReportsHookInputsWhenComputed(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Input("x", ops.Shape{3})
	a := ops.Mul(x, tr.Constant(ops.Shape{3}, []float32{2, 2, 2}))
	b := ops.AllReduceSum(a)
	c := ops.Add(b, tr.Constant(ops.Shape{3}, []float32{1, 1, 1}))
	var log []string
	tr.AddHook(ops.Hook{
		Name:   "h",
		Inputs: []ops.Tensor{c, a, x},
		Ready: func(_ ops.ReplicaContext, i int, v ops.Value) error {
			log = append(log, fmt.Sprintf("ready %d %v", i, v.Data))
			return nil
		},
		Run: func(_ ops.ReplicaContext, vals []ops.Value) error {
			log = append(log, fmt.Sprintf("run %v %v %v", vals[0].Data, vals[1].Data, vals[2].Data))
			return nil
		},
	})
	tr.AddHook(ops.Hook{Name: "plain", Inputs: []ops.Tensor{a}, Run: func(ops.ReplicaContext, []ops.Value) error {
		log = append(log, "plain run")
		return nil
	}})
	p, err := engine.Compile(tr, []ops.Tensor{c})
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 2; run++ {
		log = nil
		if _, err := p.Run(logRC{&log}, []ops.Value{{Shape: ops.Shape{3}, Data: []float32{1, 2, 3}}}); err != nil {
			t.Fatal(err)
		}
		want := []string{
			"ready -1 []",
			"ready 1 [2 4 6]",
			"all-reduce step",
			"ready 0 [3 5 7]",
			"run [3 5 7] [2 4 6] [1 2 3]",
			"plain run",
		}
		if !reflect.DeepEqual(log, want) {
			t.Errorf("run %d: events\n%q\nwant\n%q", run, log, want)
		}
	}
}

// TestRunReadyError: an error from Ready stops the run and names the hook.
func TestRunReadyError(t *testing.T) {
	tr := ops.NewTrace(false, 0, 1)
	x := tr.Input("x", ops.Shape{2})
	y := ops.Neg(x)
	tr.AddHook(ops.Hook{
		Name: "apply", Inputs: []ops.Tensor{y},
		Ready: func(_ ops.ReplicaContext, i int, _ ops.Value) error {
			if i == 0 {
				return fmt.Errorf("no network")
			}
			return nil
		},
		Run: func(ops.ReplicaContext, []ops.Value) error { t.Error("Run after a failed Ready"); return nil },
	})
	p, err := engine.Compile(tr, []ops.Tensor{y})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Run(nil, []ops.Value{{Shape: ops.Shape{2}, Data: []float32{1, 2}}})
	if err == nil || err.Error() != "engine: apply: no network" {
		t.Fatalf("error %v, want engine: apply: no network", err)
	}
}
