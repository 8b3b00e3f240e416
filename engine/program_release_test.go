package engine_test

import (
	"runtime"
	"testing"
	"weak"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/ops"
)

// oneBacking is an ops.Backing holding a value of ones.
type oneBacking struct{}

func (oneBacking) ReadValue(_ int, dst []float32) {
	for i := range dst {
		dst[i] = 1
	}
}
func (oneBacking) WriteValue([]float32) {}

// TestRunReleasesVariableStorage: a program keeps no reference to the
// storage it bound for a variable once its run is over, so a buffer a
// distribution bound for one step (ops.Variable.BindCopy) is freed when
// the variable releases it, not kept by the program until its next run.
func TestRunReleasesVariableStorage(t *testing.T) {
	v := ops.NewVariable("w", ops.Shape{1 << 12}, make([]float32, 1<<12), true)
	v.SetBacking(oneBacking{})
	tr := ops.NewTrace(false, 0, 1)
	p, err := engine.Compile(tr, []ops.Tensor{ops.Neg(tr.Read(v))})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]float32, 1<<12)
	buf[0] = 2
	if err := v.BindCopy(0, buf); err != nil {
		t.Fatal(err)
	}
	held := weak.Make(&buf[0])
	buf = nil
	out, err := p.Run(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Data[0] != -2 || out[0].Data[1] != 0 {
		t.Fatalf("the run read %v..., want the bound copy's [2 0 ...] negated", out[0].Data[:2])
	}
	v.UnbindCopy(0)
	runtime.GC()
	if held.Value() != nil {
		t.Error("the bound storage is still reachable after the run and the unbind: the program keeps it")
	}
	// The next run binds what the variable holds then (its backing's ones).
	if out, err = p.Run(nil, nil); err != nil || out[0].Data[0] != -1 {
		t.Errorf("second run: %v, %v; want -1 from the backing", out[0].Data[:1], err)
	}
	runtime.KeepAlive(p)
}
