package keras

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gokeras/gokeras/internal/hdf5"
)

// Keras 3 weights files (model.weights.h5 in a .keras archive, and
// .weights.h5 files): the HDF5 layout of Keras' H5IOStore, keyed by
// structure (see saving_structure.go).

// h5Tree returns the HDF5 content of the model's weights file: every
// entry's "vars" group with its datasets, the optimizer's when
// withOptimizer.
func (m *Model) h5Tree(withOptimizer bool) (*hdf5.Group, error) {
	entries, err := m.structure(withOptimizer)
	if err != nil {
		return nil, err
	}
	root := &hdf5.Group{Name: "/"}
	for _, e := range entries {
		g := h5MakeGroups(root, e.varsPath())
		g.Attrs = append(g.Attrs, hdf5.Attr{Name: "name", Value: []string{e.name}})
		for i, v := range e.vars {
			d, err := m.h5Dataset(strconv.Itoa(i), v)
			if err != nil {
				return nil, fmt.Errorf("%s/%d: %w", e.varsPath(), i, err)
			}
			g.Datasets = append(g.Datasets, d)
		}
	}
	return root, nil
}

// h5MakeGroups returns the group at path below root, making the groups
// on the way.
func h5MakeGroups(root *hdf5.Group, path string) *hdf5.Group {
	g := root
	for _, p := range strings.Split(path, "/") {
		c := g.Group(p)
		if c == nil {
			c = &hdf5.Group{Name: p}
			g.Groups = append(g.Groups, c)
		}
		g = c
	}
	return g
}

func (m *Model) h5Dataset(name string, v structVar) (*hdf5.Dataset, error) {
	switch v.kind {
	case kindIterations:
		return &hdf5.Dataset{Name: name, Value: []int64{m.optimizer.Iterations()}}, nil
	case kindLearningRate:
		return &hdf5.Dataset{Name: name, Value: []float32{float32(m.optimizer.CurrentLearningRate())}}, nil
	case kindUProduct:
		beta1, _ := toFloat(compiledOptimizer(m.optimizer).GetConfig()["beta_1"])
		return &hdf5.Dataset{Name: name, Value: []float32{nadamUProduct(beta1, m.optimizer.Iterations())}}, nil
	case kindIntVariable:
		return &hdf5.Dataset{Name: name, Value: []int64{int64(v.v.Data(0)[0])}}, nil
	case kindZeroInt:
		return &hdf5.Dataset{Name: name, Value: []int64{0}}, nil
	case kindZeroFloat:
		return &hdf5.Dataset{Name: name, Value: []float32{0}}, nil
	}
	return &hdf5.Dataset{Name: name, Shape: slices.Clone([]int(v.v.Shape())), Value: v.v.Numpy()}, nil
}

