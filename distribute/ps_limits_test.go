package distribute_test

import (
	"context"
	"math"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/psrpc"
)

// loneServer starts only server ps:0 of a cluster (no TLS, as the issue's
// flood found it) and a raw client of it, which declares no sizes and
// does not retry: a stranger's.
func loneServer(t *testing.T, opts ...distribute.ParameterServerOption) (*distribute.ParameterServerStrategy, psrpc.ParameterServerClient) {
	t.Helper()
	spec := psSpec(t, 1, 1)
	s, err := distribute.NewParameterServerStrategy(resolverFor(t, spec, "ps", 0), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	conn, err := grpc.NewClient(spec["ps"][0], grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(psrpc.MaxMessageBytes), grpc.MaxCallRecvMsgSize(psrpc.MaxMessageBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return s, psrpc.NewParameterServerClient(conn)
}

func ctxMinute(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func wantCode(t *testing.T, what string, err error, code codes.Code, msg string) {
	t.Helper()
	if status.Code(err) != code || !strings.Contains(err.Error(), msg) {
		t.Errorf("%s: %v, want %v with %q", what, err, code, msg)
	}
}

// vars1MiB are n variables of 256K float32 (1 MiB) from id first.
func vars1MiB(first, n int) []*psrpc.VarSpec {
	val := psrpc.EncodeFloat32s(make([]float32, 1<<18))
	var out []*psrpc.VarSpec
	for i := range n {
		out = append(out, &psrpc.VarSpec{Id: int64(first + i), Name: "v", Shape: []int64{1 << 18}, Trainable: true, Value: val})
	}
	return out
}

// TestPSFloodsRefused: the floods, scaled to a 16 MiB budget,
// leave the server alive and answering ResourceExhausted (or
// InvalidArgument for what no honest peer sends), with its budget whole
// again afterwards.
func TestPSFloodsRefused(t *testing.T) {
	s, c := loneServer(t, distribute.ServerMemoryBudget(16<<20))
	ctx := ctxMinute(t)
	for i := 0; i < 16; i += 2 {
		if _, err := c.Init(ctx, &psrpc.InitRequest{Vars: vars1MiB(i, 2)}); err != nil {
			t.Fatalf("init of variables %d..%d: %v", i, i+1, err)
		}
	}
	// One 1 MiB variable named 1024 times (an 8 KiB request).
	ids := make([]int64, 1024)
	_, err := c.Pull(ctx, &psrpc.PullRequest{Ids: ids})
	wantCode(t, "pull of variable 0 1024 times", err, codes.InvalidArgument, "given twice")
	// All 16 at once: a 16 MiB answer, twice over the budget.
	all := make([]int64, 16)
	for i := range all {
		all[i] = int64(i)
	}
	_, err = c.Pull(ctx, &psrpc.PullRequest{Ids: all})
	wantCode(t, "pull of 16 MiB", err, codes.ResourceExhausted, "server memory budget")
	_, err = c.Pull(ctx, &psrpc.PullRequest{Ids: []int64{-1}})
	wantCode(t, "pull of id -1", err, codes.InvalidArgument, "out of range")
	// A request larger than a fifth of the budget.
	_, err = c.Init(ctx, &psrpc.InitRequest{Vars: vars1MiB(100, 4)})
	wantCode(t, "a 4 MiB init", err, codes.ResourceExhausted, "larger than max")
	// Eight concurrent 2 MiB inits: each holds the budget while it is
	// read, so the others are refused, not read.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Init(ctx, &psrpc.InitRequest{Vars: vars1MiB(200+2*i, 2)})
		}()
	}
	wg.Wait()
	refused, ok := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case status.Code(err) == codes.ResourceExhausted && strings.Contains(err.Error(), "server memory budget"):
			refused++
		default:
			t.Errorf("init %d: %v", i, err)
		}
	}
	t.Logf("eight concurrent 2 MiB inits: %d served, %d refused", ok, refused)
	if ok == 0 {
		t.Errorf("no init was served")
	}
	if _, err := c.Ping(ctx, &psrpc.Empty{}); err != nil {
		t.Fatalf("the server after the floods: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for distribute.BudgetInUse(s) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := distribute.BudgetInUse(s); n != 0 {
		t.Errorf("%d bytes of the budget still held after every call ended", n)
	}
	// A peer that declares 100 bytes and sends 1 MiB is refused, then
	// refused everything.
	lie := metadata.AppendToOutgoingContext(ctx, "gokeras-request-bytes", "100")
	_, err = c.Assign(lie, &psrpc.AssignRequest{Ids: []int64{0}, Values: [][]byte{psrpc.EncodeFloat32s(make([]float32, 1<<18))}})
	wantCode(t, "a request larger than declared", err, codes.ResourceExhausted, "declared a request of 100 bytes")
	_, err = c.Ping(ctx, &psrpc.Empty{})
	wantCode(t, "the liar's next call", err, codes.PermissionDenied, "larger than it declared")
}

// TestPSServerChecks: what the servers refuse from any peer, certificate
// or not: NaN and Inf values, a shape other than the agreed one, a
// learning rate of 1e38 and a step count of MaxInt64, long names.
func TestPSServerChecks(t *testing.T) {
	_, c := loneServer(t)
	ctx := ctxMinute(t)
	one := func(x float32) [][]byte { return [][]byte{psrpc.EncodeFloat32s([]float32{x})} }
	if _, err := c.Init(ctx, &psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 0, Name: "w", Shape: []int64{1}, Trainable: true, Value: one(1)[0]}}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Init(ctx, &psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 0, Name: "w", Shape: []int64{2}, Trainable: true, Value: psrpc.EncodeFloat32s([]float32{1, 2})}}})
	wantCode(t, "init of variable 0 with another shape", err, codes.FailedPrecondition, "initialised once")
	_, err = c.Init(ctx, &psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 1, Name: strings.Repeat("n", 2000), Shape: []int64{1}, Value: one(1)[0]}}})
	wantCode(t, "a 2000-byte name", err, codes.InvalidArgument, "name is 2000 bytes")
	_, err = c.Init(ctx, &psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 1 << 40, Name: "x", Shape: []int64{1}, Value: one(1)[0]}}})
	wantCode(t, "init of id 2^40", err, codes.InvalidArgument, "out of range")
	for _, x := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		_, err = c.Assign(ctx, &psrpc.AssignRequest{Ids: []int64{0}, Values: one(x)})
		wantCode(t, "assign of a non-finite value", err, codes.InvalidArgument, "no NaN or Inf")
		_, err = c.Push(ctx, &psrpc.PushRequest{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 0.1}}`, Ids: []int64{0}, Grads: one(x)})
		wantCode(t, "push of a non-finite gradient", err, codes.InvalidArgument, "no NaN or Inf")
	}
	_, err = c.Push(ctx, &psrpc.PushRequest{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 1e38}}`, Ids: []int64{0}, Grads: one(1)})
	wantCode(t, "SGD at 1e38", err, codes.InvalidArgument, "learning rate 1e+38 out of range")
	_, err = c.SetOptimizerState(ctx, &psrpc.OptimizerState{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 0.1}}`, Iterations: math.MaxInt64})
	wantCode(t, "iterations MaxInt64", err, codes.InvalidArgument, "iterations")
	// An update whose result overflows is undone and refused.
	if _, err := c.Assign(ctx, &psrpc.AssignRequest{Ids: []int64{0}, Values: one(3e38)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Push(ctx, &psrpc.PushRequest{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 1000}}`, Ids: []int64{0}, Grads: one(-3e37)})
	wantCode(t, "an update to +Inf", err, codes.InvalidArgument, "update")
	resp, err := c.Pull(ctx, &psrpc.PullRequest{Ids: []int64{0}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := psrpc.DecodeFloat32s(resp.Values[0], "w"); v[0] != 3e38 {
		t.Errorf("after the refused update w = %v, want 3e38 (undone)", v[0])
	}
}

// TestPSWorkerRunOutOfRange: Run{Function: -1} (which panicked the worker)
// and other ids out of range are errors, and the worker serves on.
func TestPSWorkerRunOutOfRange(t *testing.T) {
	spec := psSpec(t, 1, 1)
	ps, err := distribute.NewParameterServerStrategy(resolverFor(t, spec, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	w, err := distribute.NewParameterServerStrategy(resolverFor(t, spec, "worker", 0), distribute.RPCTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	coord, err := distribute.NewClusterCoordinator(w)
	if err != nil {
		t.Fatal(err)
	}
	coord.Function("f", func(...any) (any, error) { return 1.0, nil })
	conn, err := grpc.NewClient(spec["worker"][0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := psrpc.NewWorkerClient(conn)
	ctx := ctxMinute(t)
	for _, id := range []int64{-1, math.MinInt64, math.MaxInt64} {
		_, err := c.Run(ctx, &psrpc.RunRequest{Function: id, Name: "f"})
		wantCode(t, "Run of an id out of range", err, codes.InvalidArgument, "out of range")
	}
	_, err = c.Run(ctx, &psrpc.RunRequest{Function: 0, Name: "f", Args: []*psrpc.Value{{Kind: &psrpc.Value_Dataset{Dataset: -5}}}})
	wantCode(t, "Run with dataset -5", err, codes.InvalidArgument, "out of range")
	res, err := c.Run(ctx, &psrpc.RunRequest{Function: 0, Name: "f"})
	if err != nil || res.Error != "" || len(res.Results) != 1 {
		t.Errorf("Run of f: %v, %v", res, err)
	}
	_, err = c.Finished(ctx, &psrpc.FinishedRequest{Functions: []int64{-3}})
	wantCode(t, "Finished of function -3", err, codes.InvalidArgument, "out of range")
	if _, err := c.Ping(ctx, &psrpc.Empty{}); err != nil {
		t.Fatalf("the worker after the calls: %v", err)
	}
}

// TestPSListensOnSpecAddressOnly: a server listens on its cluster-spec
// address, not on every interface (another loopback address can take the
// same port); a host this machine does not have is an error naming the
// override, and ListenAddress is the override.
func TestPSListensOnSpecAddressOnly(t *testing.T) {
	spec := psSpec(t, 1, 1)
	s, err := distribute.NewParameterServerStrategy(resolverFor(t, spec, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, port, _ := net.SplitHostPort(spec["ps"][0])
	if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.2", port)); err != nil {
		t.Errorf("127.0.0.2:%s is taken too (%v): the server listens on every interface", port, err)
	} else {
		l.Close()
	}
	// TEST-NET-1: an address no machine here has.
	foreign := distribute.ClusterSpec{"chief": spec["chief"], "worker": spec["worker"], "ps": {net.JoinHostPort("192.0.2.1", port)}}
	_, err = distribute.NewParameterServerStrategy(resolverFor(t, foreign, "ps", 0))
	if err == nil || !strings.Contains(err.Error(), "cannot listen on 192.0.2.1") || !strings.Contains(err.Error(), distribute.EnvListen) {
		t.Errorf("a ps on a foreign host: %v", err)
	}
	free := freeAddrs(t, 1)[0]
	s2, err := distribute.NewParameterServerStrategy(resolverFor(t, foreign, "ps", 0), distribute.ListenAddress(free))
	if err != nil {
		t.Fatalf("ListenAddress(%s): %v", free, err)
	}
	s2.Close()
}
