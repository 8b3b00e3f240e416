package distribute

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/gokeras/gokeras/internal/psrpc"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestPSStalenessBound: with MaxStaleness(1) a worker 2 functions ahead
// of the slowest live worker gets no new one; a dead worker is not waited
// for; one that rejoins starts level with the slowest.
func TestPSStalenessBound(t *testing.T) {
	s := &ParameterServerStrategy{cfg: defaultPSConfig()}
	s.cfg.maxStaleness = 1
	c := &ClusterCoordinator{s: s}
	c.changed = sync.NewCond(&c.mu)
	for i := range 3 {
		c.workers = append(c.workers, &workerConn{task: i, alive: true})
	}
	w := c.workers
	w[0].finished, w[1].finished, w[2].finished = 3, 2, 1
	if c.mayTakeLocked(w[0]) {
		t.Error("worker 0, 2 ahead of worker 2, may start a function")
	}
	if !c.mayTakeLocked(w[1]) || !c.mayTakeLocked(w[2]) {
		t.Error("workers 1 and 2 are held back")
	}
	c.setAlive(w[2], false)
	if !c.mayTakeLocked(w[0]) {
		t.Error("worker 0 waits for the dead worker 2")
	}
	c.setAlive(w[2], true)
	if w[2].finished != 2 || !c.mayTakeLocked(w[0]) {
		t.Errorf("the rejoined worker starts at %d functions, want 2 (the slowest live)", w[2].finished)
	}
	s.cfg.maxStaleness = -1
	w[0].finished = 100
	if !c.mayTakeLocked(w[0]) {
		t.Error("without MaxStaleness a worker is held back")
	}
}

// FuzzPSValue: any wire value decodes to an argument or a clear error,
// and what encodes decodes to the same thing.
func FuzzPSValue(f *testing.F) {
	for _, x := range []any{1.5, "x", []float32{1, 2}, &TensorValue{Shape: []int{2, 1}, Data: []float32{3, 4}}} {
		v, _ := encodeValue(x)
		b, _ := protoMarshal(v)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v psrpc.Value
		if protoUnmarshal(b, &v) != nil {
			return
		}
		x, err := decodeValue(&v)
		if err != nil {
			return
		}
		if tv, ok := x.(*TensorValue); ok {
			n := 1
			for _, d := range tv.Shape {
				n *= d
			}
			if n != len(tv.Data) {
				t.Fatalf("shape %v with %d values", tv.Shape, len(tv.Data))
			}
		}
		if _, err := encodeValue(x); err != nil {
			t.Fatalf("%#v decoded but does not encode: %v", x, err)
		}
	})
}

// FuzzPSServer: a server given arbitrary Init, Check, Pull, Assign, Push
// and SetOptimizerState messages answers each with a value or an error,
// never a panic, and never allocates what the message did not pay for.
func FuzzPSServer(f *testing.F) {
	init, _ := protoMarshal(&psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 0, Name: "w", Shape: []int64{2}, Trainable: true, Value: psrpc.EncodeFloat32s([]float32{1, 2})}}})
	cfg, _ := json.Marshal(keras.OptimizerConfig(optimizers.NewAdam()))
	push, _ := protoMarshal(&psrpc.PushRequest{Worker: 0, Optimizer: string(cfg), Ids: []int64{0}, Grads: [][]byte{psrpc.EncodeFloat32s([]float32{1, 1})}})
	f.Add(init, push)
	f.Add([]byte{}, []byte("\x12\x03{}}"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s := &ParameterServerStrategy{cfg: defaultPSConfig(), spec: ClusterSpec{"worker": {"a:1"}}, taskType: "ps"}
		p := newPSServer(s)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		var in psrpc.InitRequest
		if protoUnmarshal(a, &in) == nil {
			_, _ = p.Init(ctx, &in)
		}
		var ck psrpc.CheckRequest
		if protoUnmarshal(b, &ck) == nil {
			_, _ = p.Check(ctx, &ck)
		}
		var pl psrpc.PullRequest
		if protoUnmarshal(b, &pl) == nil {
			_, _ = p.Pull(ctx, &pl)
		}
		var as psrpc.AssignRequest
		if protoUnmarshal(b, &as) == nil {
			_, _ = p.Assign(ctx, &as)
		}
		var pu psrpc.PushRequest
		if protoUnmarshal(b, &pu) == nil {
			_, _ = p.Push(ctx, &pu)
		}
		var st psrpc.OptimizerState
		if protoUnmarshal(b, &st) == nil {
			_, _ = p.SetOptimizerState(ctx, &st)
			_, _ = p.GetOptimizerState(ctx, &psrpc.Empty{})
		}
	})
}
