package keras

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
	"github.com/gokeras/gokeras/ops"
)

// Checkpoint is tf.train.Checkpoint for a model and an optimizer: Save
// writes every weight and every optimizer variable (slots, step count) to
// one .npz file; Restore loads them into a model of the same architecture,
// with or without a distribution strategy.
//
// Files are written to a temporary file and renamed, so a crash never
// leaves a half-written checkpoint, and carry a CRC-32C of every array,
// so that a corrupt file is an error on restore rather than wrong values.
//
// Restoring into a model that is not built yet (a Sequential model
// without an input shape, as the tutorials' `new_model = create_model();
// checkpoint.restore(path)`) is deferred, as tf.train.Checkpoint defers
// it until the variables exist: the file is read and verified at once,
// and its values are assigned when the model builds (at its first Fit,
// Evaluate, Predict or call). An error then is returned by the call that
// built the model.
type Checkpoint struct {
	Model     *Model
	Optimizer optimizers.Optimizer
	saved     int
	// deferred holds the bytes of a checkpoint restored before the
	// model was built, until the model builds.
	deferred *deferredRestore
}

// deferredRestore is a checkpoint file read before its model was built.
type deferredRestore struct {
	path string
	data []byte
}

// seedStateKey ends the checkpoint key of a seed generator's state.
const seedStateKey = "seed_generator_state"

// NewCheckpoint tracks model and optimizer (either may be nil).
func NewCheckpoint(model *Model, optimizer optimizers.Optimizer) *Checkpoint {
	return &Checkpoint{Model: model, Optimizer: optimizer}
}

// variables names every tracked variable by its place in the object graph,
// as tf.train.Checkpoint does, not by its (auto-generated) name: a new
// model of the same architecture restores a checkpoint whatever its layers
// are called. Weights are "model/" and their Keras 3 structure key
// ("model/layers/dense/vars/0", "model/layers/bidirectional/forward_layer/cell/vars/1";
// see saving_structure.go), optimizer variables "optimizer/<i>" in the
// optimizer's stable order.
func (c *Checkpoint) variables() (map[string]*ops.Variable, error) {
	vars := map[string]*ops.Variable{}
	if c.Model != nil {
		if err := c.Model.usable("Checkpoint"); err != nil {
			return nil, err
		}
		keys, svs, err := c.Model.structVars(false)
		if err != nil {
			return nil, err
		}
		for i, v := range svs {
			vars["model/"+keys[i]] = v.v
		}
		c.addSeedStates(vars)
	}
	c.addOptimizer(vars)
	return vars, nil
}

// legacyWeightName is a weight's base name as gokeras named it when
// checkpoints were keyed so: DepthwiseConv's kernel was
// "depthwise_kernel" and LayerScale's weight "gamma" (both are named as
// Keras 3 names them now).
func legacyWeightName(l layers.Layer, name string) string {
	switch l.ClassName() {
	case "DepthwiseConv1D", "DepthwiseConv2D":
		if name == "kernel" {
			return "depthwise_kernel"
		}
	case "LayerScale":
		return "gamma"
	}
	return name
}

// legacyVariables names the variables as checkpoints did before structure
// keys: "model/layer_with_weights-<i>/<weight base name>".
func (c *Checkpoint) legacyVariables() map[string]*ops.Variable {
	vars := map[string]*ops.Variable{}
	if c.Model != nil {
		i := 0
		for _, l := range c.Model.Layers() {
			ws := l.Weights()
			if len(ws) == 0 {
				continue
			}
			for _, v := range ws {
				vars[fmt.Sprintf("model/layer_with_weights-%d/%s", i, legacyWeightName(l, path.Base(v.Name())))] = v
			}
			i++
		}
		c.addSeedStates(vars)
	}
	c.addOptimizer(vars)
	return vars
}

