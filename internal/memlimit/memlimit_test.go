package memlimit

import (
	"errors"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBytesOverflow(t *testing.T) {
	if got := Bytes(4, 2, 3); got != 24 {
		t.Errorf("Bytes(4, 2, 3) = %d", got)
	}
	if got := Bytes(4, 3037000500, 3037000500); got != math.MaxUint64 {
		t.Errorf("an overflowing product: %d", got)
	}
	if got := Bytes(4, -1, 5); got != 0 {
		t.Errorf("a negative dimension: %d", got)
	}
	var e *Error
	if err := Check("x", math.MaxUint64); !errors.As(err, &e) || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("Check of an overflow: %v", err)
	}
}

// TestCheckAgainstMemoryLimit: with the runtime's limit set, what is
// beyond it is refused, what is well within it is not, whatever the
// machine.
func TestCheckAgainstMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(1 << 30)
	defer debug.SetMemoryLimit(old)
	avail, ok := Available()
	if !ok || avail > 2<<30 {
		t.Fatalf("Available = %d, %v under a 1 GiB limit", avail, ok)
	}
	err := Check("a 16 GiB weight", 16<<30)
	var e *Error
	if !errors.As(err, &e) || e.Bytes != 16<<30 || !strings.Contains(err.Error(), "a 16 GiB weight") {
		t.Errorf("Check(16 GiB) under a 1 GiB limit: %v", err)
	}
	if err := Check("small", 1<<20); err != nil {
		t.Errorf("Check(1 MiB): %v", err)
	}
	runtime.KeepAlive(old)
}

// TestAvailableOnLinux: where /proc/meminfo exists the bound is known and
// below 1<<50 (a petabyte machine would need this test raised).
func TestAvailableOnLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/meminfo")
	}
	n, ok := Available()
	if !ok || n == 0 || n > 1<<50 {
		t.Errorf("Available = %d, %v", n, ok)
	}
	if err := Check("1 EiB", 1<<60); err == nil {
		t.Error("Check(1 EiB) passed")
	}
}
