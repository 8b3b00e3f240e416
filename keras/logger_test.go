package keras

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestSetLoggerRoutesWarnings: a warning of LoadWeights-like restores (a
// checkpoint's optimizer variables for a model without an optimizer)
// reaches the slog.Logger given to SetLogger, at WARN, and nothing is
// logged once SetLogger has a discarding logger.
func TestSetLoggerRoutesWarnings(t *testing.T) {
	x, y := svData(16, []int{4}, 3, 2)
	path := filepath.Join(t.TempDir(), "ckpt.npz")
	a := svMLP(t, 1)
	svCompile(t, a, optimizers.NewAdam())
	svFit(t, a, x, y, 1, 0)
	if err := a.SaveCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { SetLogger(nil) })
	var buf bytes.Buffer
	SetLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	b := svMLP(t, 2) // no optimizer
	if _, err := b.RestoreCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "has no optimizer: they are not restored") {
		t.Errorf("the logger got %q, want the missing optimizer's warning at WARN", out)
	}
	buf.Reset()
	SetLogger(slog.New(slog.DiscardHandler))
	if _, err := b.RestoreCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("after SetLogger(discard) the old logger still got %q", buf.String())
	}
}
