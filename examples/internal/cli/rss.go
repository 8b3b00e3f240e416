package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size in bytes (VmHWM of
// /proc/self/status), and false where the system does not say (not Linux).
func PeakRSS() (uint64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	return parseVmHWM(f)
}

// parseVmHWM reads the "VmHWM:   1234 kB" line of a /proc status file.
func parseVmHWM(r io.Reader) (uint64, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// PrintPeakRSS writes "peak RSS: N MB" to w, where the system says it.
func PrintPeakRSS(w io.Writer) {
	if b, ok := PeakRSS(); ok {
		fmt.Fprintf(w, "peak RSS: %d MB\n", b>>20)
	}
}
