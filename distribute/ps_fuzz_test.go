package distribute

import (
	"context"
	"math"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/proto"

	"github.com/gokeras/gokeras/internal/psrpc"
)

// The fuzz targets below feed each RPC of a parameter server and of a
// worker the bytes of its request, decoded as gRPC would, on a fake
// cluster: a server holding a few variables with an SGD optimizer that
// has run, a worker with a function and a per-worker dataset registered.
// Whatever the bytes, a handler answers or returns a gRPC status error,
// never panics, and leaves no NaN or Inf in the variables.

// fakeServer is ps:0 of a fake cluster, initialised as the chief would.
func fakeServer(t testing.TB) *psServer {
	t.Helper()
	s := &ParameterServerStrategy{cfg: defaultPSConfig(), taskType: "ps", done: make(chan struct{})}
	p := newPSServer(s)
	p.budget = &memBudget{limit: 64 << 20}
	enc := psrpc.EncodeFloat32s
	init := &psrpc.InitRequest{Vars: []*psrpc.VarSpec{
		{Id: 0, Name: "dense/kernel", Shape: []int64{3, 2}, Trainable: true, Value: enc([]float32{1, 2, 3, 4, 5, 6})},
		{Id: 1, Name: "dense/bias", Shape: []int64{2}, Trainable: true, Value: enc([]float32{0.5, -0.5})},
		{Id: 2, Name: "bn/moving_mean", Shape: []int64{2}, Value: enc([]float32{0, 0})},
	}}
	ctx := context.Background()
	if _, err := p.Init(ctx, init); err != nil {
		t.Fatal(err)
	}
	push := &psrpc.PushRequest{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 0.1, "momentum": 0.9}}`, Ids: []int64{0, 1}, Grads: [][]byte{enc(make([]float32, 6)), enc([]float32{1, 1})}}
	if _, err := p.Push(ctx, push); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkAnswer fails t when err is not a gRPC status or the server holds a
// value that is not finite.
func checkAnswer(t *testing.T, p *psServer, what string, err error) {
	t.Helper()
	if err != nil {
		if _, ok := status.FromError(err); !ok {
			t.Fatalf("%s: error %v is not a gRPC status", what, err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.vars) > maxServerVars {
		t.Fatalf("%s: %d variables", what, len(p.vars))
	}
	for id, v := range p.vars {
		if i := firstNonFinite(v.Data(0)); i >= 0 {
			t.Fatalf("%s: variable %d (%s)[%d] = %v", what, id, v.Name(), i, v.Data(0)[i])
		}
	}
}

// seed adds m's encoding to f's corpus.
func seed(f *testing.F, ms ...proto.Message) {
	for _, m := range ms {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func nanBytes() []byte { return psrpc.EncodeFloat32s([]float32{float32(math.NaN()), 1}) }

// fuzzRPC is the body of a server RPC's fuzz target: decode data as
// request (skip what does not parse) and call.
func fuzzRPC[R proto.Message](f *testing.F, newReq func() R, call func(p *psServer, req R) error) {
	f.Fuzz(func(t *testing.T, data []byte) {
		req := newReq()
		if proto.Unmarshal(data, req) != nil {
			return
		}
		p := fakeServer(t)
		checkAnswer(t, p, "call", call(p, req))
	})
}

func FuzzPSInit(f *testing.F) {
	enc := psrpc.EncodeFloat32s
	seed(f,
		&psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 3, Name: "new", Shape: []int64{2}, Value: enc([]float32{1, 2})}}},
		&psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 0, Name: "dense/kernel", Shape: []int64{6}, Trainable: true, Value: enc(make([]float32, 6))}}},
		&psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 1, Name: "dense/bias", Shape: []int64{2}, Trainable: true, Value: nanBytes()}}},
		&psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: -1, Shape: []int64{1 << 40, 1 << 40}}}},
	)
	fuzzRPC(f, func() *psrpc.InitRequest { return &psrpc.InitRequest{} }, func(p *psServer, r *psrpc.InitRequest) error {
		_, err := p.Init(context.Background(), r)
		return err
	})
}

func FuzzPSCheck(f *testing.F) {
	seed(f, &psrpc.CheckRequest{Vars: []*psrpc.VarSpec{{Id: 0, Name: "dense/kernel", Shape: []int64{3, 2}}, {Id: 9, Name: "x"}}})
	fuzzRPC(f, func() *psrpc.CheckRequest { return &psrpc.CheckRequest{} }, func(p *psServer, r *psrpc.CheckRequest) error {
		_, err := p.Check(context.Background(), r)
		return err
	})
}

func FuzzPSPull(f *testing.F) {
	seed(f, &psrpc.PullRequest{Ids: []int64{0, 1, 2}}, &psrpc.PullRequest{Ids: []int64{0, 0, 0}}, &psrpc.PullRequest{Ids: []int64{-1, math.MaxInt64}})
	fuzzRPC(f, func() *psrpc.PullRequest { return &psrpc.PullRequest{} }, func(p *psServer, r *psrpc.PullRequest) error {
		resp, err := p.Pull(context.Background(), r)
		if err == nil && len(resp.Values) != len(r.Ids) {
			return status.Errorf(13, "%d values for %d ids", len(resp.Values), len(r.Ids))
		}
		return err
	})
}

func FuzzPSPush(f *testing.F) {
	enc := psrpc.EncodeFloat32s
	sgd := `{"class_name": "SGD", "config": {"learning_rate": 0.1, "momentum": 0.9}}`
	seed(f,
		&psrpc.PushRequest{Optimizer: sgd, Ids: []int64{1}, Grads: [][]byte{enc([]float32{1, 2})}},
		&psrpc.PushRequest{Optimizer: sgd, Ids: []int64{1}, Grads: [][]byte{nanBytes()}},
		&psrpc.PushRequest{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 1e38, "momentum": 0.9}}`, Ids: []int64{1}, Grads: [][]byte{enc([]float32{1e30, 1})}},
		&psrpc.PushRequest{Optimizer: `{"class_name": "Adam", "config": {}}`, Ids: []int64{1}, Grads: [][]byte{enc([]float32{1, 2})}},
		&psrpc.PushRequest{Optimizer: "{", Ids: []int64{1, 1}, Grads: [][]byte{nil, nil}},
	)
	fuzzRPC(f, func() *psrpc.PushRequest { return &psrpc.PushRequest{} }, func(p *psServer, r *psrpc.PushRequest) error {
		_, err := p.Push(context.Background(), r)
		return err
	})
}

