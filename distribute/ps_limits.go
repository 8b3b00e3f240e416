package distribute

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/proto"

	"github.com/gokeras/gokeras/internal/psrpc"
	"github.com/gokeras/gokeras/ops"
)

// The memory of a server is bounded per server, not per message: every
// call reserves, before gRPC reads a byte of its request, three times the
// request's size (gRPC's buffers, the decoded message, and the values the
// handler decodes from it) out of the server's budget
// ([ServerMemoryBudget]), and the answers of Pull and Push reserve twice
// their size; a call the budget cannot hold is refused with
// ResourceExhausted (the strategy's own clients wait and retry within
// their deadline), never an out-of-memory crash. The size comes from the
// caller's "gokeras-request-bytes" header, which the strategy's clients
// set; a call without it reserves the largest message, so that only one
// such call is read at a time; a caller whose request is larger than it
// declared is refused and refused again on every later call (banned). One
// peer (a certificate's task under TLS, else an IP address) holds at most
// maxPeerStreams calls at once.

// DefaultServerMemoryBudget is the memory budget of a server's calls in
// flight when [ServerMemoryBudget] is not given: 2 GiB.
const DefaultServerMemoryBudget = 2 << 30

// minServerMemoryBudget is the smallest budget ServerMemoryBudget sets.
const minServerMemoryBudget = 1 << 20

const (
	requestBytesHeader = "gokeras-request-bytes"
	// requestFactor and answerFactor are the copies of a request and of
	// an answer that exist at once while a call is served.
	requestFactor = 3
	answerFactor  = 2
	// callOverhead is reserved for every call besides its bytes.
	callOverhead = 4 << 10
	// maxPeerStreams bounds the calls in flight from one peer.
	maxPeerStreams = 64
	// budgetRefusal starts the message of a call the budget refused,
	// which the strategy's clients retry.
	budgetRefusal = "server memory budget"
)

// ServerMemoryBudget bounds the bytes a "ps" or "worker" task holds at
// once for the calls it serves, requests and answers together
// ([DefaultServerMemoryBudget] by default, at least 1 MiB; the variables
// it keeps are not counted). A call beyond it is refused with ResourceExhausted; the
// strategy's own calls wait for room until their [RPCTimeout]. One
// message is at most a fifth of the budget (and at most 1 GiB), so that
// the largest request and an answer as large fit: raise it for
// parameter-server shards larger than 400 MiB.
func ServerMemoryBudget(bytes int64) ParameterServerOption {
	return func(c *psConfig) {
		if bytes > 0 {
			c.memBudget = max(bytes, minServerMemoryBudget)
		}
	}
}

// memBudget is a server's budget of bytes.
type memBudget struct {
	limit   int64
	used    atomic.Int64
	refused atomic.Int64
}

func (b *memBudget) take(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.limit {
			b.refused.Add(1)
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (b *memBudget) give(n int64) { b.used.Add(-n) }

// reservation is what one call holds of the budget, released when gRPC
// ends the call (the stats handler's End).
type reservation struct {
	l        *limiter
	peer     string
	declared int64
	mu       sync.Mutex
	held     int64 // the answer's part and, until reqHeld is released, the request's
	reqHeld  int64
	done     bool
}

func (r *reservation) add(n int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || !r.l.budget.take(n) {
		return false
	}
	r.held += n
	return true
}

// releaseRequest gives back the request's part once the handler is done
// with the request (its answer's part stays until the call ends).
func (r *reservation) releaseRequest() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.reqHeld == 0 {
		return
	}
	r.l.budget.give(r.reqHeld)
	r.held -= r.reqHeld
	r.reqHeld = 0
}

func (r *reservation) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	r.l.budget.give(r.held)
	r.held = 0
	r.l.mu.Lock()
	if r.l.streams[r.peer]--; r.l.streams[r.peer] <= 0 {
		delete(r.l.streams, r.peer)
	}
	r.l.mu.Unlock()
}

type reservationKey struct{}

// limiter admits a server's calls: the methods it serves, the peers
// allowed each (under TLS), the budget, and the peers' streams.
type limiter struct {
	name    string // "ps:0", for messages
	budget  *memBudget
	maxMsg  int64
	methods map[string][]string // full method name -> task types allowed
	tls     bool

	mu      sync.Mutex
	streams map[string]int
	banned  map[string]bool
	// lied counts the calls refused for a request larger than declared.
	lied atomic.Int64
}

