package distribute

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gokeras/gokeras/internal/psrpc"
)

// TensorValue is a float32 tensor that travels between the coordinator and
// a worker, as an argument of a scheduled function or a result.
type TensorValue struct {
	Shape []int
	Data  []float32
}

// registry holds the functions and per-worker datasets of a task, in
// registration order: their ids are that order, the same on every task.
type registry struct {
	mu       sync.Mutex
	changed  *sync.Cond
	funcs    []registered
	datasets []func() (any, error)
	built    map[int64]any // this worker's per-worker datasets
	// finished holds the functions the coordinator schedules no more (a
	// Fit that ended); finCh is closed, and replaced, when it grows.
	finished map[int64]bool
	finCh    chan struct{}
}

type registered struct {
	name string
	fn   func(args ...any) (any, error)
}

func (r *registry) init() {
	r.changed = sync.NewCond(&r.mu)
	r.built = map[int64]any{}
	r.finished = map[int64]bool{}
	r.finCh = make(chan struct{})
}

// markFinished records functions the coordinator schedules no more.
func (r *registry) markFinished(ids []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	grew := false
	for _, id := range ids {
		if !r.finished[id] {
			r.finished[id] = true
			grew = true
		}
	}
	if grew {
		close(r.finCh)
		r.finCh = make(chan struct{})
	}
}

// finishedState reports whether function id is finished, and a channel
// closed when more functions are.
func (r *registry) finishedState(id int64) (bool, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished[id], r.finCh
}

func (r *registry) addFunc(name string, fn func(args ...any) (any, error)) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.funcs = append(r.funcs, registered{name, fn})
	r.changed.Broadcast()
	return int64(len(r.funcs) - 1)
}

func (r *registry) addDataset(fn func() (any, error)) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.datasets = append(r.datasets, fn)
	r.changed.Broadcast()
	return int64(len(r.datasets) - 1)
}

// waitLocked waits, under r.mu, until ready() or ctx ends.
func (r *registry) waitLocked(ctx context.Context, ready func() bool) bool {
	if ready() {
		return true
	}
	stop := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.changed.Broadcast()
		r.mu.Unlock()
	})
	defer stop()
	for !ready() {
		if ctx.Err() != nil {
			return false
		}
		r.changed.Wait()
	}
	return true
}

// workerServer is the service of a "worker" task: it runs the functions
// the coordinator schedules, one at a time.
type workerServer struct {
	psrpc.UnimplementedWorkerServer
	s           *ParameterServerStrategy
	incarnation int64
	run         sync.Mutex
}

func newWorkerServer(s *ParameterServerStrategy) *workerServer {
	return &workerServer{s: s, incarnation: time.Now().UnixNano()}
}

func (w *workerServer) name() string { return fmt.Sprintf("worker:%d", w.s.taskID) }

func (w *workerServer) Run(ctx context.Context, req *psrpc.RunRequest) (*psrpc.RunResponse, error) {
	r := &w.s.reg
	if req.Function < 0 || req.Function > maxFunctionID {
		return nil, status.Errorf(codes.InvalidArgument, "%s: function id %d out of range [0, %d]", w.name(), req.Function, maxFunctionID)
	}
	if len(req.Args) > maxRunArgs {
		return nil, status.Errorf(codes.InvalidArgument, "%s: %d arguments (at most %d)", w.name(), len(req.Args), maxRunArgs)
	}
	// This task may still be building its model: wait (bounded) for the
	// function to be registered.
	wctx, cancel := context.WithTimeout(ctx, w.s.cfg.rpcTimeout)
	defer cancel()
	r.mu.Lock()
	ok := r.waitLocked(wctx, func() bool { return int64(len(r.funcs)) > req.Function })
	if !ok {
		n := len(r.funcs)
		r.mu.Unlock()
		return nil, status.Errorf(codes.FailedPrecondition, "%s: function %d (%q) was not registered within %v (it has %d): register the same functions in the same order on every task",
			w.name(), req.Function, clip(req.Name), w.s.cfg.rpcTimeout, n)
	}
	f := r.funcs[req.Function]
	r.mu.Unlock()
	if f.name != req.Name {
		return nil, status.Errorf(codes.FailedPrecondition, "%s: function %d is %q on the coordinator but %q here: register the same functions in the same order on every task",
			w.name(), req.Function, clip(req.Name), f.name)
	}
	args := make([]any, len(req.Args))
	for i, a := range req.Args {
		v, err := w.decodeArg(wctx, a)
		if err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "%s: %s: argument %d: %v", w.name(), f.name, i, err)
		}
		args[i] = v
	}
	w.run.Lock()
	defer w.run.Unlock()
	w.s.noteChiefWrites(req.Writes)
	res, err := callSafely(f.fn, args)
	if err != nil {
		resp := &psrpc.RunResponse{Error: err.Error()}
		if gone, ok := asPSGone(err); ok {
			resp.PsGone = gone.Error()
		}
		return resp, nil
	}
	resp := &psrpc.RunResponse{}
	items := []any{res}
	if list, ok := res.([]any); ok {
		items, resp.Multi = list, true
	}
	for i, it := range items {
		v, err := encodeValue(it)
		if err != nil {
			return &psrpc.RunResponse{Error: fmt.Sprintf("%s: result %d: %v", f.name, i, err)}, nil
		}
		resp.Results = append(resp.Results, v)
	}
	return resp, nil
}

