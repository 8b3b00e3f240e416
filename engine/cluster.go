package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Cluster is implemented by strategies spanning several processes
// (workers), such as distribute's MultiWorkerMirroredStrategy. Callbacks
// that write files ask the strategy for it (see [ClusterOf]) so that only
// the chief writes to the real directory, as TensorFlow's multi-worker
// Keras callbacks do.
type Cluster interface {
	// IsChief reports whether this process is TF's "chief": task "chief"
	// 0, or worker 0 when the cluster has no chief.
	IsChief() bool
	// TaskType is "chief" or "worker".
	TaskType() string
	// TaskID is the index of this process among the tasks of its type.
	TaskID() int
	// NumWorkers is the number of processes training together, the chief
	// included.
	NumWorkers() int
}

// ClusterOf returns s as a [Cluster] when it spans several processes. A
// nil strategy, or one that does not implement Cluster (MirroredStrategy,
// [Default]), is a single process: ok is false and the caller writes
// where it was asked to.
func ClusterOf(s any) (c Cluster, ok bool) {
	if s == nil {
		return nil, false
	}
	c, ok = s.(Cluster)
	return c, ok
}

// IsChief reports whether the process running strategy s writes files:
// true for a single-process strategy, c.IsChief() for a [Cluster].
func IsChief(s any) bool {
	c, ok := ClusterOf(s)
	return !ok || c.IsChief()
}

// WorkerTempBase is the name of the directory a non-chief worker writes
// to inside the directory it was given: "workertemp_<task id>", as
// TensorFlow's write_dirpath names it.
func WorkerTempBase(c Cluster) string {
	return "workertemp_" + strconv.Itoa(c.TaskID())
}

// ChiefOrTempDir returns the directory this process should write dir's
// files to under strategy s (TF's write_dirpath). The chief, and any
// single-process strategy, writes to dir itself and cleanup does nothing.
// Another worker gets dir/workertemp_<task id>, created here, and cleanup
// removes it with everything in it, so that only the chief's files
// remain. A dir that already is this worker's temporary directory is
// returned unchanged. cleanup is never nil and may be called more than
// once.
func ChiefOrTempDir(s any, dir string) (writeDir string, cleanup func() error, err error) {
	nop := func() error { return nil }
	c, ok := ClusterOf(s)
	if !ok || c.IsChief() {
		return dir, nop, nil
	}
	base := WorkerTempBase(c)
	tmp := dir
	if filepath.Base(filepath.Clean(dir)) != base {
		tmp = filepath.Join(dir, base)
	}
	// The chief may remove dir meanwhile (BackupAndRestore's end of
	// training removes the backup folder once it is empty, possibly while
	// a worker that lags by its last epoch's callbacks makes its
	// temporary directory inside): MkdirAll then fails with ErrNotExist
	// between its steps, and making the path again succeeds.
	for range 3 {
		if err = os.MkdirAll(tmp, 0o755); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return "", nop, fmt.Errorf("engine: temporary directory of %s %d: %w", c.TaskType(), c.TaskID(), err)
	}
	return tmp, func() error {
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("engine: removing temporary directory of %s %d: %w", c.TaskType(), c.TaskID(), err)
		}
		return nil
	}, nil
}

// ChiefOrTempFile is [ChiefOrTempDir] for a file path (TF's
// write_filepath): the chief writes path; another worker writes a file of
// the same name in its temporary directory beside it, which cleanup
// removes.
func ChiefOrTempFile(s any, path string) (writePath string, cleanup func() error, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	wdir, cleanup, err := ChiefOrTempDir(s, dir)
	if err != nil {
		return "", cleanup, err
	}
	if !IsChief(s) {
		return filepath.Join(wdir, base), cleanup, nil
	}
	return path, cleanup, nil
}
