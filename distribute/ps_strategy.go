package distribute

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/keepalive"

	"github.com/gokeras/gokeras/engine"
	"github.com/gokeras/gokeras/internal/mpi"
	"github.com/gokeras/gokeras/internal/psrpc"
	"github.com/gokeras/gokeras/ops"
)

// ParameterServerStrategy is TensorFlow's tf.distribute.ParameterServerStrategy:
// the variables that [ParameterServerStrategy.Track] places live on the
// "ps" tasks; "worker" tasks run the steps that the "chief" (the
// coordinator, see [NewClusterCoordinator]) schedules, each pushing its
// gradients to the servers, which apply their own copy of the optimizer in
// arrival order, without waiting for the other workers. Every task runs
// the same program; see docs/parameter_server.md.
//
// Its methods are safe for concurrent use.
type ParameterServerStrategy struct {
	cfg      psConfig
	resolver ClusterResolver
	spec     ClusterSpec
	taskType string
	taskID   int

	ps []*psClient // every task but the servers talks to them
	// tls is the task's TLS material; nil without TLS.
	tls *clusterTLS
	// limiter admits the calls of a "ps" or "worker" task's service.
	limiter *limiter

	server   *grpc.Server // a worker's or a server's own service
	listener net.Listener
	psServer *psServer

	mu   sync.Mutex
	vars []*trackedVar
	byV  map[*ops.Variable]*trackedVar
	next int // the next shard's server, round-robin
	nIDs int64
	// checked is how many of vars matched the servers' (a worker checks
	// its variables before its first pull or push).
	checked int
	// fresh holds the trainable variables whose values came back with
	// this task's last push and have not been used by a step since: the
	// next step reuses them instead of pulling them again.
	fresh map[*trackedVar]bool
	// writes counts, on the chief, its writes of variable values to the
	// servers (Track, PushVariables, the end of a Fit with use_ema); each
	// scheduled call carries it. On a worker it is the last count seen:
	// a new one means the chief changed the values, and fresh is dropped.
	writes int64

	reg registry // functions and per-worker datasets, in registration order

	done      chan struct{} // closed when the cluster is shut down
	closeOnce sync.Once
	// lastCall is when this task last served a call (UnixNano), for
	// ChiefTimeout.
	lastCall atomic.Int64
	// finalizeMPI ends MPI once the task is done, when mpirun launched it
	// (NewMPIParameterServerResolver).
	finalizeMPI func()
	coord       *ClusterCoordinator
	// finished lists, on the chief, the functions it schedules no more
	// (FinishFunction); the heartbeat repeats it to every worker.
	finished []int64
}

// psClient is a connection to one parameter server.
type psClient struct {
	task int
	addr string
	conn *grpc.ClientConn
	c    psrpc.ParameterServerClient
}

func (p *psClient) name() string { return fmt.Sprintf("ps:%d at %s", p.task, p.addr) }

// ErrParameterServerGone is wrapped by the errors of a step, a pull or a
// push when a parameter server stopped answering: the job cannot go on (the
// server's variables are lost) and must be relaunched from its last
// checkpoint, as in TensorFlow.
var ErrParameterServerGone = errors.New("parameter server is gone")

