package keras

import (
	"fmt"
	"slices"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// seedStateVars names the states of the model's seed generators (its
// Dropout and random augmentation layers, nested models' too) in a
// checkpoint: "seed_generators/<layer index>/<generator index>". They are
// not weights (as in Keras, weights files and .keras files leave them
// out), but a run resumed from a checkpoint must draw what an
// uninterrupted run would have drawn.
func (m *Model) seedStateVars() (keys []string, vars []*ops.Variable) {
	for j, l := range m.Layers() {
		for k, g := range layers.SeedGenerators(l) {
			keys = append(keys, fmt.Sprintf("seed_generators/%d/%d", j, k))
			vars = append(vars, g.State())
		}
	}
	return keys, vars
}

// writeSeedStates adds the seed generator states to a checkpoint.
func (m *Model) writeSeedStates(nw *npzWriter) error {
	keys, vars := m.seedStateVars()
	for i, v := range vars {
		if err := nw.addFloat32(keys[i], v.Shape(), v.Numpy()); err != nil {
			return err
		}
	}
	return nil
}

// readSeedStates reads the seed generator states a checkpoint holds
// (checkpoints written before them hold none: those generators keep
// their state) and returns their assignment.
func (m *Model) readSeedStates(r *npzReader) (func() error, error) {
	keys, vars := m.seedStateVars()
	var todo []*ops.Variable
	var vals [][]float32
	for i, v := range vars {
		if !r.has(keys[i]) {
			continue
		}
		a, err := r.read(keys[i], func(shape []int) error {
			if !slices.Equal(shape, []int(v.Shape())) {
				return fmt.Errorf("%s has shape %v, the seed generator state %s %v", keys[i], shape, v.Name(), v.Shape())
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		data, err := a.float32s()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keys[i], err)
		}
		todo, vals = append(todo, v), append(vals, data)
	}
	return func() error { return assignAll(todo, vals) }, nil
}
