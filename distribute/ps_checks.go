package distribute

import (
	"fmt"
	"math"

	"google.golang.org/grpc/codes"

	"github.com/gokeras/gokeras/internal/psrpc"
)

// Bounds on what one peer may ask of a parameter server: a variable's id
// is its position in the sequence of Track calls, so ids beyond
// maxServerVars mean a corrupt or hostile request, as do names longer than
// maxVarNameBytes and shapes of more than maxVarRank dimensions.
const (
	maxServerVars   = 1 << 20
	maxVarNameBytes = 1 << 10
	maxVarRank      = 32
	// maxIterations bounds an optimizer step count a peer may set
	// (Keras keeps it in an int64; a float32 counts exactly to 2^24).
	maxIterations = 1 << 40
)

// checkIDs refuses ids out of [0, maxServerVars) and ids given twice (a
// Pull of one variable named 1024 times asks the server for 1024 copies).
func (p *psServer) checkIDs(ids []int64, what string) error {
	if len(ids) > maxServerVars {
		return p.errorf(codes.InvalidArgument, "%s: %d variables (at most %d)", what, len(ids), maxServerVars)
	}
	seen := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		if id < 0 || id >= maxServerVars {
			return p.errorf(codes.InvalidArgument, "%s: variable id %d out of range [0, %d)", what, id, maxServerVars)
		}
		if _, dup := seen[id]; dup {
			return p.errorf(codes.InvalidArgument, "%s: variable %d given twice", what, id)
		}
		seen[id] = struct{}{}
	}
	return nil
}

// checkSpec refuses a VarSpec whose id, name or rank is out of bounds.
func (p *psServer) checkSpec(vs *psrpc.VarSpec, what string) error {
	if vs == nil {
		return p.errorf(codes.InvalidArgument, "%s: empty variable", what)
	}
	if vs.Id < 0 || vs.Id >= maxServerVars {
		return p.errorf(codes.InvalidArgument, "%s: variable id %d out of range [0, %d)", what, vs.Id, maxServerVars)
	}
	if len(vs.Name) > maxVarNameBytes {
		return p.errorf(codes.InvalidArgument, "%s: variable %d's name is %d bytes (at most %d)", what, vs.Id, len(vs.Name), maxVarNameBytes)
	}
	if len(vs.Shape) > maxVarRank {
		return p.errorf(codes.InvalidArgument, "%s: variable %d (%q) has %d dimensions (at most %d)", what, vs.Id, clip(vs.Name), len(vs.Shape), maxVarRank)
	}
	return nil
}

// firstNonFinite returns the index of the first NaN or Inf of x (an
// exponent of all ones), or -1.
func firstNonFinite(x []float32) int {
	const exp = 0x7f800000
	for i, v := range x {
		if math.Float32bits(v)&exp == exp {
			return i
		}
	}
	return -1
}

// refuseNonFinite returns an error, and counts it, when x holds a NaN or
// an Inf: no peer writes one into the servers' variables (a NaN assigned
// into a live job made every later loss NaN).
func (p *psServer) refuseNonFinite(x []float32, what, name string) error {
	i := firstNonFinite(x)
	if i < 0 {
		return nil
	}
	p.nonFinite.Add(1)
	return p.errorf(codes.InvalidArgument, "%s of %q: element %d is %v: the servers take no NaN or Inf (a diverged step; lower the learning rate, or clip the gradients)", what, clip(name), i, x[i])
}

// NonFiniteRefused returns how many writes (initial values, assignments,
// gradients, or updates whose result was not finite) this "ps" task
// refused because they held a NaN or an Inf; 0 on other tasks.
func (s *ParameterServerStrategy) NonFiniteRefused() int64 {
	if s.psServer == nil {
		return 0
	}
	return s.psServer.nonFinite.Load()
}

// maxLearningRate bounds a constant learning rate the servers take from a
// peer's optimizer config (SGD at 1e38 turned every variable into -Inf).
const maxLearningRate = 1e6

// checkLearningRate refuses an optimizer config whose constant learning
// rate is not a finite number in [0, maxLearningRate].
func checkLearningRate(m map[string]any) error {
	cfg, _ := m["config"].(map[string]any)
	lr, ok := cfg["learning_rate"].(float64)
	if !ok {
		return nil
	}
	if math.IsNaN(lr) || lr < 0 || lr > maxLearningRate {
		return fmt.Errorf("learning rate %v out of range [0, %g]", lr, float64(maxLearningRate))
	}
	return nil
}

// checkPSAddresses checks every address of a parameter-server cluster
// (whatever resolver made the spec) as TF_CONFIG's are checked.
func checkPSAddresses(spec ClusterSpec) error {
	for _, job := range spec.Jobs() {
		for i, a := range spec[job] {
			if err := checkAddress(a); err != nil {
				return fmt.Errorf("cluster %s[%d]: %w", job, i, err)
			}
		}
	}
	return nil
}
