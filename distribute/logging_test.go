package distribute

import (
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/internal/logging/logtest"
	"gorgonia.org/tensor"
)

// TestAutoShardFileWarnsThroughSlog: FILE on a multi-worker dataset
// falls back to DATA with one warning through the gokeras logger
// (keras.SetLogger, else slog.Default); one worker has nothing to warn.
func TestAutoShardFileWarnsThroughSlog(t *testing.T) {
	rec := logtest.Capture(t)
	s, err := NewMirroredStrategy("/cpu:0")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.FromTensorSlices(tensor.New(tensor.WithShape(4, 1), tensor.WithBacking([]float32{1, 2, 3, 4})))
	if err != nil {
		t.Fatal(err)
	}
	ds = ds.Batch(2, false)
	distributeDataset(s, ds, 1, 0).WithOptions(InputOptions{AutoShardPolicy: AutoShardFile})
	if w := rec.Matching("AutoShardPolicy FILE"); len(w) != 0 {
		t.Errorf("one worker warned %+v", w)
	}
	distributeDataset(s, ds, 3, 1).WithOptions(InputOptions{AutoShardPolicy: AutoShardFile})
	if w := rec.Matching("AutoShardPolicy FILE"); len(w) != 1 || w[0].Level != slog.LevelWarn || !strings.HasSuffix(strings.Split(w[0].Source, ":")[0], "input.go") {
		t.Errorf("three workers: %+v, want one WARN from input.go", w)
	}
}

// TestWarnInsecureThroughSlogOnce: a cluster without TLS says so once
// per process, at WARN, naming the task, its address and the TLS
// variables.
func TestWarnInsecureThroughSlogOnce(t *testing.T) {
	rec := logtest.Capture(t)
	warnOnce = sync.Once{} // a strategy of an earlier test may have warned
	warnInsecure("worker:1", "127.0.0.1:4242")
	warnInsecure("worker:2", "127.0.0.1:4243")
	w := rec.Matching("runs WITHOUT TLS")
	if len(w) != 1 || w[0].Level != slog.LevelWarn {
		t.Fatalf("records %+v, want one WARN", rec.All())
	}
	for _, want := range []string{"worker:1", "127.0.0.1:4242", EnvTLSCA, EnvTLSCert, EnvTLSKey} {
		if !strings.Contains(w[0].Message, want) {
			t.Errorf("warning %q does not name %s", w[0].Message, want)
		}
	}
}