// callSafely runs fn, turning a panic into an error.
func callSafely(fn func(args ...any) (any, error), args []any) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(args...)
}

func asPSGone(err error) (*psGone, bool) {
	for err != nil {
		if g, ok := err.(*psGone); ok {
			return g, true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if g, ok := asPSGone(e); ok {
					return g, true
				}
			}
			return nil, false
		default:
			return nil, false
		}
	}
	return nil, false
}

// decodeArg turns a wire value into a function argument; a per-worker
// dataset becomes this worker's own, built on first use.
func (w *workerServer) decodeArg(ctx context.Context, a *psrpc.Value) (any, error) {
	if ds, ok := a.Kind.(*psrpc.Value_Dataset); ok {
		r := &w.s.reg
		if ds.Dataset < 0 || ds.Dataset > maxFunctionID {
			return nil, fmt.Errorf("per-worker dataset id %d out of range [0, %d]", ds.Dataset, maxFunctionID)
		}
		r.mu.Lock()
		ok := r.waitLocked(ctx, func() bool { return int64(len(r.datasets)) > ds.Dataset })
		if !ok {
			r.mu.Unlock()
			return nil, fmt.Errorf("per-worker dataset %d was not created here (CreatePerWorkerDataset must run on every task, in the same order)", ds.Dataset)
		}
		if v, ok := r.built[ds.Dataset]; ok {
			r.mu.Unlock()
			return v, nil
		}
		fn := r.datasets[ds.Dataset]
		r.mu.Unlock()
		v, err := fn()
		if err != nil {
			return nil, fmt.Errorf("per-worker dataset %d: %w", ds.Dataset, err)
		}
		r.mu.Lock()
		r.built[ds.Dataset] = v
		r.mu.Unlock()
		return v, nil
	}
	return decodeValue(a)
}

func (w *workerServer) Ping(context.Context, *psrpc.Empty) (*psrpc.WorkerStatus, error) {
	w.s.reg.mu.Lock()
	n := len(w.s.reg.funcs)
	w.s.reg.mu.Unlock()
	return &psrpc.WorkerStatus{Task: int32(w.s.taskID), Functions: int64(n), Incarnation: w.incarnation}, nil
}

func (w *workerServer) Shutdown(context.Context, *psrpc.Empty) (*psrpc.Empty, error) {
	go w.s.shutdownLocal()
	return &psrpc.Empty{}, nil
}

// Finished records the functions the coordinator will schedule no more:
// a Fit serving one of them returns.
func (w *workerServer) Finished(_ context.Context, req *psrpc.FinishedRequest) (*psrpc.Empty, error) {
	if len(req.Functions) > maxFunctionID {
		return nil, status.Errorf(codes.InvalidArgument, "%s: %d finished functions (at most %d)", w.name(), len(req.Functions), maxFunctionID)
	}
	for _, id := range req.Functions {
		if id < 0 || id > maxFunctionID {
			return nil, status.Errorf(codes.InvalidArgument, "%s: finished function id %d out of range [0, %d]", w.name(), id, maxFunctionID)
		}
	}
	w.s.reg.markFinished(req.Functions)
	return &psrpc.Empty{}, nil
}

