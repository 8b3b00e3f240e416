package optimizers_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// overlapRC is a replica context that overlaps: it records what the
// optimizer's hook hands it and doubles every buffer on Wait (the sum of
// two replicas that computed the same gradients).
type overlapRC struct {
	log  *[]string
	none bool // BeginAllReduce returns nil: the hook must all-reduce as before
}

func (overlapRC) ReplicaID() int   { return 0 }
func (overlapRC) NumReplicas() int { return 2 }
func (c overlapRC) AllReduceSum(bufs [][]float32) error {
	*c.log = append(*c.log, fmt.Sprintf("AllReduceSum of %d", len(bufs)))
	for _, b := range bufs {
		for i := range b {
			b[i] *= 2
		}
	}
	return nil
}

func (c overlapRC) BeginAllReduce(bufs [][]float32) ops.OverlappedAllReduce {
	*c.log = append(*c.log, fmt.Sprintf("begin %d", len(bufs)))
	if c.none {
		return nil
	}
	return &overlapGroup{c.log, bufs}
}

type overlapGroup struct {
	log  *[]string
	bufs [][]float32
}

func (g *overlapGroup) Ready(i int) error {
	*g.log = append(*g.log, fmt.Sprintf("ready %d %v", i, g.bufs[i]))
	return nil
}

func (g *overlapGroup) Wait() error {
	*g.log = append(*g.log, "wait")
	for _, b := range g.bufs {
		for i := range b {
			b[i] *= 2
		}
	}
	return nil
}

// TestApplyGradientsOverlaps: under a context that overlaps, the
// optimizer's hook begins a group before the replay, hands each gradient
// over (its value already in place) as soon as the backward pass has
// computed it, waits in Run, and updates with the sums; under one that
// declines (nil), it all-reduces after the backward pass. Both give the
// same weights.
func TestApplyGradientsOverlaps(t *testing.T) {
	for _, none := range []bool{false, true} {
		w := ops.NewVariable("w", ops.Shape{2}, []float32{1, -2}, true)
		b := ops.NewVariable("b", ops.Shape{1}, []float32{3}, true)
		tr := ops.NewTrace(true, 0, 1)
		loss := ops.Add(ops.Sum(ops.Square(tr.Read(w)), false), ops.Sum(ops.Square(tr.Read(b)), false))
		vars := []*ops.Variable{w, b}
		grads, err := ops.Gradients(loss, vars)
		if err != nil {
			t.Fatal(err)
		}
		if err := optimizers.NewSGD(optimizers.LearningRate(0.125)).ApplyGradients(grads, vars); err != nil {
			t.Fatal(err)
		}
		p, err := engine.Compile(tr, []ops.Tensor{loss})
		if err != nil {
			t.Fatal(err)
		}
		var log []string
		if _, err := p.Run(overlapRC{log: &log, none: none}, nil); err != nil {
			t.Fatal(err)
		}
		// Gradients 2w = [2 -4] and 2b = [6], doubled by the all-reduce:
		// w - 0.125*[4 -8] = [0.5 -1], b - 0.125*12 = 1.5.
		if got := append(append([]float32(nil), w.Data(0)...), b.Data(0)...); !reflect.DeepEqual(got, []float32{0.5, -1, 1.5}) {
			t.Errorf("none=%v: weights %v, want [0.5 -1 1.5]", none, got)
		}
		if none {
			if want := []string{"begin 2", "begin 2", "AllReduceSum of 2"}; !reflect.DeepEqual(log, want) {
				t.Errorf("declined: events %q, want %q", log, want)
			}
			continue
		}
		if len(log) != 4 || log[0] != "begin 2" || log[3] != "wait" {
			t.Fatalf("events %q, want begin, two readies, wait", log)
		}
		got := map[string]bool{log[1]: true, log[2]: true}
		if !got["ready 0 [2 -4]"] || !got["ready 1 [6]"] {
			t.Errorf("readies %q, want each gradient with its value", log[1:3])
		}
	}
}
