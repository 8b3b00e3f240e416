//go:build !linux

package main

import "os"

// selfPeakKB is unknown (NaN) off Linux.
func selfPeakKB() float64 { return nan() }

// childPeakKB is unknown (NaN) off Linux.
func childPeakKB(*os.ProcessState) float64 { return nan() }

// loadAverage is unknown off Linux.
func loadAverage() string { return "-" }

// selfCPUSeconds is unknown (NaN) off Linux.
func selfCPUSeconds() float64 { return nan() }