func FuzzPSAssign(f *testing.F) {
	enc := psrpc.EncodeFloat32s
	seed(f,
		&psrpc.AssignRequest{Ids: []int64{2}, Values: [][]byte{enc([]float32{1, 2})}},
		&psrpc.AssignRequest{Ids: []int64{2}, Values: [][]byte{nanBytes()}},
		&psrpc.AssignRequest{Ids: []int64{2, 2}, Values: [][]byte{nil}},
	)
	fuzzRPC(f, func() *psrpc.AssignRequest { return &psrpc.AssignRequest{} }, func(p *psServer, r *psrpc.AssignRequest) error {
		_, err := p.Assign(context.Background(), r)
		return err
	})
}

func FuzzPSSetOptimizerState(f *testing.F) {
	p := fakeServer(f)
	st, err := p.GetOptimizerState(context.Background(), &psrpc.Empty{})
	if err != nil {
		f.Fatal(err)
	}
	seed(f, st,
		&psrpc.OptimizerState{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 0.1}}`, Iterations: math.MaxInt64},
		&psrpc.OptimizerState{Optimizer: `{"class_name": "Adam", "config": {"use_ema": true}}`, Slots: []*psrpc.Slot{{VarId: 0, Slot: "m", Value: nanBytes()}}},
	)
	fuzzRPC(f, func() *psrpc.OptimizerState { return &psrpc.OptimizerState{} }, func(p *psServer, r *psrpc.OptimizerState) error {
		if _, err := p.SetOptimizerState(context.Background(), r); err != nil {
			return err
		}
		// The state set must be one the server can read back, finalize
		// and push with.
		if _, err := p.GetOptimizerState(context.Background(), &psrpc.Empty{}); err != nil {
			return err
		}
		if _, err := p.FinalizeVariables(context.Background(), &psrpc.Empty{}); err != nil {
			return err
		}
		_, _ = p.Push(context.Background(), &psrpc.PushRequest{Optimizer: r.Optimizer, Ids: []int64{1}, Grads: [][]byte{psrpc.EncodeFloat32s([]float32{1, 1})}})
		return nil
	})
}

// FuzzPSCalls runs a sequence of calls, each a byte choosing the RPC and
// a length-prefixed request, on one server: what each call leaves must be
// safe for the next, the RPCs without a request (Ping, GetOptimizerState,
// FinalizeVariables) included.
func FuzzPSCalls(f *testing.F) {
	enc := psrpc.EncodeFloat32s
	b1, _ := proto.Marshal(&psrpc.AssignRequest{Ids: []int64{0}, Values: [][]byte{enc([]float32{1e38, 1e38, 1e38, 1e38, 1e38, 1e38})}})
	b2, _ := proto.Marshal(&psrpc.PushRequest{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 10, "momentum": 0.9}}`, Ids: []int64{0}, Grads: [][]byte{enc([]float32{-1e38, 1, 1, 1, 1, 1})}})
	f.Add(append(append([]byte{4, byte(len(b1))}, b1...), append([]byte{3, byte(len(b2))}, b2...)...))
	f.Add([]byte{5, 0, 6, 0, 7, 0, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fakeServer(t)
		ctx := context.Background()
		for len(data) >= 2 {
			op, n := data[0]%8, int(data[1])
			data = data[2:]
			n = min(n, len(data))
			msg := data[:n]
			data = data[n:]
			var err error
			switch op {
			case 0:
				r := &psrpc.InitRequest{}
				if proto.Unmarshal(msg, r) == nil {
					_, err = p.Init(ctx, r)
				}
			case 1:
				r := &psrpc.CheckRequest{}
				if proto.Unmarshal(msg, r) == nil {
					_, err = p.Check(ctx, r)
				}
			case 2:
				r := &psrpc.PullRequest{}
				if proto.Unmarshal(msg, r) == nil {
					_, err = p.Pull(ctx, r)
				}
			case 3:
				r := &psrpc.PushRequest{}
				if proto.Unmarshal(msg, r) == nil {
					_, err = p.Push(ctx, r)
				}
			case 4:
				r := &psrpc.AssignRequest{}
				if proto.Unmarshal(msg, r) == nil {
					_, err = p.Assign(ctx, r)
				}
			case 5:
				_, err = p.GetOptimizerState(ctx, &psrpc.Empty{})
			case 6:
				_, err = p.FinalizeVariables(ctx, &psrpc.Empty{})
			case 7:
				_, err = p.Ping(ctx, &psrpc.Empty{})
			}
			checkAnswer(t, p, "call", err)
		}
	})
}

