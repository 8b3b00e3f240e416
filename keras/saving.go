package keras

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gokeras/gokeras/internal/logging"
	"github.com/gokeras/gokeras/ops"
)

// Saving and loading.
//
// Files are Keras 3's. Model files (.keras) are its zip layout:
// config.json, metadata.json and model.weights.h5, which Python Keras'
// load_model reads and which LoadModel reads from Python Keras. Weights
// files (.weights.h5) are HDF5 files in the layout of Keras' H5IOStore:
// every variable at its structure key ("layers/dense/vars/0",
// "optimizer/vars/2"; see saving_structure.go), so that a model rebuilt
// with the same architecture loads them whatever its layers are called.
// Legacy Keras 2 .h5 files (whole-model and weights-only) are read too
// (saving_legacy_h5.go), and Save to a .h5 name writes the legacy model
// format, as Keras 3 does (saving_legacy_h5_write.go). Weights may also go to npz archives under the
// same keys, for NumPy. Checkpoints (SaveCheckpoint, BackupAndRestore) are
// npz archives keyed the same way with the optimizer's variables, the
// epoch and the CRC-32C of every array ("checkpoint/crc32c"), verified on
// restore.
//
// Readers trust no size a file declares: arrays are checked against the
// bytes their file can hold and the shapes the model expects before
// anything is allocated, HDF5 values are bounded by what the model's
// variables can need (internal/hdf5's Limits), HDF5 links and external
// data are refused, and .keras members are read up to what a real file of
// their kind needs (see saving_npz.go and saving_keras.go). Formats:
// saving_structure.go (structure keys), saving_h5weights.go (Keras 3
// weights files), saving_legacy_h5.go and saving_legacy_h5_write.go
// (Keras 2 files), saving_weights.go
// (SaveWeights, LoadWeights, checkpoints), saving_keras.go (.keras
// archives), saving_config.go and saving_compile.go (their config.json),
// saving_npz.go and saving_npy.go (the npz and npy formats).
//
// Every file is written to a temporary file in the destination's directory,
// synced and renamed over the destination: readers see the old file or the
// new one, never a partial one.

// KerasVersion is what metadata.json of a .keras file records.
const KerasVersion = "3.x-compatible (gokeras)"

// Keys of the npz archives besides the model's weights.
const (
	optimizerPrefix   = "optimizer/"
	ckptEpochKey      = "checkpoint/epoch"
	ckptStepKey       = "checkpoint/step" // batches done in the epoch to resume (absent: 0)
	ckptLRKey         = "checkpoint/learning_rate"
	ckptInputShapeKey = "checkpoint/input_shape"
)

// Members of a .keras archive.
const (
	kerasConfigFile   = "config.json"
	kerasMetadataFile = "metadata.json"
	kerasWeightsFile  = "model.weights.h5"
	// oldWeightsFile is the weights member of .keras files gokeras wrote
	// before it wrote HDF5 (LoadModel still reads them).
	oldWeightsFile = "model.weights.npz"
)

// warnf reports what Keras reports as warnings (a model loaded without its
// compile configuration) through the gokeras logger ([SetLogger], else
// slog.Default).
var warnf = logging.Warnf

func (m *Model) notBuilt() error {
	return fmt.Errorf("model %s is not built yet, so it has no weights: give its first layer an input shape (layers.WithInputShape), or call Fit or Predict first", m.name)
}

// namedWeights returns the model's weights, checking that their names,
// the keys of the files, are unique.
func (m *Model) namedWeights() ([]*ops.Variable, error) {
	ws := m.Weights()
	seen := make(map[string]bool, len(ws))
	for _, w := range ws {
		if seen[w.Name()] {
			return nil, fmt.Errorf("two weights are named %q: give the layers distinct names", w.Name())
		}
		seen[w.Name()] = true
	}
	return ws, nil
}

// ---- files ----

// writeFileAtomic writes path through a temporary file in the same
// directory that is synced, then renamed over path.
func writeFileAtomic(path string, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				f.Close()
			}
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	closed = true
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	// Make the rename durable; not every system can sync a directory.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
