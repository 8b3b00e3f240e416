package main

import "syscall"

// childAttr makes a launched task die with the launcher (a launcher
// killed by a test's timeout or by SIGKILL leaves no cluster behind).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