// encodeH5 is the HDF5 file of root, in memory.
func encodeH5(root *hdf5.Group) ([]byte, error) {
	var b bytes.Buffer
	if err := hdf5.Encode(&b, root); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// h5Limits bounds what decoding a weights file for m may allocate: what
// weightsFileBound allows for its npz twin.
func h5Limits(m *Model) hdf5.Limits {
	return hdf5.Limits{MaxBytes: weightsFileBound(m), DeferBytes: h5DeferBytes}
}

// h5DeferBytes: float datasets of at least this many bytes stay in the
// file until they are assigned, read straight into the variables
// (hdf5.Limits.DeferBytes), so that loading holds the weights about once
// rather than as file bytes, decoded values and variables at the same time.
const h5DeferBytes = 64 << 10

// decodeH5 decodes an HDF5 file held in r.
func decodeH5(r io.ReaderAt, size int64, lim hdf5.Limits) (*hdf5.Group, error) {
	g, err := hdf5.Decode(r, size, lim)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// h5Restore checks root, a Keras 3 weights file, against the model's
// structure and returns the function that assigns every variable (nothing
// is assigned before every check passed). Layers' variables must match
// one for one, in number and shape, as Keras' load_own_variables requires;
// the error names the first mismatch. The file's optimizer variables are
// loaded when withOptimizer and the model has an optimizer; a count that
// differs is a warning and leaves the optimizer as it is, as in Keras.
func (m *Model) h5Restore(root *hdf5.Group, withOptimizer bool) (func() error, error) {
	return m.h5RestoreEntries(root, withOptimizer, false)
}

// h5RestoreEntries is h5Restore, of the optimizer's variables alone when
// optimizerOnly (a legacy .h5 file's optimizer_weights, whose layers'
// weights were read by name before).
func (m *Model) h5RestoreEntries(root *hdf5.Group, withOptimizer, optimizerOnly bool) (func() error, error) {
	if withOptimizer && m.optimizer != nil {
		if g, _, err := root.Lookup("optimizer/vars"); err == nil && g != nil {
			// An optimizer that has not trained has no slots yet: make
			// them when the file has them.
			if len(g.Datasets) > optimizerFileVars(m.optimizer) {
				if err := m.createOptimizerSlots(); err != nil {
					return nil, err
				}
			}
		}
	}
	entries, err := m.structure(withOptimizer)
	if err != nil {
		return nil, err
	}
	var assigns []func() error
	consumed := map[*hdf5.Group]bool{}
	for _, e := range entries {
		if optimizerOnly && !e.optimizer {
			continue
		}
		g, err := h5VarsGroup(root, e.varsPath())
		if err != nil {
			return nil, err
		}
		var n int
		if g != nil {
			consumed[g] = true
			n = len(g.Datasets)
			if len(g.Groups) > 0 {
				return nil, fmt.Errorf("%s: unexpected group %q among the variables", e.varsPath(), g.Groups[0].Name)
			}
		}
		if e.optimizer && n != len(e.vars) {
			if err := lossScaleIncomplete(root, e, entries, g); err != nil { // mixed_saving.go
				return nil, err
			}
			if n > 0 {
				warnf("keras: optimizer %s has %d variables, the file's optimizer %d: its variables are not loaded (as Keras skips them)", e.name, len(e.vars), n)
			}
			continue
		}
		if n != len(e.vars) {
			what := "an object"
			if e.path != "" {
				what = "layer " + strconv.Quote(e.name)
			}
			return nil, fmt.Errorf("%s: %s expects %d variables (%s), the file has %d%s", e.varsPath(), what, len(e.vars), e.describe(), n, h5Shapes(g))
		}
		for i, v := range e.vars {
			d := g.Dataset(strconv.Itoa(i))
			if d == nil {
				return nil, fmt.Errorf("%s: no dataset %q (%s)", e.varsPath(), strconv.Itoa(i), structVarName(e, v))
			}
			f, err := h5Assigner(m, e.varsPath()+"/"+d.Name, v, d)
			if err != nil {
				return nil, err
			}
			assigns = append(assigns, f)
		}
	}
	if p := h5Unconsumed(root, "", consumed); p != "" {
		return nil, fmt.Errorf("%s: the file holds variables for which model %s has no place (was it saved from another architecture?)", p, m.name)
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

// h5VarsGroup returns the group at path, nil if the file has none.
func h5VarsGroup(root *hdf5.Group, path string) (*hdf5.Group, error) {
	g, d, err := root.Lookup(path)
	if err != nil {
		return nil, nil
	}
	if d != nil {
		return nil, fmt.Errorf("%s: a dataset where Keras keeps a group", path)
	}
	return g, nil
}

// h5Shapes describes a vars group's datasets: " ((3, 3), (3,))".
func h5Shapes(g *hdf5.Group) string {
	if g == nil || len(g.Datasets) == 0 {
		return ""
	}
	ds := slices.Clone(g.Datasets)
	sort.Slice(ds, func(i, j int) bool { return h5Index(ds[i].Name) < h5Index(ds[j].Name) })
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = shapeStr(d.Shape)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func h5Index(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 1 << 30
	}
	return n
}

// h5Unconsumed returns the path of the first "vars" group holding
// datasets that no entry read, "" if none.
func h5Unconsumed(g *hdf5.Group, path string, consumed map[*hdf5.Group]bool) string {
	for _, c := range g.Groups {
		p := joinPath(path, c.Name)
		if c.Name == "vars" && len(c.Datasets) > 0 && !consumed[c] && !strings.HasPrefix(p, "optimizer") {
			return p
		}
		if q := h5Unconsumed(c, p, consumed); q != "" {
			return q
		}
	}
	return ""
}

// h5Assigner checks dataset d against v and returns the assignment.
func h5Assigner(m *Model, path string, v structVar, d *hdf5.Dataset) (func() error, error) {
	if v.kind == kindLossScale || v.kind == kindIntVariable {
		path += " (" + v.v.Name() + ")" // a LossScaleOptimizer's dynamic_scale or step_counter
	}
	if !slices.Equal(normShape(d.Shape), normShape(v.shape)) {
		return nil, fmt.Errorf("%s: expected shape %s, the file has %s", path, shapeStr(v.shape), shapeStr(d.Shape))
	}
	switch v.kind {
	case kindIterations:
		n, err := h5Int(d.Value)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s: the iteration count is not a non-negative integer scalar (%T)", path, d.Value)
		}
		it := m.optimizer.Variables()[0]
		return func() error { return it.Assign([]float32{float32(n)}) }, nil
	case kindLearningRate:
		vals, err := h5Float32s(d.Value)
		if err != nil || len(vals) != 1 {
			return nil, fmt.Errorf("%s: the learning rate is not a float scalar", path)
		}
		return func() error {
			// Keras keeps the rate in a float32 variable; a rate that
			// rounds to the file's keeps its float64 value.
			if float32(m.optimizer.CurrentLearningRate()) != vals[0] {
				m.optimizer.SetLearningRate(float64(vals[0]))
			}
			return nil
		}, nil
	case kindUProduct, kindZeroInt, kindZeroFloat:
		return func() error { return nil }, nil // computed from the step count, or not kept
	case kindIntVariable:
		n, err := h5Int(d.Value)
		if err != nil || n < 0 || n > 1<<24 {
			return nil, fmt.Errorf("%s: not an integer scalar in [0, 2^24] (%T %v)", path, d.Value, d.Value)
		}
		iv := v.v
		return func() error { return iv.Assign([]float32{float32(n)}) }, nil
	}
	if d.Deferred() && v.kind == kindVariable {
		// Read at assignment straight into the variable; corrupt data is
		// found now, before anything is assigned.
		if d.Len() != v.shape.Size() {
			return nil, fmt.Errorf("%s: %d values for shape %s", path, d.Len(), shapeStr(v.shape))
		}
		if err := d.CheckData(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return func() error { return v.v.AssignFrom(d.ReadFloat32s) }, nil
	}
	var vals []float32
	var err error
	if v.kind == kindVariable {
		vals, err = m.weightFloats(v.v, d.Value) // saving_int_weights.go
	} else {
		vals, err = h5Float32s(d.Value)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v.kind == kindLossScale {
		if err := checkLossScale(path, v.v, vals); err != nil { // mixed_saving.go
			return nil, err
		}
	}
	if len(vals) != v.shape.Size() {
		return nil, fmt.Errorf("%s: %d values for shape %s", path, len(vals), shapeStr(v.shape))
	}
	return func() error { return v.v.Assign(vals) }, nil
}

// normShape treats a scalar and a shape of ones alike only for rank 0.
func normShape(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return s
}

// h5Float32s converts a float dataset to float32.
func h5Float32s(v any) ([]float32, error) {
	switch x := v.(type) {
	case []float32:
		return x, nil
	case []float64:
		out := make([]float32, len(x))
		for i, f := range x {
			out[i] = float32(f)
		}
		return out, nil
	}
	return nil, fmt.Errorf("values of type %T where floats are expected", v)
}

// h5Int reads an integer (or integral float) scalar.
func h5Int(v any) (int64, error) {
	switch x := v.(type) {
	case []int64:
		if len(x) == 1 {
			return x[0], nil
		}
	case []int32:
		if len(x) == 1 {
			return int64(x[0]), nil
		}
	case []uint64:
		if len(x) == 1 && x[0] < 1<<62 {
			return int64(x[0]), nil
		}
	case []float32:
		if len(x) == 1 && x[0] == float32(int64(x[0])) {
			return int64(x[0]), nil
		}
	case []float64:
		if len(x) == 1 && x[0] == float64(int64(x[0])) {
			return int64(x[0]), nil
		}
	}
	return 0, fmt.Errorf("not an integer scalar: %T", v)
}

// structVars lists the model's variables by structure key
// ("layers/dense/vars/0"), with the optimizer's ("optimizer/vars/2") when
// withOptimizer: the keys of checkpoints and npz weights files.
func (m *Model) structVars(withOptimizer bool) ([]string, []structVar, error) {
	entries, err := m.structure(withOptimizer)
	if err != nil {
		return nil, nil, err
	}
	var keys []string
	var vars []structVar
	for _, e := range entries {
		for i, v := range e.vars {
			keys = append(keys, e.varsPath()+"/"+strconv.Itoa(i))
			vars = append(vars, v)
		}
	}
	return keys, vars, nil
}
