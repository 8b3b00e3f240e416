package keras

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
	"github.com/sbinet/npyio/npz"
)

// Checkpoint is tf.train.Checkpoint for a model and an optimizer: Save
// writes every weight and every optimizer variable (slots, step count) to
// one .npz file; Restore loads them into a model of the same architecture,
// with or without a distribution strategy.
//
// Files are written to a temporary file and renamed, so a crash never
// leaves a half-written checkpoint.
type Checkpoint struct {
	Model     *Model
	Optimizer optimizers.Optimizer
	saved     int
}

// NewCheckpoint tracks model and optimizer (either may be nil).
func NewCheckpoint(model *Model, optimizer optimizers.Optimizer) *Checkpoint {
	return &Checkpoint{Model: model, Optimizer: optimizer}
}

// variables names every tracked variable by its place in the object graph,
// as tf.train.Checkpoint does, not by its (auto-generated) name: a new
// model of the same architecture restores a checkpoint whatever its layers
// are called. Weights are "model/layer_with_weights-<i>/<weight>",
// optimizer variables "optimizer/<i>" in the optimizer's stable order.
func (c *Checkpoint) variables() map[string]*ops.Variable {
	vars := map[string]*ops.Variable{}
	if c.Model != nil {
		i := 0
		for _, l := range c.Model.Layers() {
			ws := l.Weights()
			if len(ws) == 0 {
				continue
			}
			for _, v := range ws {
				vars[fmt.Sprintf("model/layer_with_weights-%d/%s", i, path.Base(v.Name()))] = v
			}
			i++
		}
	}
	if c.Optimizer != nil {
		for i, v := range c.Optimizer.Variables() {
			vars[fmt.Sprintf("optimizer/%d", i)] = v
		}
	}
	return vars
}

// Save writes the checkpoint to prefix-N.npz (N counting saves from 1, as
// tf.train.Checkpoint.save numbers them) and returns the path.
func (c *Checkpoint) Save(prefix string) (string, error) {
	c.saved++
	path := fmt.Sprintf("%s-%d.npz", prefix, c.saved)
	return path, c.Write(path)
}

// Write writes the checkpoint to path, atomically.
func (c *Checkpoint) Write(path string) error {
	vals := map[string]any{}
	for name, v := range c.variables() {
		vals[name] = v.Numpy()
	}
	return writeNPZ(path, vals)
}

// writeNPZ writes arrays to path through a temporary file in the same
// directory and a rename.
func writeNPZ(path string, vals map[string]any) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("keras: checkpoint %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("keras: checkpoint %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	w := npz.NewWriter(tmp)
	names := make([]string, 0, len(vals))
	for k := range vals {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := w.Write(k, vals[k]); err != nil {
			tmp.Close()
			return fmt.Errorf("keras: checkpoint %s: %s: %w", path, k, err)
		}
	}
	if err := w.Close(); err != nil {
		tmp.Close()
		return fmt.Errorf("keras: checkpoint %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Restore loads a checkpoint written by Save or Write into every replica
// copy of the tracked variables. Optimizer slots that do not exist yet
// (an optimizer that has not stepped) are created by its first step and
// start from zero; everything the checkpoint names must match in size.
func (c *Checkpoint) Restore(path string) error {
	r, err := npz.Open(path)
	if err != nil {
		return fmt.Errorf("keras: restore %s: %w", path, err)
	}
	defer r.Close()
	have := map[string]bool{}
	for _, k := range r.Keys() {
		have[strings.TrimSuffix(k, ".npy")] = true
	}
	for name, v := range c.variables() {
		if !have[name] {
			if strings.HasPrefix(name, "model/") {
				return fmt.Errorf("keras: restore %s: no value for %s", path, name)
			}
			continue
		}
		var data []float32
		if err := r.Read(name, &data); err != nil {
			return fmt.Errorf("keras: restore %s: %s: %w", path, name, err)
		}
		if err := v.Assign(data); err != nil {
			return fmt.Errorf("keras: restore %s: %s: the checkpoint has %d values, %s has shape %v (a different architecture?)", path, name, len(data), v.Name(), v.Shape())
		}
	}
	return nil
}

// LatestCheckpoint returns the newest prefix-N.npz in dir, as
// tf.train.latest_checkpoint, or "" if there is none.
func LatestCheckpoint(prefix string) string {
	matches, _ := filepath.Glob(prefix + "-*.npz")
	best, bestN := "", -1
	for _, m := range matches {
		var n int
		if _, err := fmt.Sscanf(strings.TrimPrefix(m, prefix+"-"), "%d.npz", &n); err == nil && n > bestN {
			best, bestN = m, n
		}
	}
	return best
}