// NewParameterServerStrategy makes the strategy of this task of a
// parameter-server cluster, which resolver describes (TensorFlow's
// TF_CONFIG: {"cluster": {"chief": [...], "worker": [...], "ps": [...]},
// "task": {"type": ..., "index": ...}}; nil reads the environment with
// [ResolveCluster]). A "ps" or "worker" task starts its gRPC service on
// its address's port; the chief and the workers connect to every server,
// waiting at most [ConnectTimeout]. End a worker's or a server's program
// with [ParameterServerStrategy.Join] and the chief's with
// [ParameterServerStrategy.Close].
//
// Errors: a cluster without "ps" or "worker" tasks or without a chief, a
// task type other than chief, worker or ps, an address that cannot be
// listened on, a server that cannot be reached (named with its address).
func NewParameterServerStrategy(resolver ClusterResolver, opts ...ParameterServerOption) (*ParameterServerStrategy, error) {
	cfg := defaultPSConfig()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if resolver == nil {
		r, err := ResolveCluster()
		if err != nil {
			return nil, fmt.Errorf("distribute: NewParameterServerStrategy: %w", err)
		}
		resolver = r
	}
	spec := resolver.ClusterSpec()
	where := resolver.Name()
	switch {
	case spec == nil:
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: %s gives no cluster spec; describe the cluster with TF_CONFIG ({\"cluster\": {\"chief\": [...], \"worker\": [...], \"ps\": [...]}, \"task\": ...})", where)
	case len(spec["ps"]) == 0:
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: %s: the cluster has no \"ps\" task (jobs: %v); parameter-server training needs at least one", where, spec.Jobs())
	case len(spec["worker"]) == 0:
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: %s: the cluster has no \"worker\" task (jobs: %v); the workers run the steps", where, spec.Jobs())
	case len(spec["chief"]) != 1:
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: %s: the cluster needs exactly one \"chief\" task, the coordinator (jobs: %v)", where, spec.Jobs())
	}
	tt := resolver.TaskType()
	switch tt {
	case "chief", "worker", "ps":
	default:
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: %s: task type %q: a parameter-server cluster's tasks are \"chief\", \"worker\" and \"ps\"", where, tt)
	}
	s := &ParameterServerStrategy{
		cfg: cfg, resolver: resolver, spec: spec, taskType: tt, taskID: resolver.TaskID(),
		byV: map[*ops.Variable]*trackedVar{}, fresh: map[*trackedVar]bool{}, done: make(chan struct{}),
	}
	s.reg.init()
	if resolver.Name() == mpiPSResolverName {
		s.finalizeMPI = sync.OnceFunc(func() { _ = mpi.Finalize() })
	}
	addr, err := spec.TaskAddress(tt, s.taskID)
	if err != nil {
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: %s: %w", where, err)
	}
	if err := checkPSAddresses(spec); err != nil {
		return nil, fmt.Errorf("distribute: NewParameterServerStrategy: %s: %w", where, err)
	}
	if s.tls, err = loadClusterTLS(cfg, tt, s.taskID, cfg.lookupEnv); err != nil {
		return nil, err
	}
	if s.tls == nil {
		warnInsecure(fmt.Sprintf("%s:%d", tt, s.taskID), addr)
	}
	if tt != "chief" {
		if err := s.serve(addr); err != nil {
			return nil, err
		}
	}
	if tt == "ps" {
		return s, nil
	}
	if err := s.connectServers(); err != nil {
		s.stopServing()
		return nil, err
	}
	if tt == "chief" {
		go s.heartbeat()
	}
	return s, nil
}

// heartbeat pings every worker and server each second until the cluster
// is shut down, so that their Join knows the chief is there.
func (s *ParameterServerStrategy) heartbeat() {
	var workers []psrpc.WorkerClient
	for i, addr := range s.spec["worker"] {
		if conn, err := s.dial(addr, fmt.Sprintf("worker:%d", i)); err == nil {
			defer conn.Close()
			workers = append(workers, psrpc.NewWorkerClient(conn))
		}
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fin := s.finishedFunctions()
		for _, w := range workers {
			if len(fin) > 0 {
				// Repeated each second: a worker that missed the
				// announcement, or restarted, learns it here.
				go w.Finished(ctx, &psrpc.FinishedRequest{Functions: fin})
			} else {
				go w.Ping(ctx, &psrpc.Empty{})
			}
		}
		for _, p := range s.ps {
			go p.c.Ping(ctx, &psrpc.Empty{})
		}
		time.AfterFunc(time.Second, cancel)
	}
}

// serve listens on addr, the task's address in the cluster spec (only
// the interface of its host, unlike TensorFlow's servers, which listen on
// every interface), or on [ListenAddress], and starts this task's
// service.
func (s *ParameterServerStrategy) serve(addr string) error {
	listen, from := addr, "its address in the cluster spec"
	if v, ok := s.cfg.lookupEnv(EnvListen); ok && v != "" {
		listen, from = v, "$"+EnvListen
	}
	if s.cfg.listen != "" {
		listen, from = s.cfg.listen, "ListenAddress"
	}
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return fmt.Errorf("distribute: NewParameterServerStrategy: %s:%d listen address %q (%s): %w", s.taskType, s.taskID, clip(listen), from, err)
	}
	lis, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("distribute: NewParameterServerStrategy: %s:%d cannot listen on %s (%s): %w; a host this machine cannot bind (a load balancer's or a service's name) needs ListenAddress or $%s (\":2222\" listens on every interface)",
			s.taskType, s.taskID, listen, from, err, EnvListen)
	}
	s.listener = lis
	s.lastCall.Store(time.Now().UnixNano())
	// Under TLS only the chief's calls are its heartbeat; without TLS
	// any call (nothing tells the chief's apart).
	touch := func(_ context.Context, task string) {
		if s.tls == nil || task == "chief:0" {
			s.lastCall.Store(time.Now().UnixNano())
		}
	}
	methods := workerMethods
	if s.taskType == "ps" {
		methods = psMethods
	}
	s.limiter = newLimiter(fmt.Sprintf("%s:%d", s.taskType, s.taskID), s.cfg.memBudget, methods, s.tls != nil)
	opts := append(s.limiter.serverOptions(touch),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}))
	if s.tls != nil {
		opts = append(opts, grpc.Creds(s.tls.serverCreds()))
	}
	s.server = grpc.NewServer(opts...)
	if s.taskType == "ps" {
		s.psServer = newPSServer(s)
		s.psServer.budget = s.limiter.budget
		psrpc.RegisterParameterServerServer(s.server, s.psServer)
	} else {
		psrpc.RegisterWorkerServer(s.server, newWorkerServer(s))
	}
	go s.server.Serve(lis)
	return nil
}

