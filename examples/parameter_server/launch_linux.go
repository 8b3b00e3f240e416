package main

import (
	"os"
	"syscall"
)

// childAttr makes a launched task die with the launcher (a launcher
// killed by a test's timeout or by SIGKILL leaves no cluster behind).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// maxRSSBytes is an ended process's peak resident set size (Linux's
// ru_maxrss is in KiB).
func maxRSSBytes(ps *os.ProcessState) (uint64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru.Maxrss <= 0 {
		return 0, false
	}
	return uint64(ru.Maxrss) << 10, true
}
