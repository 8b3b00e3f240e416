package distribute

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/internal/psrpc"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestPSStalenessBound: with MaxStaleness(0) a worker that is ahead of the
// slowest live worker waits for it (and says so at its deadline); the slow
// worker's push releases it; a worker the coordinator declared dead is not
// waited for.
func TestPSStalenessBound(t *testing.T) {
	s := &ParameterServerStrategy{cfg: defaultPSConfig(), spec: ClusterSpec{"worker": {"a:1", "b:1"}}, taskType: "ps"}
	s.cfg.maxStaleness = 0
	p := newPSServer(s)
	ctx := context.Background()
	if _, err := p.Init(ctx, &psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 0, Name: "w", Shape: []int64{2}, Trainable: true, Value: psrpc.EncodeFloat32s([]float32{1, 2})}}}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(keras.OptimizerConfig(optimizers.NewSGD()))
	push := func(ctx context.Context, w int32) error {
		_, err := p.Push(ctx, &psrpc.PushRequest{Worker: w, Optimizer: string(cfg), Ids: []int64{0}, Grads: [][]byte{psrpc.EncodeFloat32s([]float32{1, 1})}})
		return err
	}
	if err := push(ctx, 0); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	err := push(short, 0)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "worker:1 to catch up") {
		t.Fatalf("a push one ahead with MaxStaleness(0): err = %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- push(ctx, 0) }()
	select {
	case err := <-done:
		t.Fatalf("worker 0 pushed (%v) before worker 1 caught up", err)
	case <-time.After(50 * time.Millisecond):
	}
	if err := push(ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("worker 1's push did not release worker 0")
	}
	// Worker 1 dies: worker 0 runs on alone.
	if _, err := p.SetLiveWorkers(ctx, &psrpc.WorkerSet{Live: []int32{0}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c, cancel := context.WithTimeout(ctx, time.Second)
		err := push(c, 0)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	// It comes back level with worker 0, not 3 behind.
	if _, err := p.SetLiveWorkers(ctx, &psrpc.WorkerSet{Live: []int32{0, 1}}); err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := push(c, 1); err != nil {
		t.Fatalf("the rejoined worker waited: %v", err)
	}
	if p.version != 7 {
		t.Errorf("%d pushes applied, want 7", p.version)
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