func (s *ParameterServerStrategy) stopServing() {
	if s.server != nil {
		s.server.Stop()
	}
	for _, p := range s.ps {
		p.conn.Close()
	}
}

// dial connects to a task. Reconnecting backs off to at most 1 s (gRPC's
// default grows to 2 minutes, which would keep a restarted worker idle),
// and keepalive pings find a peer whose machine vanished without closing
// the connection within about 30 s.
func (s *ParameterServerStrategy) dial(addr, task string) (*grpc.ClientConn, error) {
	bo := backoff.DefaultConfig
	bo.MaxDelay = time.Second
	return grpc.NewClient(addr,
		grpc.WithTransportCredentials(s.creds(task)),
		grpc.WithUnaryInterceptor(declareSize),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: bo, MinConnectTimeout: 5 * time.Second}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 20 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: true}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(psrpc.MaxMessageBytes), grpc.MaxCallSendMsgSize(psrpc.MaxMessageBytes)))
}

// connectServers connects to every parameter server and waits (at most
// ConnectTimeout) until each answers.
func (s *ParameterServerStrategy) connectServers() error {
	for i, addr := range s.spec["ps"] {
		conn, err := s.dial(addr, fmt.Sprintf("ps:%d", i))
		if err != nil {
			return fmt.Errorf("distribute: NewParameterServerStrategy: parameter server ps:%d at %s: %w", i, addr, err)
		}
		s.ps = append(s.ps, &psClient{task: i, addr: addr, conn: conn, c: psrpc.NewParameterServerClient(conn)})
	}
	errs := make([]error, len(s.ps))
	var wg sync.WaitGroup
	for i, p := range s.ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), s.cfg.connectTimeout)
			defer cancel()
			// WaitForReady: the server may not be listening yet.
			_, err := p.c.Ping(ctx, &psrpc.Empty{}, grpc.WaitForReady(true))
			if err != nil {
				errs[i] = fmt.Errorf("distribute: NewParameterServerStrategy: parameter server %s cannot be reached within %v: %v", p.name(), s.cfg.connectTimeout, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TaskType is "chief", "worker" or "ps".
func (s *ParameterServerStrategy) TaskType() string { return s.taskType }

// TaskID is this task's index among the tasks of its type.
func (s *ParameterServerStrategy) TaskID() int { return s.taskID }

// IsCoordinator reports whether this task is the chief, which coordinates.
func (s *ParameterServerStrategy) IsCoordinator() bool { return s.taskType == "chief" }

// IsChief implements engine.Cluster: the chief writes checkpoints and logs.
func (s *ParameterServerStrategy) IsChief() bool { return s.IsCoordinator() }

// NumWorkers is the number of "worker" tasks (the chief coordinates and is
// not counted).
func (s *ParameterServerStrategy) NumWorkers() int { return len(s.spec["worker"]) }

// NumPS is the number of parameter servers.
func (s *ParameterServerStrategy) NumPS() int { return len(s.spec["ps"]) }

// ClusterSpec returns the cluster's addresses.
func (s *ParameterServerStrategy) ClusterSpec() ClusterSpec { return s.spec }

// NumReplicasInSync is 1: each worker runs one replica, asynchronously
// (TensorFlow's, on workers without GPUs).
func (s *ParameterServerStrategy) NumReplicasInSync() int { return 1 }

// Scope enters the strategy's scope (`with strategy.scope():`): models made
// in it run their steps through the strategy. Variables are not placed by
// the scope but by [ParameterServerStrategy.Track].
func (s *ParameterServerStrategy) Scope() (exit func()) { return engine.EnterScope(s) }

// Done is closed when the cluster is shut down (the chief's Close, or a
// Shutdown the chief sent to this task).
func (s *ParameterServerStrategy) Done() <-chan struct{} { return s.done }

// Join serves this task until the chief shuts the cluster down, then
// returns nil, as TensorFlow's server.join(): a "ps" or "worker" task ends
// its program with it. The chief pings every task each second; a task
// that hears nothing for [ChiefTimeout] returns an error instead of
// serving a chief that is gone. On the chief it is an error: the chief ends with
// [ParameterServerStrategy.Close].
func (s *ParameterServerStrategy) Join() error {
	if s.IsCoordinator() {
		return fmt.Errorf("distribute: ParameterServerStrategy.Join: the chief coordinates and serves nothing; end its program with Close, which shuts the cluster down")
	}
	return s.serveUntil(-1)
}

// serveUntil serves until the chief shuts the cluster down (it then stops
// this task's service and returns nil), until the chief finished function
// fn (fn >= 0: it returns nil and goes on serving, for the next Fit), or
// until the chief has been silent for ChiefTimeout (an error).
func (s *ParameterServerStrategy) serveUntil(fn int64) error {
	tick := time.NewTicker(min(time.Second, s.cfg.chiefTimeout/4))
	defer tick.Stop()
	end := func() {
		s.stopServing()
		if s.finalizeMPI != nil {
			s.finalizeMPI()
		}
	}
	for {
		var more <-chan struct{}
		if fn >= 0 {
			fin, ch := s.reg.finishedState(fn)
			if fin {
				return nil
			}
			more = ch
		}
		select {
		case <-s.done:
			end()
			return nil
		case <-more:
			continue
		case <-tick.C:
		}
		if quiet := time.Since(time.Unix(0, s.lastCall.Load())); quiet > s.cfg.chiefTimeout {
			end()
			return fmt.Errorf("distribute: ParameterServerStrategy.Join: %s:%d has had no call for %v (ChiefTimeout): the chief at %s is gone; ending this task", s.taskType, s.taskID, quiet.Round(time.Second), s.spec["chief"][0])
		}
	}
}

// finishFunction, on the chief, records that fn will be scheduled no
// more and tells every worker at once (the heartbeat repeats it each
// second for those that missed it): a worker's Fit serving fn returns.
func (s *ParameterServerStrategy) finishFunction(fn int64) {
	s.mu.Lock()
	if slices.Contains(s.finished, fn) {
		s.mu.Unlock()
		return
	}
	s.finished = append(s.finished, fn)
	fin := slices.Clone(s.finished)
	s.mu.Unlock()
	c := s.coordinator()
	if c == nil {
		return
	}
	var wg sync.WaitGroup
	for _, w := range c.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, _ = w.c.Finished(ctx, &psrpc.FinishedRequest{Functions: fin})
		}()
	}
	wg.Wait()
}

