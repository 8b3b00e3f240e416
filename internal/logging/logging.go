// Package logging is the one logger through which every gokeras package
// reports what is worth a warning but not an error (a model loaded without
// its compile configuration, a monitored metric missing from the logs, a
// parameter-server cluster without TLS, an op the GPU cannot run).
//
// Programs choose it with keras.SetLogger, which calls [Set]; without one
// the messages go to [slog.Default] as it is at the moment of each message,
// so slog.SetDefault routes them as well. One atomic pointer shared by the
// packages, rather than a logger option on every call that might warn: the
// warnings come from deep inside Fit, LoadModel, optimizers and
// strategies, and a program wants them all routed (or silenced) at once.
package logging

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"
)

var logger atomic.Pointer[slog.Logger]

// Set makes l the logger of every gokeras package; nil restores
// [slog.Default]. It is safe to call concurrently with logging.
func Set(l *slog.Logger) { logger.Store(l) }

// Logger returns the logger set with [Set], else [slog.Default].
func Logger() *slog.Logger {
	if l := logger.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// Warnf logs fmt.Sprintf(format, args...) at [slog.LevelWarn], with the
// source position of its caller (not this package's).
func Warnf(format string, args ...any) { logf(slog.LevelWarn, format, args...) }

// Infof logs fmt.Sprintf(format, args...) at [slog.LevelInfo] (reports a
// program asked for, such as the GPU executor's verbose plans).
func Infof(format string, args ...any) { logf(slog.LevelInfo, format, args...) }

// logf formats only when the handler takes the level, and records the
// caller of Warnf or Infof as the record's source (slog's own wrappers
// would name this file).
func logf(level slog.Level, format string, args ...any) {
	l := Logger()
	ctx := context.Background()
	if !l.Enabled(ctx, level) {
		return
	}
	var pcs [1]uintptr
	runtime.Callers(3, pcs[:]) // runtime.Callers, logf, Warnf/Infof
	r := slog.NewRecord(time.Now(), level, fmt.Sprintf(format, args...), pcs[0])
	_ = l.Handler().Handle(ctx, r)
}