// addSeedStates adds the seed generator states (Dropout, random
// augmentation): not weights, but a resumed run must draw what an
// uninterrupted one would; optional on restore (checkpoints written
// before them).
func (c *Checkpoint) addSeedStates(vars map[string]*ops.Variable) {
	for j, l := range c.Model.Layers() {
		for k, g := range layers.SeedGenerators(l) {
			vars[fmt.Sprintf("model/layer-%d/seed_generator-%d/%s", j, k, seedStateKey)] = g.State()
		}
	}
}

// addOptimizer adds the optimizer's variables as "optimizer/<i>"; a
// LossScaleOptimizer's are its inner optimizer's, and its step_counter
// and dynamic_scale as "optimizer/step_counter" and
// "optimizer/dynamic_scale" (mixed_saving.go).
func (c *Checkpoint) addOptimizer(vars map[string]*ops.Variable) {
	if c.Optimizer == nil {
		return
	}
	vs := c.Optimizer.Variables()
	if inner, counter, scale, ok := lossScaleCheckpointVars(c.Optimizer); ok {
		vs = inner
		vars[ckptStepCounterKey], vars[ckptDynamicScaleKey] = counter, scale
	}
	for i, v := range vs {
		vars[fmt.Sprintf("optimizer/%d", i)] = v
	}
}

// makeSlots makes the model's optimizer create its slots when it is the
// checkpoint's optimizer, has not trained yet and the file holds more
// optimizer variables than it has (its slots), so that they are restored
// rather than start from zero.
func (c *Checkpoint) makeSlots(r *npzReader, vars map[string]*ops.Variable) (map[string]*ops.Variable, error) {
	if c.Model == nil || c.Optimizer == nil || c.Model.optimizer != c.Optimizer {
		return vars, nil
	}
	n := 0
	for k := range vars {
		if strings.HasPrefix(k, "optimizer/") && k != ckptStepCounterKey && k != ckptDynamicScaleKey {
			n++
		}
	}
	if !r.has(fmt.Sprintf("optimizer/%d", n)) {
		return vars, nil
	}
	if err := c.Model.createOptimizerSlots(); err != nil {
		return nil, err
	}
	return c.variables()
}

// Save writes the checkpoint to prefix-N.npz (N counting saves from 1, as
// tf.train.Checkpoint.save numbers them) and returns the path.
//
// As tf.train.Checkpoint.save, it also records the path as the latest
// checkpoint of its directory (the state file "checkpoint" there), which
// [LatestCheckpoint] of the directory reads.
func (c *Checkpoint) Save(prefix string) (string, error) {
	c.saved++
	path := fmt.Sprintf("%s-%d.npz", prefix, c.saved)
	if err := c.Write(path); err != nil {
		return "", err
	}
	if err := updateCheckpointState(filepath.Dir(path), filepath.Base(path), nil); err != nil {
		return "", fmt.Errorf("keras: checkpoint %s: %w", path, err)
	}
	return path, nil
}

// Write writes the checkpoint to path, atomically: each variable as a
// float32 array of its shape, and the CRC-32C of every array, which
// [Checkpoint.Restore] verifies.
func (c *Checkpoint) Write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("keras: checkpoint %s: %w", path, err)
	}
	vars, err := c.variables()
	if err != nil {
		return fmt.Errorf("keras: checkpoint %s: %w", path, err)
	}
	err = writeFileAtomic(path, func(w io.Writer) error {
		nw := newNPZWriter(w).checksummed()
		for _, name := range sortedKeys(vars) {
			v := vars[name]
			if err := nw.addFloat32(name, v.Shape(), v.Numpy()); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nw.close()
	})
	if err != nil {
		return fmt.Errorf("keras: checkpoint %s: %w", path, err)
	}
	return nil
}

// Restore loads a checkpoint written by Save or Write into every replica
// copy of the tracked variables. Optimizer slots that do not exist yet
// (an optimizer that has not stepped) are made first when the optimizer
// is the model's (else they are created by its first step and start from
// zero); everything the checkpoint names must match in size. A
// LossScaleOptimizer's loss scale and step counter are restored with it
// (a scale that is not positive and finite is an error).
// Nothing is assigned unless every value is read and verified: the
// checksums that Write stores are checked, and a file that fails them is
// an error naming the file and the variable. Checkpoints written before
// checksums were stored still load (the zip CRC-32 of each member is still
// checked).
func (c *Checkpoint) Restore(path string) error {
	if err := c.restore(path); err != nil {
		return fmt.Errorf("keras: restore %s: %w", path, err)
	}
	return nil
}