// fakeWorker is worker:0 of a fake cluster, with function 0 ("f", which
// echoes its arguments) and per-worker dataset 0 registered.
func fakeWorker(t testing.TB) *workerServer {
	s := &ParameterServerStrategy{cfg: defaultPSConfig(), taskType: "worker", done: make(chan struct{}), fresh: map[*trackedVar]bool{}}
	s.cfg.rpcTimeout = 1
	s.reg.init()
	s.reg.addFunc("f", func(args ...any) (any, error) { return args, nil })
	s.reg.addDataset(func() (any, error) { return 1.0, nil })
	return newWorkerServer(s)
}

func FuzzWorkerRun(f *testing.F) {
	seed(f,
		&psrpc.RunRequest{Function: 0, Name: "f", Args: []*psrpc.Value{{Kind: &psrpc.Value_Scalar{Scalar: 1}}, {Kind: &psrpc.Value_Dataset{Dataset: 0}}, {Kind: &psrpc.Value_Tensor{Tensor: &psrpc.Tensor{Shape: []int64{2}, Data: psrpc.EncodeFloat32s([]float32{1, 2})}}}}},
		&psrpc.RunRequest{Function: -1},
		&psrpc.RunRequest{Function: 0, Name: "f", Args: []*psrpc.Value{{Kind: &psrpc.Value_Dataset{Dataset: -1}}, {Kind: &psrpc.Value_Tensor{Tensor: &psrpc.Tensor{Shape: []int64{1 << 40, 1 << 40}}}}}},
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		req := &psrpc.RunRequest{}
		if proto.Unmarshal(data, req) != nil {
			return
		}
		w := fakeWorker(t)
		_, err := w.Run(context.Background(), req)
		if err != nil {
			if _, ok := status.FromError(err); !ok {
				t.Fatalf("error %v is not a gRPC status", err)
			}
		}
	})
}

