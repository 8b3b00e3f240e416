package logging_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/internal/logging/logtest"
)

// TestSetRoutesAndSourceIsCaller: a set logger takes the formatted
// message at its level, with this file as the source.
func TestSetRoutesAndSourceIsCaller(t *testing.T) {
	rec := logtest.Capture(t)
	logging.Warnf("pkg: %d things %s", 3, "missing")
	logging.Infof("pkg: plan of %d steps", 7)
	got := rec.All()
	if len(got) != 2 {
		t.Fatalf("records %+v, want 2", got)
	}
	if got[0].Level != slog.LevelWarn || got[0].Message != "pkg: 3 things missing" {
		t.Errorf("first record %+v, want WARN %q", got[0], "pkg: 3 things missing")
	}
	if got[1].Level != slog.LevelInfo || got[1].Message != "pkg: plan of 7 steps" {
		t.Errorf("second record %+v, want INFO %q", got[1], "pkg: plan of 7 steps")
	}
	for _, r := range got {
		if filepath.Base(strings.Split(r.Source, ":")[0]) != "logging_test.go" {
			t.Errorf("source %q, want this test file (the caller, not package logging)", r.Source)
		}
	}
}

// TestDefaultIsSlogDefault: without Set, messages go to slog.Default as
// it is when they are logged, and Set(nil) returns to it.
func TestDefaultIsSlogDefault(t *testing.T) {
	logging.Set(nil)
	old := slog.Default()
	t.Cleanup(func() { slog.SetDefault(old) })
	var buf bytes.Buffer
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	logging.Warnf("distribute: %s", "no TLS")
	if out := buf.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, `msg="distribute: no TLS"`) {
		t.Errorf("slog.Default got %q", out)
	}
	if logging.Logger() != slog.Default() {
		t.Error("Logger() is not slog.Default() without Set")
	}
	rec := logtest.Capture(t)
	logging.Set(nil)
	buf.Reset()
	logging.Warnf("after Set(nil)")
	if len(rec.All()) != 0 || !strings.Contains(buf.String(), "after Set(nil)") {
		t.Errorf("Set(nil): recorder %v, default %q", rec.All(), buf.String())
	}
}

// countingHandler counts the records it handles and takes levels from min.
type countingHandler struct {
	min slog.Level
	n   *int
}

func (h countingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }
func (h countingHandler) Handle(context.Context, slog.Record) error    { *h.n++; return nil }
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h countingHandler) WithGroup(string) slog.Handler                { return h }

// formatted counts the times its String method runs.
type formatted struct{ n *int }

func (f formatted) String() string { *f.n++; return "x" }

// TestLevelsFiltered: a handler that does not take a level gets nothing,
// and the message is not even formatted (a silenced program pays no
// Sprintf).
func TestLevelsFiltered(t *testing.T) {
	old := logging.Logger()
	t.Cleanup(func() { logging.Set(old) })
	var handled, formats int
	logging.Set(slog.New(countingHandler{min: slog.LevelError, n: &handled}))
	logging.Warnf("%v", formatted{&formats})
	logging.Infof("%v", formatted{&formats})
	if handled != 0 || formats != 0 {
		t.Errorf("below the handler's level: %d handled, %d formatted, want 0 and 0", handled, formats)
	}
	logging.Set(slog.New(countingHandler{min: slog.LevelWarn, n: &handled}))
	logging.Warnf("%v", formatted{&formats})
	logging.Infof("%v", formatted{&formats})
	if handled != 1 || formats != 1 {
		t.Errorf("at WARN: %d handled, %d formatted, want 1 and 1", handled, formats)
	}
	logging.Set(slog.New(slog.DiscardHandler))
	logging.Warnf("silenced")
}
