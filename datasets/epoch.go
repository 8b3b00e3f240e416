package datasets

import (
	"context"
	"sync/atomic"
)

type epochKey struct{}

// epochState numbers the passes Shuffle makes within one epoch's
// iteration (Repeat opens its input several times).
type epochState struct {
	epoch uint64
	opens atomic.Uint64
}

// WithEpoch returns a context whose iterations belong to epoch: Shuffle
// then orders the k-th pass of the iteration by (seed, epoch, k) instead of
// by how many passes this process has made. Training loops pass the epoch
// so that a run resumed at epoch e (BackupAndRestore) sees the same orders
// as an uninterrupted one.
func WithEpoch(ctx context.Context, epoch int) context.Context {
	return context.WithValue(ctx, epochKey{}, &epochState{epoch: uint64(epoch)})
}

// passFromContext returns the pass number to use in ctx, if ctx carries an
// epoch.
func passFromContext(ctx context.Context) (uint64, bool) {
	st, ok := ctx.Value(epochKey{}).(*epochState)
	if !ok {
		return 0, false
	}
	return st.epoch<<20 | (st.opens.Add(1) - 1), true
}
