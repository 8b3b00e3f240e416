package keras

import (
	"log/slog"

	"github.com/gokeras/gokeras/internal/logging"
)

// SetLogger sends the warnings of every gokeras package to l: keras
// (LoadModel, checkpoints), its callbacks and optimizers, distribute (a
// parameter-server cluster without TLS, input sharding, a cuda build
// without a GPU) and the GPU executor. gokeras logs warnings at
// [slog.LevelWarn] and the reports a program asked for (GPU plans under
// verbose) at [slog.LevelInfo]; a message starts with the package that
// logged it ("keras: ", "callbacks: ", "distribute: ", ...).
//
// Without SetLogger, or after SetLogger(nil), they go to [slog.Default]
// as it is when each is logged, so [slog.SetDefault] routes them too.
// SetLogger(slog.New(slog.DiscardHandler)) silences them. It is safe to
// call at any time, from any goroutine.
func SetLogger(l *slog.Logger) { logging.Set(l) }