func FuzzWorkerFinished(f *testing.F) {
	seed(f, &psrpc.FinishedRequest{Functions: []int64{0, 5}}, &psrpc.FinishedRequest{Functions: []int64{-3, math.MaxInt64}})
	f.Fuzz(func(t *testing.T, data []byte) {
		req := &psrpc.FinishedRequest{}
		if proto.Unmarshal(data, req) != nil {
			return
		}
		w := fakeWorker(t)
		_, err := w.Finished(context.Background(), req)
		if err != nil {
			if _, ok := status.FromError(err); !ok {
				t.Fatalf("error %v is not a gRPC status", err)
			}
		}
		if n := len(w.s.reg.finished); n > maxFunctionID+1 {
			t.Fatalf("%d finished functions kept", n)
		}
	})
}

// FuzzPSAdmission feeds the limiter's admission any method name and size
// header: it admits within the budget or refuses with a status, and what
// it admits it gives back.
func FuzzPSAdmission(f *testing.F) {
	f.Add("/gokeras.psrpc.ParameterServer/Pull", "100", false)
	f.Add("/gokeras.psrpc.Worker/Run", "-1", true)
	f.Add("/x/y", "99999999999999999999", false)
	f.Add("/gokeras.psrpc.ParameterServer/Init", "", false)
	f.Fuzz(func(t *testing.T, method, size string, secure bool) {
		l := newLimiter("ps:0", 1<<20, psMethods, secure)
		md := metadata.MD{}
		if size != "" {
			md.Set(requestBytesHeader, size)
		}
		ctx, err := l.tap(context.Background(), &tap.Info{FullMethodName: method, Header: md})
		if err != nil {
			if _, ok := status.FromError(err); !ok {
				t.Fatalf("error %v is not a gRPC status", err)
			}
			if u := l.budget.used.Load(); u != 0 {
				t.Fatalf("a refused call holds %d bytes", u)
			}
			return
		}
		if u := l.budget.used.Load(); u <= 0 || u > l.budget.limit {
			t.Fatalf("an admitted call holds %d bytes of %d", u, l.budget.limit)
		}
		l.HandleRPC(ctx, &statsEnd)
		if u := l.budget.used.Load(); u != 0 {
			t.Fatalf("%d bytes held after the call ended", u)
		}
		if len(l.streams) != 0 {
			t.Fatalf("streams %v after the call ended", l.streams)
		}
	})
}

var statsEnd stats.End

// TestFirstNonFinite: NaN (either sign) and both infinities are found,
// the largest, smallest and zero finite values are not.
func TestFirstNonFinite(t *testing.T) {
	for _, v := range []float32{float32(math.NaN()), -float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		if i := firstNonFinite([]float32{1, v, 2}); i != 1 {
			t.Errorf("%v: index %d", v, i)
		}
	}
	for _, v := range []float32{0, float32(math.Copysign(0, -1)), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32} {
		if i := firstNonFinite([]float32{v}); i != -1 {
			t.Errorf("%v: index %d", v, i)
		}
	}
}