func newLimiter(name string, budget int64, methods map[string][]string, tls bool) *limiter {
	// A message of maxMsg bytes and an answer as large fit together.
	maxMsg := min(int64(psrpc.MaxMessageBytes), (budget-callOverhead)/(requestFactor+answerFactor))
	return &limiter{name: name, budget: &memBudget{limit: budget}, maxMsg: maxMsg, methods: methods, tls: tls,
		streams: map[string]int{}, banned: map[string]bool{}}
}

// peerOf names the peer of ctx: its certificate's task under TLS, else
// its IP address; and whether the certificate is one of a task of type
// typ (always true without TLS, which cannot tell).
func (l *limiter) peerOf(ctx context.Context) (key, task string) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return "?", ""
	}
	if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok && len(ti.State.VerifiedChains) > 0 && len(ti.State.VerifiedChains[0]) > 0 {
		cn := ti.State.VerifiedChains[0][0].Subject.CommonName
		return "cert " + cn, cn
	}
	host := p.Addr.String()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return "ip " + host, ""
}

// taskType returns the type of a certificate's task name ("worker:1"),
// or "" when it is not one.
func taskTypeOf(task string) string {
	typ, id, ok := strings.Cut(task, ":")
	if !ok {
		return ""
	}
	if n, err := strconv.Atoi(id); err != nil || n < 0 || strconv.Itoa(n) != id {
		return ""
	}
	switch typ {
	case "chief", "worker", "ps":
		return typ
	}
	return ""
}

func refuse(c codes.Code, format string, args ...any) error {
	return status.Errorf(c, format, args...)
}

// tap admits a call before gRPC reads its request (it runs on the
// connection's reader: it must not block).
func (l *limiter) tap(ctx context.Context, info *tap.Info) (context.Context, error) {
	allowed, ok := l.methods[info.FullMethodName]
	if !ok {
		return nil, refuse(codes.Unimplemented, "%s: no method %q", l.name, clip(info.FullMethodName))
	}
	key, task := l.peerOf(ctx)
	if l.tls {
		typ := taskTypeOf(task)
		okType := false
		for _, a := range allowed {
			okType = okType || a == typ
		}
		if !okType {
			return nil, refuse(codes.PermissionDenied, "%s: %s is refused to %q: only %s tasks of the cluster may call it", l.name, key, info.FullMethodName, strings.Join(allowed, " and "))
		}
	}
	declared := l.maxMsg
	if v := info.Header.Get(requestBytesHeader); len(v) == 1 {
		n, err := strconv.ParseInt(v[0], 10, 64)
		if err != nil || n < 0 {
			return nil, refuse(codes.InvalidArgument, "%s: header %s %q is not a size", l.name, requestBytesHeader, clip(v[0]))
		}
		if n > l.maxMsg {
			return nil, refuse(codes.ResourceExhausted, "%s: a request of %d bytes is larger than this server's largest message (%d bytes, a fifth of its memory budget: raise ServerMemoryBudget)", l.name, n, l.maxMsg)
		}
		declared = n
	}
	l.mu.Lock()
	if l.banned[key] {
		l.mu.Unlock()
		return nil, refuse(codes.PermissionDenied, "%s: %s sent a request larger than it declared and is refused", l.name, key)
	}
	if l.streams[key] >= maxPeerStreams {
		l.mu.Unlock()
		return nil, refuse(codes.ResourceExhausted, "%s: %s already has %d calls in flight", budgetRefusal, key, maxPeerStreams)
	}
	l.streams[key]++
	l.mu.Unlock()
	r := &reservation{l: l, peer: key, declared: declared}
	need := requestFactor*declared + callOverhead
	if !l.budget.take(need) {
		r.done = true
		l.mu.Lock()
		if l.streams[key]--; l.streams[key] <= 0 {
			delete(l.streams, key)
		}
		l.mu.Unlock()
		return nil, refuse(codes.ResourceExhausted, "%s of %s: %d bytes in use of %d, a request of %d bytes does not fit", budgetRefusal, l.name, l.budget.used.Load(), l.budget.limit, declared)
	}
	r.held, r.reqHeld = need, need
	return context.WithValue(ctx, reservationKey{}, r), nil
}

// TagRPC, HandleRPC, TagConn and HandleConn make the limiter a
// stats.Handler: a call's End releases its reservation.
func (l *limiter) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (l *limiter) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if _, ok := s.(*stats.End); ok {
		if r, ok := ctx.Value(reservationKey{}).(*reservation); ok {
			r.release()
		}
	}
}
func (l *limiter) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (l *limiter) HandleConn(context.Context, stats.ConnStats)                       {}

