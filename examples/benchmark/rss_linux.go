//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// selfPeakKB returns this process's peak resident set size in KiB: VmHWM of
// /proc/self/status, else getrusage's ru_maxrss; NaN when neither answers.
func selfPeakKB() float64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				if v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64); err == nil {
					return v
				}
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil && ru.Maxrss > 0 {
		return float64(ru.Maxrss)
	}
	return nan()
}

// childPeakKB returns a finished child's peak RSS in KiB (wait4's
// ru_maxrss), NaN when unknown.
func childPeakKB(ps *os.ProcessState) float64 {
	if ps == nil {
		return nan()
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 0 {
		return float64(ru.Maxrss)
	}
	return nan()
}

// loadAverage returns the 1, 5 and 15 minute load averages as printed in
// /proc/loadavg, or "-".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return f[0] + "," + f[1] + "," + f[2]
	}
	return "-"
}

// selfCPUSeconds returns the user and system CPU time this process has
// used, NaN when unknown.
func selfCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nan()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
