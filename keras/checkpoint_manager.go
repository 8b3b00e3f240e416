package keras

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// checkpointStateFile is the name of a directory's checkpoint state, as
// TensorFlow names it: the latest checkpoint and the ones kept.
const checkpointStateFile = "checkpoint"

// maxCheckpointState bounds the state file read (a text file of a few
// lines a checkpoint).
const maxCheckpointState = 1 << 20

// checkpointState is a directory's checkpoint state: file names relative
// to the directory, oldest first, the latest last.
type checkpointState struct {
	latest string
	all    []string
}

// readCheckpointState reads dir's state file, TensorFlow's text format
// (`model_checkpoint_path: "ckpt-2.npz"`, then one
// `all_model_checkpoint_paths: "..."` line a checkpoint). A missing file
// is no state and no error.
func readCheckpointState(dir string) (checkpointState, error) {
	f, err := os.Open(filepath.Join(dir, checkpointStateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return checkpointState{}, nil
	}
	if err != nil {
		return checkpointState{}, err
	}
	defer f.Close()
	var st checkpointState
	sc := bufio.NewScanner(io.LimitReader(f, maxCheckpointState))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		name, err := strconv.Unquote(strings.TrimSpace(val))
		if err != nil || name == "" || strings.ContainsAny(name, "\x00\n") {
			return checkpointState{}, fmt.Errorf("%s: bad line %q", filepath.Join(dir, checkpointStateFile), sc.Text())
		}
		switch strings.TrimSpace(key) {
		case "model_checkpoint_path":
			st.latest = name
		case "all_model_checkpoint_paths":
			st.all = append(st.all, name)
		}
	}
	return st, sc.Err()
}

// writeCheckpointState writes dir's state file atomically.
func writeCheckpointState(dir string, st checkpointState) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "model_checkpoint_path: %s\n", strconv.Quote(st.latest))
	for _, p := range st.all {
		fmt.Fprintf(&b, "all_model_checkpoint_paths: %s\n", strconv.Quote(p))
	}
	return writeFileAtomic(filepath.Join(dir, checkpointStateFile), func(w io.Writer) error {
		_, err := w.Write(b.Bytes())
		return err
	})
}

// updateCheckpointState records name (relative to dir) as dir's latest
// checkpoint. all, when not nil, replaces the list of kept checkpoints;
// otherwise name is appended to it.
func updateCheckpointState(dir, name string, all []string) error {
	st, err := readCheckpointState(dir)
	if err != nil {
		st = checkpointState{} // a damaged state is rewritten, as TensorFlow does
	}
	st.latest = name
	if all != nil {
		st.all = all
	} else if !slices.Contains(st.all, name) {
		st.all = append(st.all, name)
	}
	return writeCheckpointState(dir, st)
}

