//go:build !mpi

package mpi

// Available reports whether this build has the MPI binding.
func Available() bool { return false }

// Init returns ErrNotBuilt.
func Init() error { return ErrNotBuilt }

// Initialized reports false.
func Initialized() bool { return false }

// Finalize returns ErrNotBuilt.
func Finalize() error { return ErrNotBuilt }

// Rank returns 0.
func Rank() int { return 0 }

// Size returns 1.
func Size() int { return 1 }

// LocalRank returns 0 and 1.
func LocalRank() (rank, size int) { return 0, 1 }

// ThreadLevel returns "".
func ThreadLevel() string { return "" }

// AllreduceSum returns ErrNotBuilt.
func AllreduceSum([]float32) error { return ErrNotBuilt }

// Stream is a communicator of its own (see the mpi build).
type Stream int

// The streams.
const (
	World Stream = iota
	Overlap
)

// AllreduceSumOn returns ErrNotBuilt.
func AllreduceSumOn(Stream, []float32) error { return ErrNotBuilt }

// SendrecvOn returns ErrNotBuilt.
func SendrecvOn(Stream, []float32, int, []float32, int) error { return ErrNotBuilt }

// PostNotesOn returns ErrNotBuilt.
func PostNotesOn(Stream, int64) (*Notes, error) { return nil, ErrNotBuilt }

// AllreduceSumFloat64 returns ErrNotBuilt.
func AllreduceSumFloat64([]float64) error { return ErrNotBuilt }

// Bcast returns ErrNotBuilt.
func Bcast([]float32, int) error { return ErrNotBuilt }

// Allgather returns ErrNotBuilt.
func Allgather([]float32, []float32) error { return ErrNotBuilt }

// AllgatherInt64 returns ErrNotBuilt.
func AllgatherInt64([]int64, []int64) error { return ErrNotBuilt }

// Sendrecv returns ErrNotBuilt.
func Sendrecv([]float32, int, []float32, int) error { return ErrNotBuilt }

// Barrier returns ErrNotBuilt.
func Barrier() error { return ErrNotBuilt }

// Abort exits the process with code (there is no job to stop).
func Abort(code int) { exit(code) }

// Notes are not available without the mpi tag.
type Notes struct{}

// PostNotes returns ErrNotBuilt.
func PostNotes(int64) (*Notes, error) { return nil, ErrNotBuilt }

// Missing returns nil.
func (*Notes) Missing() []int { return nil }

// Wait returns ErrNotBuilt.
func (*Notes) Wait() error { return ErrNotBuilt }