func (s *ParameterServerStrategy) finishedFunctions() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.finished)
}

// shutdownLocal ends this task's serving (Join returns).
func (s *ParameterServerStrategy) shutdownLocal() {
	s.closeOnce.Do(func() { close(s.done) })
}

// Close, on the chief, stops the coordinator (waiting for nothing: call
// [ClusterCoordinator.Join] first) and shuts the cluster down: every
// worker's and server's Join returns. Servers or workers that are gone are
// skipped. On another task it stops this task's service. Close may be
// called more than once.
func (s *ParameterServerStrategy) Close() error {
	if s.finalizeMPI != nil {
		defer s.finalizeMPI()
	}
	if !s.IsCoordinator() {
		s.shutdownLocal()
		s.stopServing()
		return nil
	}
	var first bool
	s.closeOnce.Do(func() { close(s.done); first = true })
	if !first {
		return nil
	}
	if c := s.coordinator(); c != nil {
		c.stop()
	}
	var wg sync.WaitGroup
	for i, addr := range s.spec["worker"] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := s.dial(addr, fmt.Sprintf("worker:%d", i))
			if err != nil {
				return
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, _ = psrpc.NewWorkerClient(conn).Shutdown(ctx, &psrpc.Empty{})
		}()
	}
	for _, p := range s.ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, _ = p.c.Shutdown(ctx, &psrpc.Empty{})
		}()
	}
	wg.Wait()
	s.stopServing()
	return nil
}

func (s *ParameterServerStrategy) coordinator() *ClusterCoordinator {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.coord
}