// LatestCheckpoint returns the newest checkpoint, as
// tf.train.latest_checkpoint, or "" if there is none. Given a directory
// (TensorFlow's checkpoint_dir) it is the checkpoint the directory's
// state file names (written by [Checkpoint.Save] and
// [CheckpointManager.Save]), or without one the prefix-N.npz of highest N
// there; given a prefix ("dir/ckpt"), the prefix-N.npz of highest N.
func LatestCheckpoint(dirOrPrefix string) string {
	if fi, err := os.Stat(dirOrPrefix); err == nil && fi.IsDir() {
		if st, err := readCheckpointState(dirOrPrefix); err == nil && st.latest != "" {
			p := st.latest
			if !filepath.IsAbs(p) {
				p = filepath.Join(dirOrPrefix, p)
			}
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		return newestNumbered(filepath.Join(dirOrPrefix, "*"))
	}
	return newestNumbered(dirOrPrefix)
}

// newestNumbered returns the prefix-N.npz of highest N for a prefix that
// may hold a glob ("dir/*"), "" if none.
func newestNumbered(prefix string) string {
	best, bestN := "", -1
	for _, m := range globNumbered(prefix) {
		if n := checkpointNumber(m); n > bestN {
			best, bestN = m, n
		}
	}
	return best
}

// globNumbered lists the files prefix-N.npz.
func globNumbered(prefix string) []string {
	matches, _ := filepath.Glob(prefix + "-*.npz")
	var out []string
	for _, m := range matches {
		if checkpointNumber(m) >= 0 {
			out = append(out, m)
		}
	}
	return out
}

// checkpointNumber is N of a file named ...-N.npz, -1 if it is not one.
func checkpointNumber(path string) int {
	base := strings.TrimSuffix(filepath.Base(path), ".npz")
	i := strings.LastIndexByte(base, '-')
	if i < 0 || !strings.HasSuffix(path, ".npz") {
		return -1
	}
	n, err := strconv.Atoi(base[i+1:])
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// CheckpointManager is tf.train.CheckpointManager: it saves a
// [Checkpoint] as directory/ckpt-N.npz, numbered on from the checkpoints
// already there, keeps the newest MaxToKeep of them (deleting older ones
// it made), and records them in the directory's state file, so that
// [LatestCheckpoint] of the directory and a new manager find them.
type CheckpointManager struct {
	Checkpoint *Checkpoint
	Directory  string
	// MaxToKeep is how many checkpoints to keep; 0 or less keeps them
	// all (TensorFlow's max_to_keep=None).
	MaxToKeep int
	// CheckpointName is the file prefix (default "ckpt").
	CheckpointName string

	kept []string // file names in Directory, oldest first
	next int
}

// NewCheckpointManager makes a manager of c in directory (created if
// needed), picking up the checkpoints its state file lists, as
// tf.train.CheckpointManager(checkpoint, directory, max_to_keep).
func NewCheckpointManager(c *Checkpoint, directory string, maxToKeep int) (*CheckpointManager, error) {
	if c == nil {
		return nil, errors.New("keras: NewCheckpointManager: nil checkpoint")
	}
	if directory == "" {
		return nil, errors.New("keras: NewCheckpointManager: empty directory")
	}
	if err := os.MkdirAll(directory, 0o755); err != nil {
		return nil, fmt.Errorf("keras: NewCheckpointManager: %w", err)
	}
	m := &CheckpointManager{Checkpoint: c, Directory: directory, MaxToKeep: maxToKeep, CheckpointName: "ckpt"}
	st, err := readCheckpointState(directory)
	if err != nil {
		return nil, fmt.Errorf("keras: NewCheckpointManager: %w", err)
	}
	for _, p := range st.all {
		if _, err := os.Stat(filepath.Join(directory, p)); err == nil && !filepath.IsAbs(p) {
			m.kept = append(m.kept, p)
		}
	}
	for _, p := range globNumbered(filepath.Join(directory, "*")) {
		m.next = max(m.next, checkpointNumber(p))
	}
	return m, nil
}

// Save writes the next checkpoint, deletes the oldest beyond MaxToKeep
// and returns the new file's path.
func (m *CheckpointManager) Save() (string, error) {
	name := m.CheckpointName
	if name == "" {
		name = "ckpt"
	}
	m.next++
	file := fmt.Sprintf("%s-%d.npz", name, m.next)
	path := filepath.Join(m.Directory, file)
	if err := m.Checkpoint.Write(path); err != nil {
		return "", err
	}
	m.kept = append(m.kept, file)
	var drop []string
	if m.MaxToKeep > 0 && len(m.kept) > m.MaxToKeep {
		drop = m.kept[:len(m.kept)-m.MaxToKeep]
		m.kept = slices.Clone(m.kept[len(m.kept)-m.MaxToKeep:])
	}
	// The state first, then the deletions: a crash in between leaves an
	// extra file, never a state naming a deleted one.
	if err := updateCheckpointState(m.Directory, file, slices.Clone(m.kept)); err != nil {
		return "", fmt.Errorf("keras: checkpoint manager %s: %w", m.Directory, err)
	}
	for _, f := range drop {
		if err := os.Remove(filepath.Join(m.Directory, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("keras: checkpoint manager %s: %w", m.Directory, err)
		}
	}
	return path, nil
}

// LatestCheckpoint returns the newest checkpoint kept, "" if none.
func (m *CheckpointManager) LatestCheckpoint() string {
	if len(m.kept) == 0 {
		return ""
	}
	return filepath.Join(m.Directory, m.kept[len(m.kept)-1])
}

// Checkpoints returns the paths of the kept checkpoints, oldest first.
func (m *CheckpointManager) Checkpoints() []string {
	out := make([]string, len(m.kept))
	for i, f := range m.kept {
		out[i] = filepath.Join(m.Directory, f)
	}
	return out
}
