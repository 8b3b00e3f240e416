package distribute_test

import (
	"context"
	"crypto/tls"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/internal/pscerts"
	"github.com/gokeras/gokeras/internal/psrpc"
)

// tlsFiles writes the TLS files of spec's tasks into a temporary
// directory and returns it.
func tlsFiles(t testing.TB, spec distribute.ClusterSpec) string {
	t.Helper()
	dir := t.TempDir()
	if err := pscerts.WriteCluster(dir, spec, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tlsOption is task typ:idx's ClusterTLS option for the files in dir.
func tlsOption(dir, typ string, idx int) distribute.ParameterServerOption {
	f := pscerts.TaskFiles(dir, typ, idx)
	return distribute.ClusterTLS(f.CA, f.Cert, f.Key)
}

// startSecure starts an in-process cluster whose tasks talk mutual TLS.
func startSecure(t testing.TB, workers, servers int, opts ...distribute.ParameterServerOption) (*inProcess, string) {
	t.Helper()
	c := &inProcess{spec: psSpec(t, workers, servers), opts: opts}
	dir := tlsFiles(t, c.spec)
	c.perTask = func(typ string, idx int) []distribute.ParameterServerOption {
		return []distribute.ParameterServerOption{tlsOption(dir, typ, idx)}
	}
	return startCluster(t, c, workers, servers), dir
}

// TestPSTLSEquivalence: TestPSEquivalence with TLS between every task:
// the same weights, bitwise, as a local run of the same steps.
func TestPSTLSEquivalence(t *testing.T) {
	c, _ := startSecure(t, 1, 1)
	tasks := setUpTasks(t, c)
	chief := tasks[0]
	const steps = 6
	for i := range steps {
		if _, err := chief.coord.Schedule(chief.step, i); err != nil {
			t.Fatal(err)
		}
	}
	within(t, 20*time.Second, "Join", func() {
		if err := chief.coord.Join(); err != nil {
			t.Error(err)
		}
	})
	local := psModel(t)
	trainLocally(t, local, steps)
	if err := chief.s.PullVariables(chief.m.Weights()...); err != nil {
		t.Fatal(err)
	}
	for i, v := range chief.m.Weights() {
		want := local.Weights()[i].Data(0)
		for j, x := range v.Data(0) {
			if x != want[j] {
				t.Fatalf("%s[%d] = %v on the servers, %v locally", v.Name(), j, x, want[j])
			}
		}
	}
}

// TestPSTLSTwoWorkers: a secure cluster of 2 workers and 1 server trains
// as an insecure one: both workers run steps and the loss falls.
func TestPSTLSTwoWorkers(t *testing.T) {
	c, _ := startSecure(t, 2, 1)
	tasks := setUpTasks(t, c)
	chief := tasks[0]
	var rvs []*distribute.RemoteValue
	ran := map[int]int{}
	for round := 0; round < 20 && len(ran) < 2; round++ {
		for i := range 30 {
			rv, err := chief.coord.Schedule(chief.step, i%4)
			if err != nil {
				t.Fatal(err)
			}
			rvs = append(rvs, rv)
		}
		within(t, 30*time.Second, "Join", func() {
			if err := chief.coord.Join(); err != nil {
				t.Error(err)
			}
		})
		for _, rv := range rvs {
			ran[rv.Worker()]++
		}
	}
	if len(ran) != 2 {
		t.Errorf("steps ran on workers %v, want both", ran)
	}
	first, _ := rvs[0].Fetch()
	last, _ := rvs[len(rvs)-1].Fetch()
	if !(last.(float64) < first.(float64)) {
		t.Errorf("loss %v after %d steps, %v at the first", last, len(rvs), first)
	}
}

// call is one RPC a stranger tries.
type call struct {
	method     string
	req, reply any
}

// strangerCalls are the calls of every endpoint, each a real attack: a
// NaN written into variable 0, a huge step count, a shutdown, a run.
func strangerCalls() (ps, worker []call) {
	nan := psrpc.EncodeFloat32s([]float32{float32(math.NaN())})
	const p, w = "/gokeras.psrpc.ParameterServer/", "/gokeras.psrpc.Worker/"
	ps = []call{
		{p + "Init", &psrpc.InitRequest{Vars: []*psrpc.VarSpec{{Id: 0, Name: "hidden/kernel", Shape: []int64{1}, Value: nan}}}, &psrpc.Empty{}},
		{p + "Check", &psrpc.CheckRequest{}, &psrpc.Status{}},
		{p + "Pull", &psrpc.PullRequest{Ids: []int64{0}}, &psrpc.PullResponse{}},
		{p + "Push", &psrpc.PushRequest{Ids: []int64{3}, Grads: [][]byte{nan}}, &psrpc.PullResponse{}},
		{p + "Assign", &psrpc.AssignRequest{Ids: []int64{3}, Values: [][]byte{nan}}, &psrpc.Empty{}},
		{p + "GetOptimizerState", &psrpc.Empty{}, &psrpc.OptimizerState{}},
		{p + "SetOptimizerState", &psrpc.OptimizerState{Optimizer: `{"class_name": "SGD", "config": {"learning_rate": 1e38}}`, Iterations: math.MaxInt64}, &psrpc.Empty{}},
		{p + "Ping", &psrpc.Empty{}, &psrpc.Status{}},
		{p + "FinalizeVariables", &psrpc.Empty{}, &psrpc.Empty{}},
		{p + "Shutdown", &psrpc.Empty{}, &psrpc.Empty{}},
	}
	worker = []call{
		{w + "Run", &psrpc.RunRequest{Function: 0, Name: "train", Args: []*psrpc.Value{{Kind: &psrpc.Value_Scalar{Scalar: 0}}}}, &psrpc.RunResponse{}},
		{w + "Ping", &psrpc.Empty{}, &psrpc.WorkerStatus{}},
		{w + "Finished", &psrpc.FinishedRequest{Functions: []int64{0}}, &psrpc.Empty{}},
		{w + "Shutdown", &psrpc.Empty{}, &psrpc.Empty{}},
	}
	return ps, worker
}

// TestPSTLSRefusesStrangers: on a secure cluster, every RPC of every
// server and worker endpoint is refused to a caller without a
// certificate, to one with a certificate of another CA (even one named
// "chief:0"), and, for what only the chief may do, to a worker's and a
// server's certificate of the cluster; the cluster trains on after it
// all with the same weights.
func TestPSTLSRefusesStrangers(t *testing.T) {
	c, dir := startSecure(t, 1, 1)
	tasks := setUpTasks(t, c)
	chief := tasks[0]
	before := chief.m.Weights()[0].Numpy()

	// Another CA's certificate for the chief's name and host.
	otherDir := tlsFiles(t, c.spec)
	other := pscerts.TaskFiles(otherDir, "chief", 0)
	otherCert, err := tls.LoadX509KeyPair(other.Cert, other.Key)
	if err != nil {
		t.Fatal(err)
	}
	load := func(typ string, idx int) credentials.TransportCredentials {
		f := pscerts.TaskFiles(dir, typ, idx)
		cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			t.Fatal(err)
		}
		// The stranger does not check the server: only the server's
		// check of the caller is under test.
		return credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true})
	}
	type stranger struct {
		name  string
		creds credentials.TransportCredentials
		// member: a certificate of the cluster (refused only the
		// chief's calls).
		member, ps bool
	}
	strangers := []stranger{
		{"no TLS", insecure.NewCredentials(), false, false},
		{"TLS without a certificate", credentials.NewTLS(&tls.Config{InsecureSkipVerify: true}), false, false},
		{"another CA's chief:0", credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{otherCert}, InsecureSkipVerify: true}), false, false},
		{"the cluster's worker:0", load("worker", 0), true, false},
		{"the cluster's ps:0", load("ps", 0), true, true},
	}
	psCalls, workerCalls := strangerCalls()
	chiefOnly := map[string]bool{"Init": true, "GetOptimizerState": true, "SetOptimizerState": true, "FinalizeVariables": true, "Shutdown": true}
	for _, st := range strangers {
		for _, ep := range []struct {
			addr  string
			calls []call
			isPS  bool
		}{{c.spec["ps"][0], psCalls, true}, {c.spec["worker"][0], workerCalls, false}} {
			conn, err := grpc.NewClient(ep.addr, grpc.WithTransportCredentials(st.creds))
			if err != nil {
				t.Fatal(err)
			}
			for _, cl := range ep.calls {
				name := cl.method[strings.LastIndex(cl.method, "/")+1:]
				mayCall := st.member && !st.ps && ep.isPS && !chiefOnly[name]
				if mayCall {
					continue // a worker's own calls (refused for their content below)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				err := conn.Invoke(ctx, cl.method, cl.req, cl.reply)
				cancel()
				if err == nil {
					t.Errorf("%s: %s at %s was accepted", st.name, cl.method, ep.addr)
					continue
				}
				code := status.Code(err)
				if st.member && code != codes.PermissionDenied {
					t.Errorf("%s: %s: %v, want PermissionDenied", st.name, cl.method, err)
				}
				if !st.member && code != codes.Unavailable {
					t.Errorf("%s: %s: %v, want the handshake refused (Unavailable)", st.name, cl.method, err)
				}
			}
			conn.Close()
		}
	}
	// A worker's certificate may push and assign, but not NaN.
	conn, err := grpc.NewClient(c.spec["ps"][0], grpc.WithTransportCredentials(load("worker", 0)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, cl := range psCalls {
		if strings.HasSuffix(cl.method, "/Push") || strings.HasSuffix(cl.method, "/Assign") {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := conn.Invoke(ctx, cl.method, cl.req, cl.reply)
			cancel()
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "NaN") {
				t.Errorf("worker:0's %s of a NaN: %v, want InvalidArgument naming the NaN", cl.method, err)
			}
		}
	}
	if n := c.servers[0].NonFiniteRefused(); n < 2 {
		t.Errorf("the server counted %d refused NaN writes, want >= 2", n)
	}
	// The cluster is intact: same weights, and it trains.
	if err := chief.s.PullVariables(chief.m.Weights()...); err != nil {
		t.Fatal(err)
	}
	for j, x := range chief.m.Weights()[0].Data(0) {
		if x != before[j] {
			t.Fatalf("weight %d changed from %v to %v", j, before[j], x)
		}
	}
	rv, err := chief.coord.Schedule(chief.step, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rv.Fetch(); err != nil {
		t.Fatalf("a step after the strangers: %v", err)
	}
}

// TestPSTLSFiles: TLS files from the environment; a task given another
// task's certificate, or only some of the files, is an error naming it.
func TestPSTLSFiles(t *testing.T) {
	spec := psSpec(t, 1, 1)
	dir := tlsFiles(t, spec)
	f := pscerts.TaskFiles(dir, "ps", 0)
	t.Setenv(distribute.EnvTLSCA, f.CA)
	t.Setenv(distribute.EnvTLSCert, f.Cert)
	t.Setenv(distribute.EnvTLSKey, f.Key)
	s, err := distribute.NewParameterServerStrategy(resolverFor(t, spec, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// ps:0's certificate on worker:0.
	_, err = distribute.NewParameterServerStrategy(resolverFor(t, spec, "worker", 0), distribute.ConnectTimeout(time.Second))
	if err == nil || !strings.Contains(err.Error(), `task "ps:0"'s, but this task is worker:0`) {
		t.Errorf("worker with ps:0's certificate: %v", err)
	}
	t.Setenv(distribute.EnvTLSKey, "")
	_, err = distribute.NewParameterServerStrategy(resolverFor(t, spec, "ps", 0))
	if err == nil || !strings.Contains(err.Error(), "no key file") {
		t.Errorf("no key: %v", err)
	}
	t.Setenv(distribute.EnvTLSKey, filepath.Join(dir, "missing.pem"))
	_, err = distribute.NewParameterServerStrategy(resolverFor(t, spec, "ps", 0))
	if err == nil || !strings.Contains(err.Error(), "missing.pem") {
		t.Errorf("missing key file: %v", err)
	}
	_ = os.Remove
}