// RunReplicas implements engine.Strategy. On a worker (or the chief, for a
// custom step of its own) it brings the tracked variables up to date from
// the servers, runs fn once with a context implementing
// ops.ParameterServerContext (an optimizer's update becomes a push to the
// servers, whose fresh values it writes back), then assigns the tracked
// non-trainable variables that fn changed (BatchNormalization's moving
// statistics) on the servers. A "ps" task runs no steps.
//
// The values a push answers with are the servers' after that push, every
// other worker's earlier pushes included; the next step uses them without
// pulling them again, and pulls only the rest: the non-trainable
// variables (other workers assign theirs), the trainable ones the last
// step pushed no gradient for, everything on the first step, and
// everything after the chief wrote values to the servers (Track,
// PushVariables, a Fit's end with use_ema). Writes of a step's variables
// made on this task between two steps are not sent anywhere and are
// overwritten by the next push's answer; pull or push them explicitly.
func (s *ParameterServerStrategy) RunReplicas(fn func(rc ops.ReplicaContext) error) error {
	if s.taskType == "ps" {
		return fmt.Errorf("distribute: ParameterServerStrategy: ps:%d runs no steps (a parameter server ends its program with Join)", s.taskID)
	}
	if s.IsCoordinator() && s.PSClosed() {
		// After Close the servers are gone: the chief's Evaluate and
		// Predict run on its last pulled weights.
		return fn(closedContext{s})
	}
	before, err := s.pullForStep()
	if err != nil {
		return err
	}
	if err := fn(&psContext{s: s}); err != nil {
		s.dropFresh()
		return err
	}
	if err := s.assignChanged(before); err != nil {
		s.dropFresh()
		return err
	}
	return nil
}

// closedContext is the chief's replica context after Close: a step may
// read its copies of the variables, not update them.
type closedContext struct{ s *ParameterServerStrategy }

func (closedContext) ReplicaID() int                 { return 0 }
func (closedContext) NumReplicas() int               { return 1 }
func (closedContext) AllReduceSum([][]float32) error { return nil }

// PushGradients implements ops.ParameterServerContext: an error, the
// servers are gone.
func (c closedContext) PushGradients(_ any, vars []*ops.Variable, _ [][]float32) error {
	name := ""
	if len(vars) > 0 {
		name = vars[0].Name()
	}
	return fmt.Errorf("distribute: ParameterServerStrategy: the chief closed the cluster (Close): no parameter server takes the gradients of %q any more; train before Close", name)
}

// dropFresh makes the next step pull every variable.
func (s *ParameterServerStrategy) dropFresh() {
	s.mu.Lock()
	clear(s.fresh)
	s.mu.Unlock()
}

// noteChiefWrites records the chief's count of writes that came with a
// scheduled call: when it changed, the values of the last push may
// predate a write, and the next step pulls everything.
func (s *ParameterServerStrategy) noteChiefWrites(n int64) {
	s.mu.Lock()
	if n != s.writes {
		s.writes = n
		clear(s.fresh)
	}
	s.mu.Unlock()
}

// chiefWrote counts a write of variable values to the servers by the
// chief (scheduled calls carry the count).
func (s *ParameterServerStrategy) chiefWrote() {
	if s.taskType != "chief" {
		return
	}
	s.mu.Lock()
	s.writes++
	clear(s.fresh)
	s.mu.Unlock()
}

// chiefWrites is the count of chiefWrote.
func (s *ParameterServerStrategy) chiefWrites() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

func (s *ParameterServerStrategy) String() string {
	return fmt.Sprintf("ParameterServerStrategy(%s:%d of %d workers, %d ps)", s.taskType, s.taskID, s.NumWorkers(), s.NumPS())
}

var (
	_ engine.Strategy = (*ParameterServerStrategy)(nil)
	_ engine.Cluster  = (*ParameterServerStrategy)(nil)
)

// Run runs one step of fn on this worker's inputs (one replica: no batch
// splitting), as strategy.run inside a scheduled function: fn is a
// *keras.Function or a plain Go function [StepFunction] accepts, traced
// once per input shape; an optimizer's ApplyGradients in it pushes to the
// servers. The values are those of the step's outputs, copied.
func (s *ParameterServerStrategy) Run(fn any, inputs ...ops.Value) ([]ops.Value, error) {
	f, err := StepFunction(fn)
	if err != nil {
		return nil, fmt.Errorf("distribute: ParameterServerStrategy.Run: %w", err)
	}
	outs, err := f.CallReplicas(s, [][]ops.Value{inputs})
	if err != nil {
		return nil, ops.Where("distribute: ParameterServerStrategy.Run", err)
	}
	return outs[0], nil
}
