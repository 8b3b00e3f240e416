package keras

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/ops"
)

// SaveWeights writes the model's weights to path (Keras' save_weights).
// A name ending in .weights.h5 gets Keras 3's weights file, which Python
// Keras' load_weights reads: an HDF5 file with every variable at its
// structure key ("layers/dense/vars/0", see saving_structure.go) and the
// optimizer's variables ("optimizer/vars/0", ...) when the model is
// compiled. A name ending in .npz gets a NumPy npz archive of the weights
// under the same keys. Other names are an error, as in Keras.
func (m *Model) SaveWeights(path string) error {
	if err := m.usable("SaveWeights"); err != nil {
		return err
	}
	if err := m.saveWeights(path); err != nil {
		return fmt.Errorf("keras: SaveWeights %s: %w", path, err)
	}
	return nil
}

func (m *Model) saveWeights(path string) error {
	h5 := strings.HasSuffix(path, ".weights.h5")
	if !h5 && !strings.HasSuffix(path, ".npz") {
		return errors.New("the file name must end in .weights.h5 (Keras 3's weights file) or .npz (a NumPy archive)")
	}
	if !m.Built() {
		return m.notBuilt()
	}
	if h5 {
		root, err := m.h5Tree(true)
		if err != nil {
			return err
		}
		b, err := encodeH5(root)
		if err != nil {
			return err
		}
		return writeFileAtomic(path, func(w io.Writer) error { _, err := w.Write(b); return err })
	}
	return writeFileAtomic(path, func(w io.Writer) error {
		nw := newNPZWriter(w)
		if err := m.writeStructVars(nw, false); err != nil {
			return err
		}
		return nw.close()
	})
}

// LoadWeights sets the model's weights from a file (Keras' load_weights):
// a Keras 3 .weights.h5 file (written by [Model.SaveWeights] or by Python
// Keras), the weights of a .keras archive, a legacy Keras 2 .h5 file
// (weights-only or whole-model), or an npz archive. Variables are matched
// by their place in the model's structure, as Keras 3 matches them, so a
// model rebuilt with the same architecture loads the file whatever its
// layers are called; legacy .h5 files by layer order, as Keras 2 does.
// The file must hold every variable of the model with its shape: the
// error names the first mismatch (path, expected shape, the file's).
// Nothing is assigned unless every check passes. Every replica copy of a
// mirrored weight is set. The optimizer's variables of a .weights.h5 file
// are loaded too when the model is compiled (with a count that differs
// they are skipped with a warning, as Keras skips them).
func (m *Model) LoadWeights(path string) error {
	if err := m.usable("LoadWeights"); err != nil {
		return err
	}
	if err := m.loadWeights(path); err != nil {
		return fmt.Errorf("keras: LoadWeights %s: %w", path, err)
	}
	return nil
}

