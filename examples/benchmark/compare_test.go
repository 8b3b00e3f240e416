package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Lines as the references print them (the formats of tf_reference.py,
// torch_reference.py and torch_extra.py).
const (
	tfStep    = "step model=mnist_cnn batch=64 threads=2 params=225034 ms_per_step=18.40 median_ms=17.90 samples_per_s=3575 infer_ms_per_batch=4.25 peak_rss_kb=575000 impl=tensorflow jit=off tf=2.21.0 keras=3.15.1\n"
	tfFit     = "fit model=mnist_cnn batch=64 threads=2 samples=640 seconds=1.43 peak_rss_kb=583680 impl=tensorflow jit=off tf=2.21.0 keras=3.15.1\n"
	torchStep = "params model=mnist_cnn total=225034 trainable=225034 non_trainable=0\nstep model=mnist_cnn batch=64 threads=2 ms_per_step=38.30 samples_per_s=1671 device=cpu torch=1.13.0a0\n"
	torchInf  = "infer model=mnist_cnn batch=64 threads=2 infer_ms_per_batch=12.50 peak_rss_kb=266168 impl=pytorch torch=1.13.0a0\n"
)

func TestParseFields(t *testing.T) {
	kv, err := parseFields("noise line\n"+torchStep, "step")
	if err != nil {
		t.Fatal(err)
	}
	if kv["ms_per_step"] != "38.30" || kv["torch"] != "1.13.0a0" || kv["model"] != "mnist_cnn" || len(kv) != 7 {
		t.Errorf("step fields %v", kv)
	}
	// "params" line first: its first word is not "step", so it is not taken.
	if _, ok := kv["total"]; ok {
		t.Errorf("took the params line: %v", kv)
	}
	if _, err := parseFields(torchStep, "fit"); err == nil || !strings.Contains(err.Error(), `no "fit" line`) {
		t.Errorf("missing line: %v", err)
	}
	if _, err := parseFields("step model=x broken\n", "step"); err == nil || !strings.Contains(err.Error(), `"broken" is not key=value`) {
		t.Errorf("bad word: %v", err)
	}
	if _, err := parseFields("stepped a=1\n", "step"); err == nil {
		t.Error("a line starting with stepped was taken for a step line")
	}
}

func TestMerge(t *testing.T) {
	r := newResult("tensorflow")
	for _, c := range []struct{ kind, out string }{{"step", tfStep}, {"fit", tfFit}} {
		kv, err := parseFields(c.out, c.kind)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.merge(c.kind, kv); err != nil {
			t.Fatal(err)
		}
	}
	want := result{impl: "tensorflow", stepMS: 18.40, medianMS: 17.90, inferMS: 4.25, peakKB: 575000, fitS: 1.43, fitPeakKB: 583680, version: "tf=2.21.0"}
	if r != want {
		t.Errorf("merged %+v, want %+v", r, want)
	}
	// Absent fields stay unmeasured; a later line does not erase earlier ones.
	p := newResult("pytorch")
	kv, _ := parseFields(torchStep, "step")
	if err := p.merge("step", kv); err != nil {
		t.Fatal(err)
	}
	if p.stepMS != 38.30 || !math.IsNaN(p.medianMS) || !math.IsNaN(p.inferMS) || !math.IsNaN(p.peakKB) {
		t.Errorf("torch step merged %+v", p)
	}
	kv, _ = parseFields(torchInf, "infer")
	if err := p.merge("infer", kv); err != nil {
		t.Fatal(err)
	}
	if p.inferMS != 12.50 || p.stepMS != 38.30 || !math.IsNaN(p.peakKB) {
		t.Errorf("torch infer merged %+v (the infer line's RSS is not the step's)", p)
	}
	for _, bad := range []string{"ms_per_step=abc", "ms_per_step=-1", "ms_per_step=+Inf"} {
		kv, _ := parseFields("step "+bad, "step")
		if err := p.merge("step", kv); err == nil || !strings.Contains(err.Error(), "not a non-negative number") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if err := p.merge("epoch", nil); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestPrintTable(t *testing.T) {
	g := result{impl: "gokeras", stepMS: 10, medianMS: 9.5, inferMS: 4, peakKB: 100 * 1024, fitS: 0.5, fitPeakKB: 80 * 1024, version: "go"}
	tf := newResult("tensorflow")
	tf.stepMS, tf.inferMS, tf.peakKB = 25, 5.5, 512*1024+100
	var b bytes.Buffer
	printTable(&b, "compare model=m", []result{g, tf})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "compare model=m" {
		t.Fatalf("table:\n%s", b.String())
	}
	head := strings.Fields(lines[1])
	want := [][]string{
		{"gokeras", "10.00", "9.50", "1.00", "4.00", "100", "0.50", "80", "go"},
		{"tensorflow", "25.00", "-", "2.50", "5.50", "512", "-", "-"},
	}
	for i, w := range want {
		got := strings.Fields(lines[2+i])
		if strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("row %d = %q, want %q", i, got, w)
		}
		if i == 0 && len(got) != len(head) {
			t.Errorf("row has %d columns, header %d: %q", len(got), len(head), head)
		}
	}
	// No gokeras figure: ratios are unknown, never Inf or NaN printed.
	b.Reset()
	printTable(&b, "h", []result{newResult("gokeras"), tf})
	if strings.Contains(b.String(), "Inf") || strings.Contains(b.String(), "NaN") {
		t.Errorf("table without a base:\n%s", b.String())
	}
}

func TestRunLine(t *testing.T) {
	defer func(old func(string, ...string) (string, float64, error)) { runner = old }(runner)
	var gotArgs []string
	runner = func(name string, args ...string) (string, float64, error) {
		gotArgs = append([]string{name}, args...)
		return torchStep, 300000, nil
	}
	r := newResult("pytorch")
	if err := runLine(&r, "step", "py", "ref.py", "step"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(gotArgs, " ") != "py ref.py step" {
		t.Errorf("ran %q", gotArgs)
	}
	if r.stepMS != 38.30 || r.peakKB != 300000 {
		t.Errorf("step line without peak_rss_kb: %+v, want the child's RSS 300000", r)
	}
	runner = func(string, ...string) (string, float64, error) { return tfStep, 1, nil }
	r = newResult("tensorflow")
	if err := runLine(&r, "step", "py"); err != nil || r.peakKB != 575000 {
		t.Errorf("the line's own peak_rss_kb wins over the child's: %+v, %v", r, err)
	}
	runner = func(string, ...string) (string, float64, error) { return "", math.NaN(), errors.New("exit status 1") }
	if err := runLine(&r, "step", "py", "x.py"); err == nil || !strings.Contains(err.Error(), "py x.py: exit status 1") {
		t.Errorf("failed run: %v", err)
	}
}

func TestTFReferencePath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tf_reference.py")
	if err := os.WriteFile(file, []byte("# reference\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := tfReferencePath(file, "elsewhere"); got != file || err != nil {
		t.Errorf("flag: %q, %v", got, err)
	}
	if got, err := tfReferencePath("", file); got != file || err != nil {
		t.Errorf("env: %q, %v", got, err)
	}
	if _, err := tfReferencePath("", filepath.Join(dir, "no.py")); err == nil || !strings.Contains(err.Error(), "$"+envTFReference) {
		t.Errorf("missing env file: %v", err)
	}
	if _, err := tfReferencePath(dir, ""); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("directory: %v", err)
	}
	// The default is the project's copy, relative to the repository root:
	// from this package's directory it is not there.
	if _, err := tfReferencePath("", ""); err == nil || !strings.Contains(err.Error(), "default") {
		t.Errorf("default from the package directory: %v", err)
	}
}

func TestTFPython(t *testing.T) {
	home := t.TempDir()
	if got := tfPython("", "", home); got != "python3" {
		t.Errorf("no venv: %q", got)
	}
	venv := filepath.Join(home, ".cache", "gokeras-keras-ref", "bin")
	if err := os.MkdirAll(venv, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(venv, "python"), nil, 0o755)
	if got := tfPython("", "", home); got != filepath.Join(venv, "python") {
		t.Errorf("venv: %q", got)
	}
	if got := tfPython("", "envpy", home); got != "envpy" {
		t.Errorf("env: %q", got)
	}
	if got := tfPython("flagpy", "envpy", home); got != "flagpy" {
		t.Errorf("flag: %q", got)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median = %v, want %v", got, c.want)
		}
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}

func TestSelfPeakKB(t *testing.T) {
	v := selfPeakKB()
	if math.IsNaN(v) {
		t.Skip("peak RSS unknown on this system")
	}
	// A live Go test binary holds at least a megabyte and far below a terabyte.
	if v < 1024 || v > 1<<30 {
		t.Errorf("peak RSS %v KiB", v)
	}
}
