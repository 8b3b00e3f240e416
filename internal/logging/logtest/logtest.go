// Package logtest captures what gokeras logs, for tests: [Capture] routes
// the gokeras logger (internal/logging) to a recording slog handler for the
// rest of a test.
package logtest

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gokeras/gokeras/internal/logging"
)

// Record is one captured log record.
type Record struct {
	Level   slog.Level
	Message string
	// Source is the file:line that logged it ("" when the record has no
	// program counter).
	Source string
}

// Records is a slog.Handler that keeps every record it handles, at every
// level. It is safe for concurrent use.
type Records struct {
	mu  sync.Mutex
	got []Record
}

// Capture makes a new Records the gokeras logger until t ends (the logger
// before it is restored then). Tests that run in parallel with others
// which log should look for their own messages with [Records.Matching].
func Capture(t testing.TB) *Records {
	t.Helper()
	r := &Records{}
	old := logging.Logger()
	logging.Set(slog.New(r))
	t.Cleanup(func() { logging.Set(old) })
	return r
}

// All returns a copy of the records so far.
func (r *Records) All() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.got...)
}

// Messages returns the messages so far.
func (r *Records) Messages() []string {
	var out []string
	for _, rec := range r.All() {
		out = append(out, rec.Message)
	}
	return out
}

// Matching returns the records whose message contains sub.
func (r *Records) Matching(sub string) []Record {
	var out []Record
	for _, rec := range r.All() {
		if strings.Contains(rec.Message, sub) {
			out = append(out, rec)
		}
	}
	return out
}

// Enabled implements slog.Handler: every level is recorded.
func (r *Records) Enabled(context.Context, slog.Level) bool { return true }

// Handle implements slog.Handler.
func (r *Records) Handle(_ context.Context, rec slog.Record) error {
	src := ""
	if s := rec.Source(); s != nil {
		src = s.File + ":" + strconv.Itoa(s.Line)
	}
	r.mu.Lock()
	r.got = append(r.got, Record{Level: rec.Level, Message: rec.Message, Source: src})
	r.mu.Unlock()
	return nil
}

// WithAttrs implements slog.Handler (gokeras adds no attributes; they
// are dropped).
func (r *Records) WithAttrs([]slog.Attr) slog.Handler { return r }

// WithGroup implements slog.Handler.
func (r *Records) WithGroup(string) slog.Handler { return r }
