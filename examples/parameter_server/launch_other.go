//go:build !linux

package main

import (
	"os"
	"syscall"
)

// childAttr is nil where the kernel cannot tie a child's life to its
// parent's.
func childAttr() *syscall.SysProcAttr { return nil }

// maxRSSBytes is not known here (ru_maxrss's unit differs by system).
func maxRSSBytes(*os.ProcessState) (uint64, bool) { return 0, false }
