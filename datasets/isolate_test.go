package datasets

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/gokeras/gokeras/internal/racetest"
)

// childEnv names the environment variable that tells a test binary it is
// the child that runs one hostile-input test (see inChild).
const childEnv = "GOKERAS_DATASETS_CHILD"

// childMemoryLimit bounds the address space of a child (where the platform
// allows it): a reader that allocates without limit then fails fast with
// "out of memory" instead of filling the machine.
const childMemoryLimit = 3 << 30

// inChild runs the calling test in a child process of the test binary and
// reports whether the caller is that child. The parent (which gets false)
// fails the test if the child fails, crashes or runs past timeout. Tests of
// hostile inputs use it because a stack overflow, running out of memory or
// a panic in another goroutine is fatal in Go, beyond any recover: in a
// child it fails that one test instead of killing the whole test binary.
//
//	func TestX(t *testing.T) {
//		if !inChild(t, time.Minute) {
//			return
//		}
//		... the test proper ...
//	}
func inChild(t *testing.T, timeout time.Duration) bool {
	t.Helper()
	racetest.Skip(t, "a reader's bounds on a hostile file, on one goroutine")
	if os.Getenv(childEnv) == t.Name() {
		limitAddressSpace(childMemoryLimit)
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	start := time.Now()
	out, err := cmd.CombinedOutput()
	switch {
	case ctx.Err() != nil:
		t.Errorf("the child running %s did not finish within %v:\n%s", t.Name(), timeout, tail(out))
	case err != nil:
		t.Errorf("the child running %s failed (%v) after %v:\n%s", t.Name(), err, time.Since(start).Round(time.Millisecond), tail(out))
	default:
		t.Logf("child passed in %v", time.Since(start).Round(time.Millisecond))
	}
	return false
}

// tail returns the end of a child's output, enough for a crash's first
// lines without pages of goroutine stacks.
func tail(out []byte) string {
	const keep = 4000
	if len(out) > keep {
		return "...\n" + string(out[:keep/2]) + "\n...\n" + string(out[len(out)-keep/2:])
	}
	return string(out)
}

// measure runs f and returns the bytes it allocated (all goroutines
// together, including those f starts) and the time it took.
func measure(f func()) (allocated uint64, elapsed time.Duration) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed = time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, elapsed
}

// mib formats a byte count for messages.
func mib(n uint64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