func (m *Model) loadWeights(path string) error {
	if !m.Built() {
		return m.notBuilt()
	}
	switch {
	case strings.HasSuffix(path, ".keras"):
		zr, err := zip.OpenReader(path)
		if err != nil {
			return fmt.Errorf("not a .keras (zip) archive: %w", err)
		}
		defer zr.Close()
		apply, err := m.archiveWeights(&zr.Reader, path, true)
		if err != nil {
			return err
		}
		return apply()
	case strings.HasSuffix(path, ".h5"), strings.HasSuffix(path, ".hdf5"):
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		root, err := decodeH5(f, st.Size(), h5Limits(m))
		if err != nil {
			return err
		}
		var apply func() error
		if isLegacyH5(root) {
			apply, err = m.legacyH5Restore(root)
		} else {
			apply, err = m.h5Restore(root, true)
		}
		if err != nil {
			return err
		}
		return apply()
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
	apply, err := m.npzWeights(r)
	if err != nil {
		return err
	}
	return apply()
}

// npzWeights checks the weights of an npz archive, by structure key, or
// by variable name for files written before structure keys, and returns
// the assignment.
func (m *Model) npzWeights(r *npzReader) (func() error, error) {
	keys, vars, err := m.structVars(false)
	if err != nil {
		return nil, err
	}
	if len(keys) > 0 && !r.has(keys[0]) {
		ws, err := m.namedWeights()
		if err != nil {
			return nil, err
		}
		if len(ws) > 0 && r.has(ws[0].Name()) {
			vals, err := readVariables(r, "", ws)
			if err != nil {
				return nil, err
			}
			return func() error { return assignAll(ws, vals) }, nil
		}
	}
	vs := make([]*ops.Variable, len(vars))
	for i, v := range vars {
		vs[i] = v.v
	}
	vals, err := readKeyed(r, keys, vs)
	if err != nil {
		return nil, err
	}
	return func() error { return assignAll(vs, vals) }, nil
}

// writeStructVars writes the model's variables under their structure
// keys, the optimizer's too when withOptimizer (the step count as int64,
// the rest as float32).
func (m *Model) writeStructVars(nw *npzWriter, withOptimizer bool) error {
	keys, vars, err := m.structVars(withOptimizer)
	if err != nil {
		return err
	}
	for i, v := range vars {
		var err error
		switch v.kind {
		case kindVariable:
			err = nw.addFloat32(keys[i], v.shape, v.v.Numpy())
		case kindIterations:
			err = nw.addInt64(keys[i], nil, []int64{m.optimizer.Iterations()})
		case kindIntVariable:
			err = nw.addInt64(keys[i], nil, []int64{int64(v.v.Data(0)[0])})
		case kindZeroInt:
			err = nw.addInt64(keys[i], nil, []int64{0})
		case kindLearningRate:
			// float64 here, so that a checkpoint restores the rate exactly
			// (Keras' variable, and the .weights.h5 file, hold a float32).
			err = nw.addFloat64(keys[i], nil, []float64{m.optimizer.CurrentLearningRate()})
		default:
			d, derr := m.h5Dataset("", v)
			if derr != nil {
				return derr
			}
			err = nw.addFloat32(keys[i], nil, d.Value.([]float32))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readKeyed reads keys[i] for every variable, checking shapes, without
// assigning anything.
func readKeyed(r *npzReader, keys []string, vars []*ops.Variable) ([][]float32, error) {
	out := make([][]float32, len(vars))
	for i, v := range vars {
		key := keys[i]
		if !r.has(key) {
			return nil, fmt.Errorf("%s (weight %s, shape %s) is missing from the file, which holds %s", key, v.Name(), shapeStr(v.Shape()), r.describe())
		}
		a, err := r.read(key, func(shape []int) error {
			if !slices.Equal(shape, []int(v.Shape())) {
				return fmt.Errorf("expected shape %s, the file has %s", shapeStr(v.Shape()), shapeStr(shape))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if out[i], err = a.float32s(); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	return out, nil
}

// SaveCheckpoint writes the model's weights, its optimizer's variables
// (iterations and slots) and the epoch to resume at to one npz archive,
// with the CRC-32C of every array ("checkpoint/crc32c"), which
// [Model.RestoreCheckpoint] verifies. The
// epoch is the number of epochs the model's last Fit completed (per
// [Model.History]): what [Model.RestoreCheckpoint] returns and
// FitConfig.InitialEpoch takes. Use [Model.SaveCheckpointEpoch] to record
// another.
func (m *Model) SaveCheckpoint(path string) error {
	if err := m.usable("SaveCheckpoint"); err != nil {
		return err
	}
	return m.SaveCheckpointEpoch(path, m.completedEpochs())
}

// SaveCheckpointEpoch is [Model.SaveCheckpoint] recording epoch as the
// epoch to resume at.
func (m *Model) SaveCheckpointEpoch(path string, epoch int) error {
	return m.SaveCheckpointAt(path, epoch, 0)
}

// SaveCheckpointAt is [Model.SaveCheckpoint] in the middle of an epoch:
// step batches of epoch (counted from 0) are done, and a Fit resuming
// from it ([Model.RestoreCheckpointAt], BackupAndRestore) skips them and
// trains the epoch's next batch, as TensorFlow's BackupAndRestore resumes
// at the saved batch. The random generators' states are in the file, so
// the resumed run draws what the uninterrupted one would have.
func (m *Model) SaveCheckpointAt(path string, epoch, step int) error {
	if err := m.usable("SaveCheckpoint"); err != nil {
		return err
	}
	if step < 0 {
		return fmt.Errorf("keras: SaveCheckpoint %s: negative step %d", path, step)
	}
	if !strings.HasSuffix(path, ".npz") {
		return fmt.Errorf("keras: SaveCheckpoint %s: the file name must end in .npz", path)
	}
	if !m.Built() {
		return fmt.Errorf("keras: SaveCheckpoint %s: %w", path, m.notBuilt())
	}
	if epoch < 0 {
		return fmt.Errorf("keras: SaveCheckpoint %s: negative epoch %d", path, epoch)
	}
	err := writeFileAtomic(path, func(w io.Writer) error {
		nw := newNPZWriter(w).checksummed()
		if err := m.writeStructVars(nw, true); err != nil {
			return err
		}
		if err := m.writeSeedStates(nw); err != nil {
			return err
		}
		if err := nw.addInt64(ckptEpochKey, nil, []int64{int64(epoch)}); err != nil {
			return err
		}
		if step > 0 {
			if err := nw.addInt64(ckptStepKey, nil, []int64{int64(step)}); err != nil {
				return err
			}
		}
		if len(m.inputs) == 1 {
			s := m.inputs[0].Shape()[1:]
			dims := make([]int64, len(s))
			for i, d := range s {
				dims[i] = int64(d)
			}
			if err := nw.addInt64(ckptInputShapeKey, []int{len(dims)}, dims); err != nil {
				return err
			}
		}
		return nw.close()
	})
	if err != nil {
		return fmt.Errorf("keras: SaveCheckpoint %s: %w", path, err)
	}
	return nil
}

// RestoreCheckpoint restores what [Model.SaveCheckpoint] wrote: the
// weights, the optimizer's variables (creating the optimizer's slots if it
// has not trained yet) and its learning rate when it is a constant, and
// returns the epoch to resume at (pass it as FitConfig.InitialEpoch). A
// Sequential model not built yet is built from the input shape the
// checkpoint records. Nothing is assigned unless every weight and optimizer
// variable is found with its shape and its checksum. A file that fails its
// checksums is an error naming the file and the array; checkpoints written
// before checksums were stored still load (the zip CRC-32 of each member is
// still checked).
//
// A checkpoint written in the middle of an epoch ([Model.SaveCheckpointAt])
// returns that epoch: passed as InitialEpoch, Fit trains it again from its
// first batch with the restored weights (Keras 3's BackupAndRestore does
// so); [Model.RestoreCheckpointAt] also returns the batches to skip.
func (m *Model) RestoreCheckpoint(path string) (epoch int, err error) {
	epoch, _, err = m.RestoreCheckpointAt(path)
	return epoch, err
}

// RestoreCheckpointAt is [Model.RestoreCheckpoint] returning, with the
// epoch to resume at, the batches of it already done (0 for a checkpoint
// of an epoch's end).
func (m *Model) RestoreCheckpointAt(path string) (epoch, step int, err error) {
	if err := m.usable("RestoreCheckpoint"); err != nil {
		return 0, 0, err
	}
	epoch, step, err = m.restoreCheckpoint(path)
	if err != nil {
		return 0, 0, fmt.Errorf("keras: RestoreCheckpoint %s: %w", path, err)
	}
	return epoch, step, nil
}

func (m *Model) restoreCheckpoint(path string) (int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	r, err := newNPZReader(f, st.Size())
	if err != nil {
		return 0, 0, err
	}
	if !r.has(ckptEpochKey) {
		return 0, 0, fmt.Errorf("no %q array: not a checkpoint (use LoadWeights for weights files)", ckptEpochKey)
	}
	a, err := r.read(ckptEpochKey, atMost(1))
	if err != nil {
		return 0, 0, err
	}
	ep, err := a.int64s()
	if err != nil || len(ep) != 1 || ep[0] < 0 {
		return 0, 0, fmt.Errorf("%q is not a non-negative integer scalar", ckptEpochKey)
	}
	step := 0
	if r.has(ckptStepKey) {
		a, err := r.read(ckptStepKey, atMost(1))
		if err != nil {
			return 0, 0, err
		}
		st, err := a.int64s()
		if err != nil || len(st) != 1 || st[0] < 0 || st[0] > math.MaxInt32 {
			return 0, 0, fmt.Errorf("%q is not a non-negative integer scalar", ckptStepKey)
		}
		step = int(st[0])
	}
	if !m.Built() && m.sequential && r.has(ckptInputShapeKey) {
		a, err := r.read(ckptInputShapeKey, atMost(maxNPYRank))
		if err != nil {
			return 0, 0, err
		}
		dims, err := a.int64s()
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", ckptInputShapeKey, err)
		}
		shape := make(ops.Shape, len(dims))
		for i, d := range dims {
			if d <= 0 {
				return 0, 0, fmt.Errorf("%s: bad input shape %v", ckptInputShapeKey, dims)
			}
			shape[i] = int(d)
		}
		if err := m.build(shape); err != nil {
			return 0, 0, err
		}
	}
	if !m.Built() {
		return 0, 0, m.notBuilt()
	}
	var apply func() error
	if m.hasStructKeys(r) {
		apply, err = m.npzCheckpointRestore(r)
	} else {
		apply, err = m.npzNamedRestore(r)
	}
	if err != nil {
		return 0, 0, err
	}
	seeds, err := m.readSeedStates(r)
	if err != nil {
		return 0, 0, err
	}
	if err := apply(); err != nil {
		return 0, 0, err
	}
	if err := seeds(); err != nil {
		return 0, 0, err
	}
	return int(ep[0]), step, nil
}

// hasStructKeys reports whether an npz archive keys variables by
// structure (files written before structure keys use variable names).
func (m *Model) hasStructKeys(r *npzReader) bool {
	for _, k := range r.keys {
		if strings.HasPrefix(k, "layers/") || strings.HasPrefix(k, "vars/") || strings.HasPrefix(k, "optimizer/vars/") {
			return true
		}
	}
	return false
}

// npzCheckpointRestore checks a checkpoint keyed by structure against the
// model and its optimizer (making the optimizer's slots first when the
// file has them and the optimizer has not trained yet) and returns the
// assignment. Every variable must be there with its shape.
func (m *Model) npzCheckpointRestore(r *npzReader) (func() error, error) {
	fileOpt := 0
	for _, k := range r.keys {
		if strings.HasPrefix(k, "optimizer/vars/") {
			fileOpt++
		}
	}
	if m.optimizer == nil && fileOpt > 0 {
		warnf("keras: the checkpoint holds optimizer variables, but model %s has no optimizer: they are not restored", m.name)
	}
	if m.optimizer != nil && fileOpt > optimizerFileVars(m.optimizer) {
		if err := m.createOptimizerSlots(); err != nil {
			return nil, err
		}
	}
	keys, vars, err := m.structVars(m.optimizer != nil && fileOpt > 0)
	if err != nil {
		return nil, err
	}
	wantOpt := 0
	for _, k := range keys {
		if strings.HasPrefix(k, "optimizer/vars/") {
			wantOpt++
		}
	}
	if m.optimizer != nil && fileOpt > 0 && fileOpt != wantOpt {
		missing := ""
		for i, k := range keys {
			if strings.HasPrefix(k, "optimizer/vars/") && !r.has(k) {
				missing = "; " + k + " is missing"
				if vars[i].v != nil {
					missing += " (" + vars[i].v.Name() + ")"
				}
				break
			}
		}
		return nil, fmt.Errorf("the file holds %d optimizer variables, optimizer %s has %d (was it saved with another optimizer?)%s", fileOpt, m.optimizer.Name(), wantOpt, missing)
	}
	var assigns []func() error
	for i, v := range vars {
		key := keys[i]
		switch v.kind {
		case kindVariable, kindLossScale:
			vals, err := readKeyed(r, keys[i:i+1], []*ops.Variable{v.v})
			if err != nil && v.kind == kindLossScale {
				return nil, fmt.Errorf("%w (%s)", err, v.v.Name())
			}
			if err != nil {
				return nil, err
			}
			if v.kind == kindLossScale {
				if err := checkLossScale(key, v.v, vals[0]); err != nil { // mixed_saving.go
					return nil, err
				}
			}
			vv := v.v
			assigns = append(assigns, func() error { return vv.Assign(vals[0]) })
		case kindIterations, kindLearningRate, kindIntVariable:
			if !r.has(key) {
				return nil, fmt.Errorf("%s is missing from the file, which holds %s", key, r.describe())
			}
			a, err := r.read(key, atMost(1))
			if err != nil {
				return nil, err
			}
			f, err := a.float64s()
			if err != nil || len(f) != 1 || (v.kind != kindLearningRate && (f[0] < 0 || f[0] != math.Trunc(f[0]))) {
				return nil, fmt.Errorf("%s is not a valid scalar", key)
			}
			if v.kind == kindIntVariable && f[0] > 1<<24 {
				return nil, fmt.Errorf("%s (%s) is %g, beyond 2^24", key, v.v.Name(), f[0])
			}
			switch v.kind {
			case kindIntVariable:
				iv := v.v
				assigns = append(assigns, func() error { return iv.Assign([]float32{float32(f[0])}) })
			case kindIterations:
				it := m.optimizer.Variables()[0]
				assigns = append(assigns, func() error { return it.Assign([]float32{float32(f[0])}) })
			default:
				assigns = append(assigns, func() error { m.optimizer.SetLearningRate(f[0]); return nil })
			}
		}
	}
	return func() error {
		for _, f := range assigns {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// npzNamedRestore restores a checkpoint written before structure keys:
// weights and optimizer variables by name.
func (m *Model) npzNamedRestore(r *npzReader) (func() error, error) {
	ws, err := m.namedWeights()
	if err != nil {
		return nil, err
	}
	vals, err := readVariables(r, "", ws)
	if err != nil {
		return nil, err
	}
	restoreOpt, err := m.prepareOptimizerRestore(r)
	if err != nil {
		return nil, err
	}
	lr := math.NaN()
	if r.has(ckptLRKey) {
		a, err := r.read(ckptLRKey, atMost(1))
		if err != nil {
			return nil, err
		}
		v, err := a.float64s()
		if err != nil || len(v) != 1 {
			return nil, fmt.Errorf("%q is not a scalar", ckptLRKey)
		}
		lr = v[0]
	}
	return func() error {
		if err := assignAll(ws, vals); err != nil {
			return err
		}
		if err := restoreOpt(); err != nil {
			return err
		}
		if _, constant := m.constantLearningRate(); constant && !math.IsNaN(lr) {
			m.optimizer.SetLearningRate(lr)
		}
		return nil
	}, nil
}

// completedEpochs is the epoch after the last one the last Fit recorded.
func (m *Model) completedEpochs() int {
	if h := m.History; h != nil && len(h.Epoch) > 0 {
		return h.Epoch[len(h.Epoch)-1] + 1
	}
	return 0
}

// constantLearningRate returns the optimizer's learning rate when it is a
// constant rather than a schedule.
func (m *Model) constantLearningRate() (float64, bool) {
	if m.optimizer == nil {
		return 0, false
	}
	if _, ok := compiledOptimizer(m.optimizer).GetConfig()["learning_rate"].(float64); !ok {
		return 0, false
	}
	return m.optimizer.CurrentLearningRate(), true
}

// readVariables reads prefix+name for every variable, checking shapes,
// without assigning anything.
func readVariables(r *npzReader, prefix string, vars []*ops.Variable) ([][]float32, error) {
	out := make([][]float32, len(vars))
	for i, v := range vars {
		key := prefix + v.Name()
		if !r.has(key) {
			return nil, fmt.Errorf("weight %q is missing from the file, which holds %s", key, r.describe())
		}
		a, err := r.read(key, func(shape []int) error {
			if !slices.Equal(shape, []int(v.Shape())) {
				return fmt.Errorf("the weight has shape %s in the file but %s in the model", shapeStr(shape), shapeStr(v.Shape()))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if out[i], err = a.float32s(); err != nil {
			return nil, fmt.Errorf("weight %q: %w", key, err)
		}
	}
	return out, nil
}

func assignAll(vars []*ops.Variable, vals [][]float32) error {
	for i, v := range vars {
		if err := v.Assign(vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// prepareOptimizerRestore checks the optimizer variables of r against the
// model's optimizer and returns the function that assigns them. An
// optimizer that has not trained yet has no slot variables: they are
// created here, by one update with zero gradients whose effects (on the
// weights, through weight decay, and on the step count) are undone.
// Slots the file lacks (they did not exist when it was written) are reset
// to zero.
func (m *Model) prepareOptimizerRestore(r *npzReader) (func() error, error) {
	nothing := func() error { return nil }
	opt := m.optimizer
	var fileKeys []string
	for _, k := range r.keys {
		if strings.HasPrefix(k, optimizerPrefix) {
			fileKeys = append(fileKeys, k)
		}
	}
	if opt == nil || len(fileKeys) == 0 {
		return nothing, nil
	}
	have := map[string]bool{}
	for _, v := range opt.Variables() {
		have[v.Name()] = true
	}
	for _, k := range fileKeys {
		if !have[strings.TrimPrefix(k, optimizerPrefix)] {
			if err := m.createOptimizerSlots(); err != nil {
				return nil, err
			}
			break
		}
	}
	vars := opt.Variables()
	names := map[string]bool{}
	vals := make([][]float32, len(vars))
	for i, v := range vars {
		names[v.Name()] = true
		key := optimizerPrefix + v.Name()
		if !r.has(key) {
			if i == 0 { // the iteration counter
				return nil, fmt.Errorf("optimizer variable %q is missing from the file, which holds %s (was it saved with another optimizer?)", key, r.describe())
			}
			vals[i] = make([]float32, v.Shape().Size())
			continue
		}
		got, err := readVariables(r, optimizerPrefix, []*ops.Variable{v})
		if err != nil {
			return nil, fmt.Errorf("optimizer %s: %w", opt.Name(), err)
		}
		vals[i] = got[0]
	}
	for _, k := range fileKeys {
		if !names[strings.TrimPrefix(k, optimizerPrefix)] {
			return nil, fmt.Errorf("the file holds optimizer variable %q, which optimizer %s does not have (was it saved with another optimizer?)", k, opt.Name())
		}
	}
	return func() error { return assignAll(vars, vals) }, nil
}

// createOptimizerSlots makes the optimizer create its slot variables for
// the model's trainable weights, leaving weights and step count as they were.
func (m *Model) createOptimizerSlots() error {
	opt := compiledOptimizer(m.optimizer) // a LossScaleOptimizer's slots are its inner optimizer's
	vars := m.TrainableVariables()
	if len(vars) == 0 {
		return nil
	}
	touched := append(m.Weights(), opt.Variables()...)
	saved := make([][]float32, len(touched))
	for i, v := range touched {
		saved[i] = v.Numpy()
	}
	grads := make([][]float32, len(vars))
	for i, v := range vars {
		grads[i] = make([]float32, v.Shape().Size())
	}
	err := opt.Apply(nil, grads, vars)
	if aerr := assignAll(touched, saved); err == nil {
		err = aerr
	}
	if err != nil {
		return fmt.Errorf("creating the slot variables of optimizer %s: %w", opt.Name(), err)
	}
	return nil
}
