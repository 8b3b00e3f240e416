// Package memlimit tells how much memory the process can still take, so
// that an allocation beyond it is an error returned to the caller instead
// of Go's fatal, unrecoverable "out of memory".
//
// The bound is the least of what is known: the system's available memory
// (Linux /proc/meminfo MemAvailable), the cgroup's limit less its usage
// (cgroup v2 memory.max and memory.current), and the Go runtime's soft
// limit (runtime/debug.SetMemoryLimit) less the memory the runtime holds,
// each plus the free memory the Go heap already holds. Where none is
// known (another system), nothing is refused but what cannot exist: sizes
// whose product overflows.
package memlimit

import (
	"bufio"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
)

// checkFrom is the size from which Check consults the system: smaller
// allocations are not worth the look-up (and cannot exhaust a machine
// alone).
const checkFrom = 64 << 20

// Error is an allocation refused for lack of memory.
type Error struct {
	What      string // what needed it, such as `weight "dense/kernel" of shape (4, 1099511627776)`
	Bytes     uint64 // what it needed; math.MaxUint64 when the size overflows
	Available uint64 // what the process could still take
}

func (e *Error) Error() string {
	if e.Bytes == math.MaxUint64 {
		return fmt.Sprintf("%s: its size overflows: more memory than any machine has", e.What)
	}
	return fmt.Sprintf("%s: needs %d bytes (%.1f GiB), more than the %d bytes (%.1f GiB) this process can still allocate",
		e.What, e.Bytes, gib(e.Bytes), e.Available, gib(e.Available))
}

func gib(n uint64) float64 { return float64(n) / (1 << 30) }

// Bytes is the size of count elements of elemSize bytes each, where count
// is the product of dims (negative dimensions count as 0):
// math.MaxUint64 when it overflows.
func Bytes(elemSize int, dims ...int) uint64 {
	n := uint64(max(elemSize, 0))
	for _, d := range dims {
		hi, lo := bits.Mul64(n, uint64(max(d, 0)))
		if hi != 0 {
			return math.MaxUint64
		}
		n = lo
	}
	return n
}

// Check returns an *Error when bytes is more than the process can still
// allocate (see the package doc), nil otherwise.
func Check(what string, bytes uint64) error {
	if bytes == math.MaxUint64 {
		return &Error{What: what, Bytes: bytes}
	}
	if bytes < checkFrom {
		return nil
	}
	if avail, ok := Available(); ok && bytes > avail {
		return &Error{What: what, Bytes: bytes, Available: avail}
	}
	return nil
}

// Available returns the bytes the process can still allocate, and false
// when no bound is known.
func Available() (uint64, bool) {
	best, known := uint64(math.MaxUint64), false
	take := func(n uint64) {
		best, known = min(best, n), true
	}
	if n, ok := meminfoAvailable(); ok {
		take(n)
	}
	if lim, ok := readUint("/sys/fs/cgroup/memory.max"); ok {
		cur, _ := readUint("/sys/fs/cgroup/memory.current")
		take(lim - min(cur, lim))
	}
	var held uint64
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(samples)
	if samples[0].Value.Kind() == metrics.KindUint64 {
		held = samples[0].Value.Uint64()
	}
	if lim := debug.SetMemoryLimit(-1); lim > 0 && lim < math.MaxInt64 {
		take(uint64(lim) - min(held, uint64(lim)))
	}
	if !known {
		return 0, false
	}
	// The heap's free spans are the process's already.
	if samples[1].Value.Kind() == metrics.KindUint64 {
		best += min(samples[1].Value.Uint64(), math.MaxUint64-best)
	}
	return best, true
}

// meminfoAvailable reads MemAvailable from /proc/meminfo.
func meminfoAvailable() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			fs := strings.Fields(rest)
			if len(fs) == 2 && fs[1] == "kB" {
				if n, err := strconv.ParseUint(fs[0], 10, 64); err == nil && n < math.MaxUint64/1024 {
					return n * 1024, true
				}
			}
			return 0, false
		}
	}
	return 0, false
}

// readUint reads a file holding one number ("max" is no number).
func readUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}