// maxFunctionID bounds the ids of registered functions and per-worker
// datasets a worker accepts (they are registration orders), and
// maxRunArgs the arguments of one scheduled call.
const (
	maxFunctionID = 1 << 16
	maxRunArgs    = 1 << 12
)

// maxValueElements bounds a decoded tensor argument or result.
const maxValueElements = psrpc.MaxMessageBytes / 4

// encodeValue turns an argument or result into its wire form: nil,
// numbers (which arrive as float64), strings, []float32 and *TensorValue
// (or TensorValue), and per-worker iterators.
func encodeValue(x any) (*psrpc.Value, error) {
	switch v := x.(type) {
	case nil:
		return &psrpc.Value{}, nil
	case float64:
		return &psrpc.Value{Kind: &psrpc.Value_Scalar{Scalar: v}}, nil
	case float32:
		return &psrpc.Value{Kind: &psrpc.Value_Scalar{Scalar: float64(v)}}, nil
	case int:
		return &psrpc.Value{Kind: &psrpc.Value_Scalar{Scalar: float64(v)}}, nil
	case int64:
		return &psrpc.Value{Kind: &psrpc.Value_Scalar{Scalar: float64(v)}}, nil
	case string:
		return &psrpc.Value{Kind: &psrpc.Value_Text{Text: v}}, nil
	case []float32:
		return &psrpc.Value{Kind: &psrpc.Value_Tensor{Tensor: &psrpc.Tensor{Shape: []int64{int64(len(v))}, Data: psrpc.EncodeFloat32s(v)}}}, nil
	case TensorValue:
		return encodeValue(&v)
	case *TensorValue:
		n := 1
		shape := make([]int64, len(v.Shape))
		for i, d := range v.Shape {
			if d < 0 {
				return nil, fmt.Errorf("tensor shape %v has a negative dimension", v.Shape)
			}
			n *= d
			shape[i] = int64(d)
		}
		if n != len(v.Data) {
			return nil, fmt.Errorf("tensor of shape %v with %d values", v.Shape, len(v.Data))
		}
		return &psrpc.Value{Kind: &psrpc.Value_Tensor{Tensor: &psrpc.Tensor{Shape: shape, Data: psrpc.EncodeFloat32s(v.Data)}}}, nil
	case *PerWorkerIterator:
		return &psrpc.Value{Kind: &psrpc.Value_Dataset{Dataset: v.id}}, nil
	}
	return nil, fmt.Errorf("a %T cannot travel between tasks (numbers, strings, []float32, TensorValue, per-worker iterators, or a []any of them as results)", x)
}

// decodeValue is encodeValue's inverse: scalars become float64, tensors
// *TensorValue. Shapes that do not match their data are errors.
func decodeValue(v *psrpc.Value) (any, error) {
	switch k := v.Kind.(type) {
	case nil:
		return nil, nil
	case *psrpc.Value_Scalar:
		return k.Scalar, nil
	case *psrpc.Value_Text:
		return k.Text, nil
	case *psrpc.Value_Tensor:
		if k.Tensor == nil {
			return nil, fmt.Errorf("empty tensor")
		}
		n, err := psrpc.ShapeSize(k.Tensor.Shape, maxValueElements, "tensor")
		if err != nil {
			return nil, err
		}
		if len(k.Tensor.Data) != 4*n {
			return nil, fmt.Errorf("tensor of shape %v with %d bytes (want %d)", k.Tensor.Shape, len(k.Tensor.Data), 4*n)
		}
		t := &TensorValue{Shape: make([]int, len(k.Tensor.Shape)), Data: make([]float32, n)}
		for i, d := range k.Tensor.Shape {
			if d > math.MaxInt32 {
				return nil, fmt.Errorf("tensor dimension %d too large", d)
			}
			t.Shape[i] = int(d)
		}
		if err := psrpc.DecodeFloat32sInto(t.Data, k.Tensor.Data, "tensor"); err != nil {
			return nil, err
		}
		return t, nil
	case *psrpc.Value_Dataset:
		return nil, fmt.Errorf("a per-worker iterator is only an argument")
	}
	return nil, fmt.Errorf("unknown value kind %T", v.Kind)
}