func (c *Checkpoint) restore(path string) error {
	if c.Model != nil {
		if err := c.Model.usable("Checkpoint"); err != nil {
			return err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := newNPZReader(f, st.Size())
	if err != nil {
		return err
	}
	if c.Model != nil && !c.Model.Built() {
		return c.deferUntilBuilt(path, f, st.Size(), r)
	}
	c.deferred = nil
	return c.restoreFrom(r)
}

// deferUntilBuilt keeps the checkpoint at path for a model that is not
// built: every array is read now (so a corrupt or foreign file fails
// here, not at the first Fit), the file's bytes are kept, and the model
// restores them once it is built.
func (c *Checkpoint) deferUntilBuilt(path string, f *os.File, size int64, r *npzReader) error {
	if !r.hasPrefix("model/") {
		return fmt.Errorf("model %q is not built and the file holds no model weights", c.Model.name)
	}
	for _, k := range r.keys {
		if _, err := r.read(k, func([]int) error { return nil }); err != nil {
			return err
		}
	}
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil {
		return err
	}
	c.deferred = &deferredRestore{path: path, data: data}
	c.Model.onBuilt = append(c.Model.onBuilt, c.restoreDeferred)
	return nil
}

// restoreDeferred restores the checkpoint kept by deferUntilBuilt, now
// that the model is built.
func (c *Checkpoint) restoreDeferred() error {
	d := c.deferred
	if d == nil {
		return nil // restored again meanwhile
	}
	c.deferred = nil
	r, err := newNPZReader(bytes.NewReader(d.data), int64(len(d.data)))
	if err == nil {
		err = c.restoreFrom(r)
	}
	if err != nil {
		return fmt.Errorf("keras: restore %s (deferred until model %q was built): %w", d.path, c.Model.name, err)
	}
	return nil
}

// Pending reports whether a checkpoint restored into a model that was not
// built yet still waits for the model to build (see [Checkpoint]).
func (c *Checkpoint) Pending() bool { return c.deferred != nil }

func (c *Checkpoint) restoreFrom(r *npzReader) error {
	vars, err := c.variables()
	if err != nil {
		return err
	}
	if !r.has(firstKey(vars, "model/layers/")) && r.has(firstKey(c.legacyVariables(), "model/layer_with_weights-")) {
		vars = c.legacyVariables() // written before structure keys
	} else if vars, err = c.makeSlots(r, vars); err != nil {
		return err
	}
	if err := checkLossScaleKeys(r, vars); err != nil { // mixed_saving.go
		return err
	}
	var todo []*ops.Variable
	var vals [][]float32
	for _, name := range sortedKeys(vars) {
		v := vars[name]
		if !r.has(name) {
			if strings.HasPrefix(name, "model/") && !strings.HasSuffix(name, "/"+seedStateKey) {
				return fmt.Errorf("no value for %s", name)
			}
			continue
		}
		a, err := r.read(name, func(shape []int) error {
			if n := ops.Shape(shape).Size(); n != v.Shape().Size() {
				return fmt.Errorf("the checkpoint has %d values, %s has shape %v (a different architecture?)", n, v.Name(), v.Shape())
			}
			return nil
		})
		if err != nil {
			return err
		}
		data, err := a.float32s()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := checkLossScaleValue(name, v, data); err != nil { // mixed_saving.go
			return err
		}
		todo = append(todo, v)
		vals = append(vals, data)
	}
	return assignAll(todo, vals)
}

// firstKey is the first key of vars (in sorted order) with prefix, "" if
// none.
func firstKey(vars map[string]*ops.Variable, prefix string) string {
	for _, k := range sortedKeys(vars) {
		if strings.HasPrefix(k, prefix) {
			return k
		}
	}
	return ""
}
