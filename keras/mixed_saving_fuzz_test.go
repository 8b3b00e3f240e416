package keras

import (
	"bytes"
	"testing"

	"github.com/gokeras/gokeras/keras/mixedprecision"
)

// FuzzLossScaleFiles loads fuzzed weights files (.weights.h5) and Fit
// checkpoints (.npz) into a model compiled under mixed_float16, whose
// LossScaleOptimizer's scale and step counter they hold: never a panic,
// allocation bounded by the file, as for the other savers.
func FuzzLossScaleFiles(f *testing.F) {
	src, _ := lsoTrained(f, true)
	f.Add(seedFile(f, "lso.weights.h5", src.SaveWeights))
	f.Add(seedFile(f, "lso.npz", src.SaveCheckpoint))
	m, _ := lsoTrained(f, false)
	mixedprecision.SetGlobal(mixedprecision.DTypePolicy{}) // the layers keep theirs
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.HasPrefix(data, h5Signature) {
			path := fuzzPath(t, dir, "f.weights.h5", data)
			bounded(t, int64(len(data)), inflated(data, weightsFileBound(m)), func() { _ = m.LoadWeights(path) })
			return
		}
		path := fuzzPath(t, dir, "f.npz", data)
		bounded(t, int64(len(data)), inflated(data, weightsFileBound(m)), func() { _, _ = m.RestoreCheckpoint(path) })
	})
}
