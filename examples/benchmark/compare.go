package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// result is one implementation's figures in the -compare table. A figure
// that was not measured is NaN and prints as "-".
type result struct {
	impl      string  // gokeras, tensorflow, tensorflow_xla, pytorch
	stepMS    float64 // mean train step, ms
	medianMS  float64 // median train step, ms
	inferMS   float64 // median inference per batch, ms
	peakKB    float64 // peak RSS of the step process, KiB
	fitS      float64 // one Fit epoch over the synthetic dataset, seconds
	fitPeakKB float64 // peak RSS of the Fit-epoch process, KiB
	version   string  // tf=... / torch=...
}

func newResult(impl string) result {
	n := math.NaN()
	return result{impl: impl, stepMS: n, medianMS: n, inferMS: n, peakKB: n, fitS: n, fitPeakKB: n}
}

// parseFields reads the first line of out whose first word is kind
// ("step", "infer" or "fit") into its key=value pairs; the PyTorch and
// TensorFlow references and this command all print such lines.
func parseFields(out, kind string) (map[string]string, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		words := strings.Fields(sc.Text())
		if len(words) == 0 || words[0] != kind {
			continue
		}
		kv := map[string]string{}
		for _, w := range words[1:] {
			k, v, ok := strings.Cut(w, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("%s line %q: %q is not key=value", kind, sc.Text(), w)
			}
			kv[k] = v
		}
		return kv, nil
	}
	return nil, fmt.Errorf("no %q line in the output:\n%s", kind, out)
}

// number returns kv[key] as a float64, NaN when the key is absent.
func number(kv map[string]string, key string) (float64, error) {
	v, ok := kv[key]
	if !ok {
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) {
		return math.NaN(), fmt.Errorf("%s=%q is not a non-negative number", key, v)
	}
	return f, nil
}

// merge sets r's figures from the fields of a step, infer or fit line;
// absent fields leave r as it was.
func (r *result) merge(kind string, kv map[string]string) error {
	type field struct {
		key string
		dst *float64
	}
	var fs []field
	switch kind {
	case "step":
		fs = []field{{"ms_per_step", &r.stepMS}, {"median_ms", &r.medianMS}, {"infer_ms_per_batch", &r.inferMS}, {"peak_rss_kb", &r.peakKB}}
	case "infer":
		fs = []field{{"infer_ms_per_batch", &r.inferMS}}
	case "fit":
		fs = []field{{"seconds", &r.fitS}, {"peak_rss_kb", &r.fitPeakKB}}
	default:
		return fmt.Errorf("unknown line kind %q", kind)
	}
	for _, f := range fs {
		v, err := number(kv, f.key)
		if err != nil {
			return fmt.Errorf("%s line: %w", kind, err)
		}
		if !math.IsNaN(v) {
			*f.dst = v
		}
	}
	for _, k := range []string{"tf", "torch"} {
		if v, ok := kv[k]; ok && r.version == "" {
			r.version = k + "=" + v
		}
	}
	return nil
}

// printTable writes the side-by-side table: one row per implementation,
// ratio = step_ms / gokeras' step_ms (above 1: gokeras is faster), RSS in
// MiB. The first row is the one the ratios divide by.
func printTable(w io.Writer, header string, rs []result) {
	fmt.Fprintln(w, header)
	fmt.Fprintf(w, "%-15s %9s %9s %6s %9s %9s %7s %9s  %s\n",
		"impl", "step_ms", "median_ms", "ratio", "infer_ms", "peak_MiB", "fit_s", "fit_MiB", "version")
	base := math.NaN()
	if len(rs) > 0 {
		base = rs[0].stepMS
	}
	for _, r := range rs {
		fmt.Fprintf(w, "%-15s %9s %9s %6s %9s %9s %7s %9s  %s\n", r.impl,
			cell(r.stepMS, 2), cell(r.medianMS, 2), cell(r.stepMS/base, 2), cell(r.inferMS, 2),
			cell(r.peakKB/1024, 0), cell(r.fitS, 2), cell(r.fitPeakKB/1024, 0), r.version)
	}
}

func cell(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// runner runs a reference subprocess; tests replace it.
var runner = func(name string, args ...string) (out string, peakKB float64, err error) {
	cmd := exec.Command(name, args...)
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = os.Stderr
	err = cmd.Run()
	return buf.String(), childPeakKB(cmd.ProcessState), err
}

// runLine runs one reference command and merges its kind line into r. The
// child's peak RSS from wait4 stands in for a step line without one.
func runLine(r *result, kind, name string, args ...string) error {
	out, peak, err := runner(name, args...)
	if err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	kv, err := parseFields(out, kind)
	if err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	if _, ok := kv["peak_rss_kb"]; !ok && peak > 0 {
		kv["peak_rss_kb"] = strconv.FormatFloat(peak, 'f', 0, 64)
	}
	return r.merge(kind, kv)
}

// envTFReference and envTFPython name the environment variables that give
// tf_reference.py and the interpreter with TensorFlow when the flags do not.
const (
	envTFReference = "GOKERAS_TF_REFERENCE"
	envTFPython    = "GOKERAS_TF_PYTHON"
)

// tfReferencePath picks tf_reference.py: the flag, the environment
// variable, else the project's copy when run from the repository root.
// Empty (with the reason) when there is none.
func tfReferencePath(flagValue, envValue string) (string, error) {
	ref, from := flagValue, "-tf-reference"
	if ref == "" {
		ref, from = envValue, "$"+envTFReference
	}
	if ref == "" {
		ref, from = filepath.Join("tools", "tf_reference", "tf_reference.py"), "default"
	}
	st, err := os.Stat(ref)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w (pass -tf-reference PATH or set %s)", from, ref, err, envTFReference)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s %s: not a file (want tf_reference.py)", from, ref)
	}
	return ref, nil
}

// tfPython picks the interpreter for tf_reference.py: the flag, the
// environment variable, the pinned virtualenv ~/.cache/gokeras-keras-ref
// when it exists, else python3 from PATH.
func tfPython(flagValue, envValue, home string) string {
	switch {
	case flagValue != "":
		return flagValue
	case envValue != "":
		return envValue
	}
	if home != "" {
		p := filepath.Join(home, ".cache", "gokeras-keras-ref", "bin", "python")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "python3"
}

func nan() float64 { return math.NaN() }
