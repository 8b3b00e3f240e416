// Command loadmem loads a Keras model file with keras.LoadModel and prints
// the process's peak resident memory against the size of the model's
// weights: the figure issue 30 bounds (LoadModel at <= 1.5x the weights).
//
//	go run ./tools/loadmem FILE...
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/gokeras/gokeras/keras"
)

func main() {
	flag.Parse()
	for _, path := range flag.Args() {
		base := peakRSS()
		m, err := keras.LoadModel(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var weights int64
		for _, v := range m.Weights() {
			weights += int64(v.Shape().Size()) * 4
		}
		peak := peakRSS()
		fmt.Printf("%s: weights %.1f MiB, peak RSS %.1f MiB (%.1f MiB before loading): %.2fx the weights above the start\n",
			path, mib(weights), mib(peak), mib(base), float64(peak-base)/float64(weights))
		runtime.KeepAlive(m)
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// peakRSS is VmHWM of /proc/self/status (Linux), in bytes.
func peakRSS() int64 {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
