package keras

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// Legacy Keras 2 .h5 files (tf.keras' model.save("m.h5") and
// save_weights("w.h5")), read so that pretrained Keras models come into
// Go. A whole-model file keeps the architecture as JSON in the root
// attribute model_config, the compile arguments in training_config, and
// the weights in the group model_weights; a weights-only file has the
// weights at the root. There the attribute layer_names lists the layers
// that were saved, each a group whose attribute weight_names lists its
// weights as paths below it ("dense/kernel:0"), trainable then
// non-trainable. Keras matches them to the model's layers with weights by
// order, not by name.

// isLegacyH5 reports whether root is a Keras 2 file rather than Keras 3's
// H5IOStore layout.
func isLegacyH5(root *hdf5.Group) bool {
	if _, ok := root.Attr("layer_names"); ok {
		return true
	}
	if g := root.Group("model_weights"); g != nil {
		_, ok := g.Attr("layer_names")
		return ok
	}
	return false
}

// h5Strings reads a string or list-of-strings attribute.
func h5Strings(g *hdf5.Group, name string) ([]string, error) {
	a, ok := g.Attr(name)
	if !ok {
		return nil, fmt.Errorf("no attribute %q", name)
	}
	switch v := a.Value.(type) {
	case []string:
		return v, nil
	case []uint8:
		return []string{string(v)}, nil
	case []float64, []float32:
		// An empty list is written by numpy as an empty float array.
		if n, _ := hdf5ValueLen(v); n == 0 {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("attribute %q holds %T, not strings", name, a.Value)
}

func hdf5ValueLen(v any) (int, bool) {
	switch x := v.(type) {
	case []float64:
		return len(x), true
	case []float32:
		return len(x), true
	}
	return 0, false
}

// legacyH5Restore checks the weights of a Keras 2 file (root, or its
// model_weights group) against the model and returns their assignment.
// The i-th saved layer goes to the model's i-th layer with weights.
func (m *Model) legacyH5Restore(root *hdf5.Group) (func() error, error) {
	g := root
	if mw := root.Group("model_weights"); mw != nil {
		g = mw
	}
	names, err := h5Strings(g, "layer_names")
	if err != nil {
		return nil, err
	}
	type saved struct {
		name    string
		group   *hdf5.Group
		weights []string
	}
	var files []saved
	for _, n := range names {
		lg := g.Group(n)
		if lg == nil {
			return nil, fmt.Errorf("layer_names lists %q, but the file has no such group", n)
		}
		ws, err := h5Strings(lg, "weight_names")
		if err != nil {
			return nil, fmt.Errorf("layer %q: %w", n, err)
		}
		if len(ws) > 0 {
			files = append(files, saved{n, lg, ws})
		}
	}
	var withWeights [][]*ops.Variable
	var layerNames []string
	for _, l := range m.Layers() {
		if ws := legacyWeights(l); len(ws) > 0 {
			withWeights = append(withWeights, ws)
			layerNames = append(layerNames, l.Name())
		}
	}
	if len(files) != len(withWeights) {
		return nil, fmt.Errorf("model %s has %d layers with weights, the file %d (%v)", m.name, len(withWeights), len(files), names)
	}
	var vars []*ops.Variable
	var vals [][]float32
	var deferred []func() error
	for i, f := range files {
		ws := withWeights[i]
		if len(f.weights) != len(ws) {
			return nil, fmt.Errorf("layer %q (the file's %q) has %d weights, the file %d (%v)", layerNames[i], f.name, len(ws), len(f.weights), f.weights)
		}
		for j, wn := range f.weights {
			_, d, err := f.group.Lookup(wn)
			if err != nil || d == nil {
				return nil, fmt.Errorf("layer %q: weight %q is not in the file", f.name, wn)
			}
			v := ws[j]
			if !sameShape(d.Shape, v.Shape()) {
				return nil, fmt.Errorf("%s/%s: expected shape %s (weight %s of layer %q), the file has %s", f.name, wn, shapeStr(v.Shape()), v.Name(), layerNames[i], shapeStr(d.Shape))
			}
			if d.Deferred() {
				// Read at assignment straight into the variable
				// (saving_h5weights.go's h5DeferBytes).
				if d.Len() != v.Shape().Size() {
					return nil, fmt.Errorf("%s/%s: %d values for shape %s", f.name, wn, d.Len(), shapeStr(v.Shape()))
				}
				if err := d.CheckData(); err != nil {
					return nil, fmt.Errorf("%s/%s: %w", f.name, wn, err)
				}
				deferred = append(deferred, func() error { return v.AssignFrom(d.ReadFloat32s) })
				continue
			}
			x, err := m.weightFloats(v, d.Value) // saving_int_weights.go
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %w", f.name, wn, err)
			}
			if len(x) != v.Shape().Size() {
				return nil, fmt.Errorf("%s/%s: %d values for shape %s", f.name, wn, len(x), shapeStr(v.Shape()))
			}
			vars = append(vars, v)
			vals = append(vals, x)
		}
	}
	return func() error {
		if err := assignAll(vars, vals); err != nil {
			return err
		}
		for _, f := range deferred {
			if err := f(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// legacyWeights is a layer's weights in Keras' legacy order: its
// trainable weights then its non-trainable ones, across its sublayers (a
// nested model: all trainable weights of its layers first).
func legacyWeights(l layers.Layer) []*ops.Variable {
	return append(l.TrainableWeights(), l.NonTrainableWeights()...)
}

func sameShape(a []int, b ops.Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// loadLegacyH5Model reads a Keras 2 whole-model .h5 file.
func loadLegacyH5Model(path string, c LoadConfig) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// Keras writes its datasets uncompressed, but a file recompressed
	// with gzip holds several times its size (a pruned model's zeros
	// many times): the bound leaves room for 32 times the file, not for a
	// deflate bomb (HDF5's default would allow 1100 times), and the weight
	// budget is what the file turned out to hold.
	root, err := decodeH5(f, st.Size(), hdf5.Limits{MaxBytes: 32*st.Size() + 16<<20, DeferBytes: h5DeferBytes})
	if err != nil {
		return nil, err
	}
	cfgJSON, err := h5Strings(root, "model_config")
	if err != nil || len(cfgJSON) != 1 {
		if _, ok := root.Attr("layer_names"); ok {
			return nil, fmt.Errorf("a weights-only file (no model_config): build the model and use LoadWeights")
		}
		return nil, fmt.Errorf("not a Keras model file: no model_config attribute")
	}
	var top map[string]any
	if err := json.Unmarshal([]byte(cfgJSON[0]), &top); err != nil {
		return nil, fmt.Errorf("model_config: %w", err)
	}
	values := h5Values(root)
	if err := checkConfigSizes(top, values); err != nil {
		return nil, fmt.Errorf("model_config: %w", err)
	}
	tensors := c.tensorBudget(values)
	if err := checkConfigBudget(top, tensors); err != nil {
		return nil, fmt.Errorf("model_config: %w", err)
	}
	m, err := buildFromConfig(top, values, tensors)
	if err != nil {
		return nil, err
	}
	if tc, err := h5Strings(root, "training_config"); err == nil && len(tc) == 1 {
		var cc map[string]any
		if err := json.Unmarshal([]byte(tc[0]), &cc); err == nil {
			if oc, ok := cc["optimizer_config"]; ok {
				cc["optimizer"] = oc
			}
			if err := m.compileFromConfig(cc); err != nil {
				warnf("keras: LoadModel %s: the model is returned uncompiled: its training configuration cannot be rebuilt: %v", path, err)
			}
		}
	}
	if !m.Built() {
		return m, nil
	}
	apply, err := m.legacyH5Restore(root)
	if err != nil {
		return nil, fmt.Errorf("model_weights: %w", err)
	}
	applyOpt, err := m.legacyOptimizerRestore(root) // saving_legacy_h5_optimizer.go
	if err != nil {
		return nil, err
	}
	if err := apply(); err != nil {
		return nil, err
	}
	if applyOpt != nil {
		if err := applyOpt(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// h5Values is the number of values of the datasets under root: what the
// weights of a model read from the file can take.
func h5Values(root *hdf5.Group) int64 {
	var n int64
	var walk func(g *hdf5.Group)
	walk = func(g *hdf5.Group) {
		for _, d := range g.Datasets {
			k := int64(1)
			for _, s := range d.Shape {
				k *= int64(s)
			}
			n += k
		}
		for _, c := range g.Groups {
			walk(c)
		}
	}
	walk(root)
	return n
}
