package cudnn

import (
	"errors"
	"strconv"
)

// ErrNotAvailable is returned by builds without the cuda tag.
var ErrNotAvailable = errors.New("cudnn: not built (build with -tags cuda)")

// ErrUnsupported is wrapped by errors for settings the binding does not
// map onto cuDNN (the caller falls back to another kernel).
var ErrUnsupported = errors.New("cudnn: unsupported")

// ErrNoAlgorithm is wrapped by the error of a plan for which cuDNN offers
// no algorithm within the plan's rules (exact FP32 math without TF32,
// deterministic gradients, the workspace limit): the caller runs the op
// on another kernel (the executor, on the CPU).
var ErrNoAlgorithm = errors.New("cudnn: no algorithm fits")

// Error is a failed cuDNN call.
type Error struct {
	Call   string // the cuDNN function
	Status Status // its return code
	Msg    string // cudnnGetErrorString, and the library's last message if any
	Detail string // the plan and shapes
}

func (e *Error) Error() string {
	s := "cudnn: " + e.Call
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	s += ": "
	if e.Msg != "" {
		s += e.Msg + " "
	}
	return s + "[status " + strconv.Itoa(int(e.Status)) + "]"
}
