package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sbinet/npyio/npz"

	"github.com/gokeras/gokeras/internal/racetest"
)

// writeIDX writes a gzipped idx file: images (n, 28, 28) or labels (n,).
func writeIDX(t *testing.T, path string, magic uint32, dims []uint32, data []byte) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	binary.Write(zw, binary.BigEndian, magic)
	for _, d := range dims {
		binary.Write(zw, binary.BigEndian, d)
	}
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeMNIST writes a small MNIST-format dataset where each class is a
// bright square at its own place.
func fakeMNIST(t *testing.T, dir string, nTrain, nTest int) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, set := range []struct {
		prefix string
		n      int
	}{{"train", nTrain}, {"t10k", nTest}} {
		imgs := make([]byte, set.n*784)
		labels := make([]byte, set.n)
		for i := 0; i < set.n; i++ {
			c := r.IntN(10)
			labels[i] = byte(c)
			for p := 0; p < 784; p++ {
				imgs[i*784+p] = byte(r.IntN(60))
			}
			y0, x0 := (c/5)*12+2, (c%5)*5+1
			for y := y0; y < y0+8; y++ {
				for x := x0; x < x0+4; x++ {
					imgs[i*784+y*28+x] = 255
				}
			}
		}
		writeIDX(t, filepath.Join(dir, set.prefix+"-images-idx3-ubyte.gz"), 2051, []uint32{uint32(set.n), 28, 28}, imgs)
		writeIDX(t, filepath.Join(dir, set.prefix+"-labels-idx1-ubyte.gz"), 2049, []uint32{uint32(set.n)}, labels)
	}
}

// lockedBuffer is a bytes.Buffer safe for one writer (the goroutine that
// copies a child's output) and a reader polling it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestKillAndResume: SIGKILL in the middle of an epoch, start again with
// the same BackupAndRestore directory: training resumes at the last
// completed epoch and ends with the weights of an uninterrupted run.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example three times")
	}
	racetest.Skip(t, "it runs a go build of the example without -race, which the detector does not see into")
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.Mkdir(data, 0o755)
	fakeMNIST(t, data, 1500, 200)
	bin := filepath.Join(dir, "mnist_cnn")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	args := func(extra ...string) []string {
		return append([]string{"-dataset", "mnist", "-data", data, "-epochs", "3", "-seed", "3", "-verbose", "2", "-plot", ""}, extra...)
	}
	// The uninterrupted run.
	want := filepath.Join(dir, "want.weights.npz")
	if out, err := exec.Command(bin, args("-save-weights", want)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted run: %v\n%s", err, out)
	}
	// The interrupted run: killed once epoch 1 is backed up and epoch 2 is under way.
	backup := filepath.Join(dir, "backup")
	got := filepath.Join(dir, "got.weights.npz")
	var out lockedBuffer // the child's output is copied in while we read it
	cmd := exec.Command(bin, args("-backup-dir", backup, "-save-weights", got)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), "Epoch 2/3") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("epoch 2 never started:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // into epoch 2 (24 steps of a few ms to tens of ms)
	if strings.Contains(out.String(), "Epoch 3/3") {
		t.Log("note: the kill came after epoch 2 finished")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(got); err == nil {
		t.Fatal("the killed run finished anyway; make epochs longer")
	}
	// Started again: resumes and finishes.
	res, err := exec.Command(bin, args("-backup-dir", backup, "-save-weights", got)...).CombinedOutput()
	if err != nil {
		t.Fatalf("resumed run: %v\n%s", err, res)
	}
	if strings.Contains(string(res), "Epoch 1/3") {
		t.Errorf("the resumed run started from epoch 1:\n%s", res)
	}
	a, b := readWeights(t, want), readWeights(t, got)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d weights", len(a), len(b))
	}
	for name, wa := range a {
		wb := b[name]
		if len(wa) != len(wb) {
			t.Fatalf("%s: %d and %d values", name, len(wa), len(wb))
		}
		for i := range wa {
			if math.Float32bits(wa[i]) != math.Float32bits(wb[i]) {
				t.Fatalf("%s[%d]: %v after kill and resume, %v uninterrupted", name, i, wb[i], wa[i])
			}
		}
	}
}

func readWeights(t *testing.T, path string) map[string][]float32 {
	t.Helper()
	r, err := npz.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[string][]float32{}
	for _, k := range r.Keys() {
		var v []float32
		if err := r.Read(k, &v); err != nil {
			t.Fatalf("%s: %s: %v", path, k, err)
		}
		out[k] = v
	}
	return out
}
