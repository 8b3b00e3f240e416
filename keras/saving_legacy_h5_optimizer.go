package keras

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/gokeras/gokeras/internal/hdf5"
)

// The optimizer's state in legacy .h5 model files, as Keras 3's
// legacy_h5_format writes and reads it (include_optimizer=True, the
// default of model.save("m.h5")): a root group optimizer_weights whose
// attribute weight_names lists the optimizer's variables in the order of
// optimizer.variables (the step count, the learning rate, then the
// slots), each a dataset at that path below the group. Keras restores
// them by position (optimizer.set_weights), after building the
// optimizer's slots; a count that differs is a warning and leaves the
// optimizer fresh. The order is the one of the .keras file's
// optimizer/vars/<i>, which is why both formats share structVars.

// legacyOptimizerGroup is the optimizer_weights group of m, nil when m
// has no optimizer.
func (m *Model) legacyOptimizerGroup() (*hdf5.Group, error) {
	if m.optimizer == nil {
		return nil, nil
	}
	keys, vars, err := m.structVars(true)
	if err != nil {
		return nil, err
	}
	prefix := strings.ToLower(compiledOptimizer(m.optimizer).Name())
	g := &hdf5.Group{Name: "optimizer_weights"}
	var names []string
	seen := map[string]bool{}
	for i, v := range vars {
		if !strings.HasPrefix(keys[i], "optimizer/vars/") { // a LossScaleOptimizer's inner optimizer/vars repeat the tail

			continue
		}
		name := legacyOptimizerName(prefix, v)
		if seen[name] {
			name += "_" + strconv.Itoa(len(names))
		}
		seen[name] = true
		d, err := m.h5Dataset(path.Base(name), v)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
		dir := h5MakeGroups(g, path.Dir(name))
		dir.Datasets = append(dir.Datasets, d)
	}
	if len(names) == 0 {
		return nil, nil
	}
	g.Attrs = append(g.Attrs, fixedStrings("weight_names", names))
	return g, nil
}

// legacyOptimizerName is the path Keras gives an optimizer variable:
// "<optimizer>/iteration", "<optimizer>/learning_rate", and the slots'
// "<optimizer>/<weight path with _>_<slot>". Keras reads them by position;
// the names are for people and h5py.
func legacyOptimizerName(prefix string, v structVar) string {
	switch v.kind {
	case kindIterations:
		return prefix + "/iteration"
	case kindLearningRate:
		return prefix + "/learning_rate"
	}
	if v.v == nil {
		return prefix + "/var"
	}
	n := v.v.Name()
	if i := strings.Index(n, "/"); i >= 0 && strings.EqualFold(n[:i], prefix) {
		n = n[i+1:]
	}
	return prefix + "/" + strings.ReplaceAll(n, "/", "_")
}

// legacyOptimizerRestore returns the function that restores the
// optimizer's state from root's optimizer_weights (nil when the file or
// the model has none). The datasets are matched by position, as Keras
// does; a count that differs from the optimizer's (another optimizer, or
// a file saved before training) is a warning and leaves the optimizer as
// it is, as in Keras.
func (m *Model) legacyOptimizerRestore(root *hdf5.Group) (func() error, error) {
	g := root.Group("optimizer_weights")
	if g == nil || m.optimizer == nil {
		if g != nil {
			warnf("keras: the file holds an optimizer state, but model %s has no optimizer: it is not restored", m.name)
		}
		return nil, nil
	}
	names, err := h5Strings(g, "weight_names")
	if err != nil {
		return nil, fmt.Errorf("optimizer_weights: %w", err)
	}
	if len(names) > 1<<20 {
		return nil, fmt.Errorf("optimizer_weights: %d weight names", len(names))
	}
	// The file's datasets renamed to the positions of a .keras file's
	// optimizer/vars, so that one reader checks and assigns both.
	vars := &hdf5.Group{Name: "vars"}
	for i, n := range names {
		_, d, err := g.Lookup(n)
		if err != nil || d == nil {
			return nil, fmt.Errorf("optimizer_weights: weight_names lists %q, but the file has no such dataset", n)
		}
		c := *d
		c.Name = strconv.Itoa(i)
		vars.Datasets = append(vars.Datasets, &c)
	}
	opt := &hdf5.Group{Name: "optimizer", Groups: []*hdf5.Group{vars}}
	// A LossScaleOptimizer's list ends with its inner optimizer's
	// variables, which the .keras layout also keeps under
	// optimizer/inner_optimizer/vars.
	entries, err := m.structure(true)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.path == "optimizer/inner_optimizer" && len(e.vars) <= len(vars.Datasets) {
			inner := &hdf5.Group{Name: "vars"}
			for i, d := range vars.Datasets[len(vars.Datasets)-len(e.vars):] {
				c := *d
				c.Name = strconv.Itoa(i)
				inner.Datasets = append(inner.Datasets, &c)
			}
			opt.Groups = append(opt.Groups, &hdf5.Group{Name: "inner_optimizer", Groups: []*hdf5.Group{inner}})
		}
	}
	synth := &hdf5.Group{Name: "/", Groups: []*hdf5.Group{opt}}
	apply, err := m.h5RestoreEntries(synth, true, true)
	if err != nil {
		return nil, fmt.Errorf("optimizer_weights: %w", err)
	}
	return apply, nil
}