// check, once gRPC decoded a request, refuses (and bans) a peer whose
// request is larger than it declared.
func (l *limiter) check(ctx context.Context, req any) error {
	r, ok := ctx.Value(reservationKey{}).(*reservation)
	if !ok {
		return nil
	}
	m, ok := req.(proto.Message)
	if !ok {
		return nil
	}
	if n := int64(proto.Size(m)); n > r.declared {
		l.lied.Add(1)
		l.mu.Lock()
		l.banned[r.peer] = true
		l.mu.Unlock()
		return refuse(codes.ResourceExhausted, "%s: %s declared a request of %d bytes and sent %d: refused from now on", l.name, r.peer, r.declared, n)
	}
	return nil
}

// reserveAnswer reserves, for the call of ctx, the memory of an answer
// holding vars' values; an answer larger than a message, or than the
// budget holds now, is refused with ResourceExhausted.
func (p *psServer) reserveAnswer(ctx context.Context, vars []*ops.Variable, what string) error {
	var n int64
	for _, v := range vars {
		n += 4*int64(v.Shape().Size()) + 16
	}
	if n > psrpc.MaxMessageBytes {
		return p.errorf(codes.ResourceExhausted, "%s: the answer would be %d bytes, more than a message holds (%d): ask for fewer variables at once", what, n, psrpc.MaxMessageBytes)
	}
	r, ok := ctx.Value(reservationKey{}).(*reservation)
	if !ok {
		return nil
	}
	if !r.add(answerFactor * n) {
		return p.errorf(codes.ResourceExhausted, "%s: %s: an answer of %d bytes does not fit (%d bytes in use of %d)", what, budgetRefusal, n, r.l.budget.used.Load(), r.l.budget.limit)
	}
	return nil
}

// declareSize is the client interceptor of the strategy's connections:
// it declares each request's size (the servers reserve memory for it
// before reading it) and retries calls the servers' budget refused, with
// backoff, until the call's deadline.
func declareSize(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if m, ok := req.(proto.Message); ok {
		ctx = metadata.AppendToOutgoingContext(ctx, requestBytesHeader, strconv.Itoa(proto.Size(m)))
	}
	wait := 5 * time.Millisecond
	for {
		err := invoker(ctx, method, req, reply, cc, opts...)
		st, _ := status.FromError(err)
		if err == nil || st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), budgetRefusal) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// The methods of each service and the task types that may call them
// under TLS: the workers read, push and assign; only the chief
// initialises the servers, sets their optimizer's state, finalizes them,
// shuts them down, and schedules on the workers.
var (
	psMethods = map[string][]string{
		"/gokeras.psrpc.ParameterServer/Init":              {"chief"},
		"/gokeras.psrpc.ParameterServer/Check":             {"chief", "worker"},
		"/gokeras.psrpc.ParameterServer/Pull":              {"chief", "worker"},
		"/gokeras.psrpc.ParameterServer/Push":              {"chief", "worker"},
		"/gokeras.psrpc.ParameterServer/Assign":            {"chief", "worker"},
		"/gokeras.psrpc.ParameterServer/GetOptimizerState": {"chief"},
		"/gokeras.psrpc.ParameterServer/SetOptimizerState": {"chief"},
		"/gokeras.psrpc.ParameterServer/Ping":              {"chief", "worker"},
		"/gokeras.psrpc.ParameterServer/Shutdown":          {"chief"},
		"/gokeras.psrpc.ParameterServer/FinalizeVariables": {"chief"},
	}
	workerMethods = map[string][]string{
		"/gokeras.psrpc.Worker/Run":      {"chief"},
		"/gokeras.psrpc.Worker/Ping":     {"chief"},
		"/gokeras.psrpc.Worker/Shutdown": {"chief"},
		"/gokeras.psrpc.Worker/Finished": {"chief"},
	}
)

// serverOptions are the gRPC options of a task's service: the limiter's
// admission, release and size check, and touch (which records the
// chief's calls for ChiefTimeout).
func (l *limiter) serverOptions(touch func(ctx context.Context, task string)) []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(int(l.maxMsg)), grpc.MaxSendMsgSize(psrpc.MaxMessageBytes),
		grpc.InTapHandle(l.tap),
		grpc.StatsHandler(l),
		grpc.MaxConcurrentStreams(maxPeerStreams),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := l.check(ctx, req); err != nil {
				return nil, err
			}
			_, task := l.peerOf(ctx)
			touch(ctx, task)
			if r, ok := ctx.Value(reservationKey{}).(*reservation); ok {
				defer r.releaseRequest()
			}
			return h(ctx, req)
		}),
	}
}
