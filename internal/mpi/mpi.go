//go:build mpi

package mpi

/*
#cgo pkg-config: ompi
#include <stdlib.h>
#include <stdint.h>
#include <mpi.h>

static MPI_Comm gk_world = MPI_COMM_NULL; // collectives
static MPI_Comm gk_notes = MPI_COMM_NULL; // arrival notes, apart from the collectives
static MPI_Comm gk_local = MPI_COMM_NULL; // the processes of this machine
static MPI_Comm gk_overlap = MPI_COMM_NULL; // all-reduces overlapped with the backward pass

static MPI_Comm gk_comm(int stream) { return stream == 1 ? gk_overlap : gk_world; }

static int gk_init(int *provided) {
	int done = 0;
	MPI_Initialized(&done);
	if (!done) {
		int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, provided);
		if (rc != MPI_SUCCESS) return rc;
	} else {
		MPI_Query_thread(provided);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int rc = MPI_Comm_dup(MPI_COMM_WORLD, &gk_world);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Comm_dup(MPI_COMM_WORLD, &gk_notes);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Comm_dup(MPI_COMM_WORLD, &gk_overlap);
	if (rc != MPI_SUCCESS) return rc;
	int rank = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	return MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &gk_local);
}

static int gk_finalize(void) {
	if (gk_local != MPI_COMM_NULL) MPI_Comm_free(&gk_local);
	if (gk_notes != MPI_COMM_NULL) MPI_Comm_free(&gk_notes);
	if (gk_overlap != MPI_COMM_NULL) MPI_Comm_free(&gk_overlap);
	if (gk_world != MPI_COMM_NULL) MPI_Comm_free(&gk_world);
	return MPI_Finalize();
}

static int gk_finalized(void) { int f = 0; MPI_Finalized(&f); return f; }
static int gk_rank(void) { int r = 0; MPI_Comm_rank(gk_world, &r); return r; }
static int gk_size(void) { int s = 1; MPI_Comm_size(gk_world, &s); return s; }
static int gk_local_rank(void) { int r = 0; MPI_Comm_rank(gk_local, &r); return r; }
static int gk_local_size(void) { int s = 1; MPI_Comm_size(gk_local, &s); return s; }

static int gk_allreduce_f32(float *buf, int n, int stream) {
	return MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, gk_comm(stream));
}
static int gk_allreduce_f64(double *buf, int n) {
	return MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, gk_world);
}
static int gk_bcast_f32(float *buf, int n, int root) {
	return MPI_Bcast(buf, n, MPI_FLOAT, root, gk_world);
}
static int gk_allgather_f32(float *send, int n, float *recv) {
	return MPI_Allgather(send, n, MPI_FLOAT, recv, n, MPI_FLOAT, gk_world);
}
static int gk_allgather_i64(int64_t *send, int n, int64_t *recv) {
	return MPI_Allgather(send, n, MPI_INT64_T, recv, n, MPI_INT64_T, gk_world);
}
static int gk_sendrecv_f32(float *send, int ns, int dest, float *recv, int nr, int src, int stream) {
	return MPI_Sendrecv(send, ns, MPI_FLOAT, dest, 7, recv, nr, MPI_FLOAT, src, 7, gk_comm(stream), MPI_STATUS_IGNORE);
}
static int gk_barrier(void) { return MPI_Barrier(gk_world); }
static void gk_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

static void gk_error_string(int code, char *out, int cap) {
	int n = 0;
	out[0] = 0;
	if (MPI_Error_string(code, out, &n) == MPI_SUCCESS && n < cap) out[n] = 0;
}

// Notes: every process sends its sequence number to every other and
// posts a receive from every other; a receive still open after a timeout
// names a process that has not reached the collective.
typedef struct {
	int n;
	int64_t seq;
	int64_t *in;
	MPI_Request *req; // n receives, then n sends (MPI_REQUEST_NULL for self)
} gk_notes_t;

static gk_notes_t *gk_post_notes(int64_t seq, int tag, int *rc) {
	int n = gk_size(), me = gk_rank();
	gk_notes_t *t = calloc(1, sizeof(gk_notes_t));
	t->n = n;
	t->seq = seq;
	t->in = calloc(n, sizeof(int64_t));
	t->req = malloc(2 * n * sizeof(MPI_Request));
	*rc = MPI_SUCCESS;
	for (int i = 0; i < 2 * n; i++) t->req[i] = MPI_REQUEST_NULL;
	for (int r = 0; r < n && *rc == MPI_SUCCESS; r++) {
		if (r == me) continue;
		*rc = MPI_Irecv(&t->in[r], 1, MPI_INT64_T, r, tag, gk_notes, &t->req[r]);
		if (*rc == MPI_SUCCESS)
			*rc = MPI_Isend(&t->seq, 1, MPI_INT64_T, r, tag, gk_notes, &t->req[n + r]);
	}
	return t;
}

// gk_test_note reports whether the note from rank r arrived.
static int gk_test_note(gk_notes_t *t, int r) {
	if (t->req[r] == MPI_REQUEST_NULL) return 1;
	int flag = 0;
	MPI_Test(&t->req[r], &flag, MPI_STATUS_IGNORE);
	return flag;
}

static int gk_wait_notes(gk_notes_t *t) {
	int rc = MPI_Waitall(2 * t->n, t->req, MPI_STATUSES_IGNORE);
	free(t->in);
	free(t->req);
	free(t);
	return rc;
}
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

var (
	initMu   sync.Mutex
	inited   atomic.Bool
	provided C.int
)

// Available reports whether this build has the MPI binding.
func Available() bool { return true }

// Init initialises MPI (MPI_Init_thread asking for MPI_THREAD_MULTIPLE),
// once; later calls do nothing. It makes the communicators the package
// uses (duplicates of MPI_COMM_WORLD, and the processes sharing this
// machine) and makes errors return instead of aborting.
func Init() error {
	initMu.Lock()
	defer initMu.Unlock()
	if inited.Load() {
		return nil
	}
	if C.gk_finalized() != 0 {
		return fmt.Errorf("mpi: Init after Finalize")
	}
	if rc := C.gk_init(&provided); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Init_thread", rc)
	}
	if provided < C.MPI_THREAD_SERIALIZED {
		return fmt.Errorf("mpi: the MPI library provides thread level %s; Go needs MPI_THREAD_SERIALIZED at least (goroutines move between threads)", ThreadLevel())
	}
	inited.Store(true)
	return nil
}

// Initialized reports whether Init succeeded and Finalize was not called.
func Initialized() bool { return inited.Load() }

// ThreadLevel names the thread support MPI provides.
func ThreadLevel() string {
	switch provided {
	case C.MPI_THREAD_SINGLE:
		return "MPI_THREAD_SINGLE"
	case C.MPI_THREAD_FUNNELED:
		return "MPI_THREAD_FUNNELED"
	case C.MPI_THREAD_SERIALIZED:
		return "MPI_THREAD_SERIALIZED"
	case C.MPI_THREAD_MULTIPLE:
		return "MPI_THREAD_MULTIPLE"
	}
	return fmt.Sprint("level ", int(provided))
}

// Finalize shuts MPI down; no MPI call may follow.
func Finalize() error {
	initMu.Lock()
	defer initMu.Unlock()
	if !inited.Load() {
		return nil
	}
	inited.Store(false)
	if rc := C.gk_finalize(); rc != C.MPI_SUCCESS {
		return mpiError("MPI_Finalize", rc)
	}
	return nil
}

func check() error {
	if !Initialized() {
		return fmt.Errorf("mpi: not initialised (call mpi.Init)")
	}
	return nil
}

// Rank is this process's rank in MPI_COMM_WORLD (0 before Init).
func Rank() int {
	if !Initialized() {
		return 0
	}
	return int(C.gk_rank())
}

// Size is the number of processes in MPI_COMM_WORLD (1 before Init).
func Size() int {
	if !Initialized() {
		return 1
	}
	return int(C.gk_size())
}

// LocalRank returns this process's rank among the processes of its
// machine, and their number (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED).
func LocalRank() (rank, size int) {
	if !Initialized() {
		return 0, 1
	}
	return int(C.gk_local_rank()), int(C.gk_local_size())
}

// maxCount is the largest element count one MPI call takes (an int).
const maxCount = 1<<31 - 1

func count(what string, n int) (C.int, error) {
	if n > maxCount {
		return 0, fmt.Errorf("mpi: %s of %d elements: more than MPI's int count", what, n)
	}
	return C.int(n), nil
}

// Stream is a communicator of its own for one sequence of collectives:
// collectives on different streams may run at the same time from
// different goroutines (MPI_THREAD_MULTIPLE), each stream's in the same
// order on every process.
type Stream int

// The streams: World carries every collective of the package-level
// functions; Overlap the gradient all-reduces a communication goroutine
// runs while the backward pass goes on.
const (
	World Stream = iota
	Overlap
)

// AllreduceSum replaces buf on every process by the elementwise sum of
// all processes' bufs (MPI_Allreduce, MPI_IN_PLACE, MPI_SUM). Every
// process passes the same length.
func AllreduceSum(buf []float32) error { return AllreduceSumOn(World, buf) }

// AllreduceSumOn is AllreduceSum on stream s.
func AllreduceSumOn(s Stream, buf []float32) error {
	if err := check(); err != nil || len(buf) == 0 {
		return err
	}
	n, err := count("AllreduceSum", len(buf))
	if err != nil {
		return err
	}
	return mpiError("MPI_Allreduce", C.gk_allreduce_f32((*C.float)(unsafe.Pointer(&buf[0])), n, C.int(s)))
}

// AllreduceSumFloat64 is AllreduceSum on float64 values.
func AllreduceSumFloat64(buf []float64) error {
	if err := check(); err != nil || len(buf) == 0 {
		return err
	}
	n, err := count("AllreduceSumFloat64", len(buf))
	if err != nil {
		return err
	}
	return mpiError("MPI_Allreduce", C.gk_allreduce_f64((*C.double)(unsafe.Pointer(&buf[0])), n))
}

// Bcast copies root's buf into every other process's buf.
func Bcast(buf []float32, root int) error {
	if err := check(); err != nil || len(buf) == 0 {
		return err
	}
	if root < 0 || root >= Size() {
		return fmt.Errorf("mpi: Bcast from rank %d of %d", root, Size())
	}
	n, err := count("Bcast", len(buf))
	if err != nil {
		return err
	}
	return mpiError("MPI_Bcast", C.gk_bcast_f32((*C.float)(unsafe.Pointer(&buf[0])), n, C.int(root)))
}

// Allgather concatenates every process's send (equal lengths) into recv,
// in rank order; recv has Size()*len(send) values.
func Allgather(send, recv []float32) error {
	if err := check(); err != nil {
		return err
	}
	if len(recv) != Size()*len(send) {
		return fmt.Errorf("mpi: Allgather of %d values from %d processes into %d", len(send), Size(), len(recv))
	}
	if len(send) == 0 {
		return nil
	}
	if _, err := count("Allgather", len(recv)); err != nil {
		return err
	}
	return mpiError("MPI_Allgather", C.gk_allgather_f32((*C.float)(unsafe.Pointer(&send[0])), C.int(len(send)), (*C.float)(unsafe.Pointer(&recv[0]))))
}

// AllgatherInt64 is Allgather on int64 values.
func AllgatherInt64(send, recv []int64) error {
	if err := check(); err != nil {
		return err
	}
	if len(recv) != Size()*len(send) {
		return fmt.Errorf("mpi: AllgatherInt64 of %d values from %d processes into %d", len(send), Size(), len(recv))
	}
	if len(send) == 0 {
		return nil
	}
	if _, err := count("AllgatherInt64", len(recv)); err != nil {
		return err
	}
	return mpiError("MPI_Allgather", C.gk_allgather_i64((*C.int64_t)(unsafe.Pointer(&send[0])), C.int(len(send)), (*C.int64_t)(unsafe.Pointer(&recv[0]))))
}

// Sendrecv sends send to rank dest and receives recv from rank src in one
// call (MPI_Sendrecv), the step of a ring.
func Sendrecv(send []float32, dest int, recv []float32, src int) error {
	return SendrecvOn(World, send, dest, recv, src)
}

// SendrecvOn is Sendrecv on stream s.
func SendrecvOn(s Stream, send []float32, dest int, recv []float32, src int) error {
	if err := check(); err != nil {
		return err
	}
	size := Size()
	if dest < 0 || dest >= size || src < 0 || src >= size {
		return fmt.Errorf("mpi: Sendrecv to %d from %d among %d processes", dest, src, size)
	}
	ns, err := count("Sendrecv", len(send))
	if err != nil {
		return err
	}
	nr, err := count("Sendrecv", len(recv))
	if err != nil {
		return err
	}
	var sp, rp *C.float
	if len(send) > 0 {
		sp = (*C.float)(unsafe.Pointer(&send[0]))
	}
	if len(recv) > 0 {
		rp = (*C.float)(unsafe.Pointer(&recv[0]))
	}
	return mpiError("MPI_Sendrecv", C.gk_sendrecv_f32(sp, ns, C.int(dest), rp, nr, C.int(src), C.int(s)))
}

// Barrier returns once every process has called it.
func Barrier() error {
	if err := check(); err != nil {
		return err
	}
	return mpiError("MPI_Barrier", C.gk_barrier())
}

// Abort stops every process of the job (MPI_Abort on MPI_COMM_WORLD) with
// the exit code; without MPI it exits this process.
func Abort(code int) {
	if !Initialized() {
		exit(code)
	}
	C.gk_abort(C.int(code))
	exit(code)
}

// Notes are the arrival notes of one collective: before entering it,
// every process tells every other its sequence number. After a timeout,
// [Notes.Missing] names the processes whose note has not arrived: they
// never reached the collective.
type Notes struct {
	mu   sync.Mutex
	t    *C.gk_notes_t
	size int
	rank int
}

// PostNotes sends this process's note for collective seq to every other
// process and posts the receives of theirs (non-blocking, on a
// communicator of their own). Every process must call [Notes.Wait] once
// the collective is done.
func PostNotes(seq int64) (*Notes, error) { return PostNotesOn(World, seq) }

// PostNotesOn posts the notes of collective seq of stream s (each stream
// numbers its collectives; their notes travel apart).
func PostNotesOn(s Stream, seq int64) (*Notes, error) {
	if err := check(); err != nil {
		return nil, err
	}
	var rc C.int
	t := C.gk_post_notes(C.int64_t(seq), C.int(11+s), &rc)
	n := &Notes{t: t, size: Size(), rank: Rank()}
	if rc != C.MPI_SUCCESS {
		_ = n.Wait()
		return nil, mpiError("MPI_Isend/MPI_Irecv (notes)", rc)
	}
	return n, nil
}

// Missing returns the ranks whose note has not arrived (nil after Wait).
func (n *Notes) Missing() []int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.t == nil {
		return nil
	}
	var out []int
	for r := 0; r < n.size; r++ {
		if r != n.rank && C.gk_test_note(n.t, C.int(r)) == 0 {
			out = append(out, r)
		}
	}
	return out
}

// Wait completes the notes' sends and receives and frees them.
func (n *Notes) Wait() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.t == nil {
		return nil
	}
	rc := C.gk_wait_notes(n.t)
	n.t = nil
	return mpiError("MPI_Waitall (notes)", rc)
}

func mpiError(call string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	buf := (*C.char)(C.malloc(C.MPI_MAX_ERROR_STRING + 1))
	defer C.free(unsafe.Pointer(buf))
	C.gk_error_string(rc, buf, C.MPI_MAX_ERROR_STRING+1)
	return fmt.Errorf("mpi: %s failed on rank %d: %s (code %d)", call, Rank(), C.GoString(buf), int(rc))
}
