package distribute

import (
	"fmt"
	"strings"
	"time"
	"unsafe"
)

// CommunicationImplementation picks the cross-worker all-reduce, as
// tf.distribute.experimental.CommunicationImplementation.
type CommunicationImplementation int

// The implementations. AUTO lets the runtime choose (MPI_Allreduce, whose
// algorithm OpenMPI picks by message size); RING is our ring all-reduce
// over MPI point-to-point messages; NCCL needs GPUs (the cuda build).
const (
	AUTO CommunicationImplementation = iota
	RING
	NCCL
)

func (c CommunicationImplementation) String() string {
	switch c {
	case AUTO:
		return "AUTO"
	case RING:
		return "RING"
	case NCCL:
		return "NCCL"
	}
	return fmt.Sprintf("CommunicationImplementation(%d)", int(c))
}

// CommunicationOptions are tf.distribute.experimental.CommunicationOptions.
// The zero value works: AUTO, 4 MiB packs, a 5 minute timeout.
type CommunicationOptions struct {
	Implementation CommunicationImplementation
	// BytesPerPack fuses the small gradients of one all-reduce into packs
	// of at most this many bytes, one collective call per pack (0: 4 MiB).
	// Gradients of 64 KiB or more are reduced in place, one call each.
	// MultiWorkerMirroredStrategy also sizes the buckets of the
	// optimizer's gradients by it: consecutive gradients of at most this
	// many bytes, each all-reduced as soon as the backward pass has
	// computed it (see NoOverlap); smaller buckets start earlier, larger
	// ones cost fewer calls.
	BytesPerPack int
	// NoOverlap all-reduces the optimizer's gradients after the backward
	// pass. By default (false) MultiWorkerMirroredStrategy sums them in
	// buckets of BytesPerPack bytes as soon as the backward pass has
	// produced each bucket, on a communication goroutine, while the rest
	// of the backward pass runs (as PyTorch DDP). Both reduce the same
	// buckets in the same order, so the sums are bitwise equal; NoOverlap
	// is there to measure what overlap gains.
	NoOverlap bool
	// Timeout bounds every cross-worker collective (0: 5 minutes). When it
	// passes, the strategy prints which ranks never arrived and aborts
	// the whole job (MPI_Abort), so no worker hangs.
	Timeout time.Duration
}

const (
	defaultBytesPerPack = 4 << 20
	defaultTimeout      = 5 * time.Minute
)

func (o CommunicationOptions) withDefaults() (CommunicationOptions, error) {
	if o.BytesPerPack < 0 {
		return o, fmt.Errorf("distribute: CommunicationOptions.BytesPerPack %d is negative", o.BytesPerPack)
	}
	if o.Timeout < 0 {
		return o, fmt.Errorf("distribute: CommunicationOptions.Timeout %v is negative", o.Timeout)
	}
	if o.BytesPerPack == 0 {
		o.BytesPerPack = defaultBytesPerPack
	}
	if o.Timeout == 0 {
		o.Timeout = defaultTimeout
	}
	switch o.Implementation {
	case AUTO, RING:
	case NCCL:
		return o, fmt.Errorf("distribute: CommunicationOptions: NCCL needs GPUs, which this build has none of (the cuda build tag); use AUTO or RING")
	default:
		return o, fmt.Errorf("distribute: CommunicationOptions: unknown implementation %v", o.Implementation)
	}
	return o, nil
}

// collective is the data plane between worker processes, one
// implementation per engine as Horovod's collective operations: in
// process for a single worker (collective_local.go), MPI
// (collective_mpi.go). Every worker calls the same collectives in the
// same order with buffers of the same sizes. Replicas inside a process
// meet first in the in-process allReducer (allreduce.go); one of them
// then calls the collective for the whole process.
type collective interface {
	rank() int
	size() int
	// allReduceSum replaces every buffer by its elementwise sum over the
	// workers; every worker gets bitwise the same result.
	allReduceSum(bufs [][]float32) error
	// broadcast copies the root's buffers to every worker.
	broadcast(bufs [][]float32, root int) error
	// allGatherInt64 concatenates every worker's values in rank order.
	allGatherInt64(send []int64) ([]int64, error)
	// allGather concatenates every worker's values (equal lengths).
	allGather(send []float32) ([]float32, error)
	barrier() error
	close() error
}

// inPlaceBytes is the size from which a buffer is reduced in place, by a
// call of its own, instead of being copied into a pack: copying it in and
// out costs as much as moving it between processes of one machine, while
// the latency a pack saves is only worth it for small buffers.
const inPlaceBytes = 64 << 10

// packs groups buffers into packs of at most bytesPerPack bytes, keeping
// their order; a buffer of inPlaceBytes or more (or larger than a pack)
// is a pack of its own.
func packs(bufs [][]float32, bytesPerPack int) [][]int {
	var out [][]int
	var cur []int
	size := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
			cur, size = nil, 0
		}
	}
	for i, b := range bufs {
		n := 4 * len(b)
		if n >= min(inPlaceBytes, bytesPerPack) {
			flush()
			out = append(out, []int{i})
			continue
		}
		if size+n > bytesPerPack {
			flush()
		}
		cur = append(cur, i)
		size += n
	}
	flush()
	return out
}

// runs merges consecutive buffers that lie back to back in one backing
// array (the optimizer keeps its gradients in one slab) into single
// views, so that they cost one collective call and no copy. Buffers from
// separate allocations are never merged.
func runs(bufs [][]float32) [][]float32 {
	out := make([][]float32, 0, len(bufs))
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		if k := len(out) - 1; k >= 0 {
			last := out[k]
			// Addresses compared as integers (a pointer one past an
			// allocation's end is not valid); the merge itself reslices
			// last within its capacity.
			end := uintptr(unsafe.Pointer(unsafe.SliceData(last))) + 4*uintptr(len(last))
			if uintptr(unsafe.Pointer(unsafe.SliceData(b))) == end && cap(last) >= len(last)+len(b) {
				out[k] = last[:len(last)+len(b)]
				continue
			}
		}
		out = append(out, b)
	}
	return out
}

// packed runs fn on every buffer of bufs once: contiguous runs of
// buffers (see runs) and buffers of inPlaceBytes or more in place, the
// others fused into packs of up to bytesPerPack bytes copied through
// scratch (grown as needed; the result copied back when back is set).
func packed(bufs [][]float32, bytesPerPack int, scratch *[]float32, back bool, fn func([]float32) error) error {
	bufs = runs(bufs)
	for _, p := range packs(bufs, bytesPerPack) {
		if len(p) == 1 {
			if err := fn(bufs[p[0]]); err != nil {
				return err
			}
			continue
		}
		n := 0
		for _, i := range p {
			n += len(bufs[i])
		}
		if cap(*scratch) < n {
			*scratch = make([]float32, n)
		}
		fused := (*scratch)[:n]
		off := 0
		for _, i := range p {
			off += copy(fused[off:], bufs[i])
		}
		if err := fn(fused); err != nil {
			return err
		}
		if back {
			off = 0
			for _, i := range p {
				off += copy(bufs[i], fused[off:])
			}
		}
	}
	return nil
}

func rankList(ranks []int) string {
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = fmt.Sprint(r)
	}
	return strings.Join(s, ", ")
}
