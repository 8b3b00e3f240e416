package keras

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"

	"github.com/gokeras/gokeras/internal/hdf5"
	"github.com/gokeras/gokeras/keras/layers"
)

// Writing legacy Keras 2 .h5 model files, as Keras 3's model.save("m.h5")
// still does (legacy_h5_format): the architecture as JSON in the root
// attribute model_config, the compile arguments in training_config, and
// the weights in model_weights, one group per layer of model.layers with
// the attribute weight_names (trainable then non-trainable) and the
// datasets at those paths below it. layer_names and weight_names are
// fixed-length byte strings, as tf.keras 2 wrote them, which every
// reader of the format decodes. The optimizer's state goes to
// optimizer_weights as Keras writes it (saving_legacy_h5_optimizer.go).

// legacyKerasVersion is what the root's keras_version attribute says.
const legacyKerasVersion = "3.15.1"

// saveLegacyH5 writes the model to path in the legacy format.
func (m *Model) saveLegacyH5(file string) error {
	if !m.Built() {
		return m.notBuilt()
	}
	top, err := m.serialize()
	if err != nil {
		return err
	}
	cfg, err := json.Marshal(map[string]any{"class_name": top["class_name"], "config": top["config"]})
	if err != nil {
		return fmt.Errorf("model_config: %w", err)
	}
	str := func(name, v string) hdf5.Attr { return hdf5.Attr{Name: name, Value: []string{v}} }
	root := &hdf5.Group{Name: "/", Attrs: []hdf5.Attr{
		str("backend", "tensorflow"), str("keras_version", legacyKerasVersion), str("model_config", string(cfg)),
	}}
	if cc, ok := top["compile_config"].(map[string]any); ok {
		tc := map[string]any{}
		for _, k := range []string{"loss", "metrics", "weighted_metrics", "loss_weights", "run_eagerly", "steps_per_execution", "jit_compile"} {
			tc[k] = cc[k]
		}
		if oc, ok := cc["optimizer"].(map[string]any); ok {
			tc["optimizer_config"] = map[string]any{"class_name": oc["class_name"], "config": oc["config"]}
		}
		b, err := json.Marshal(tc)
		if err != nil {
			return fmt.Errorf("training_config: %w", err)
		}
		root.Attrs = append(root.Attrs, str("training_config", string(b)))
	}
	mw := &hdf5.Group{Name: "model_weights", Attrs: []hdf5.Attr{str("backend", "tensorflow"), str("keras_version", legacyKerasVersion)}}
	var names []string
	for _, l := range m.Layers() {
		g, err := legacyLayerGroup(m, l)
		if err != nil {
			return err
		}
		names = append(names, l.Name())
		mw.Groups = append(mw.Groups, g)
	}
	mw.Attrs = append(mw.Attrs, fixedStrings("layer_names", names))
	mw.Groups = append(mw.Groups, &hdf5.Group{Name: "top_level_model_weights", Attrs: []hdf5.Attr{fixedStrings("weight_names", nil)}})
	root.Groups = append(root.Groups, mw)
	og, err := m.legacyOptimizerGroup() // saving_legacy_h5_optimizer.go
	if err != nil {
		return fmt.Errorf("optimizer_weights: %w", err)
	}
	if og != nil {
		root.Groups = append(root.Groups, og)
	}
	b, err := encodeH5(root)
	if err != nil {
		return err
	}
	return writeFileAtomic(file, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// fixedStrings is a list attribute of fixed-length byte strings (an empty
// list is an empty float array, as numpy writes np.array([])).
func fixedStrings(name string, s []string) hdf5.Attr {
	if len(s) == 0 {
		return hdf5.Attr{Name: name, Shape: []int{0}, Value: []float64{}}
	}
	return hdf5.Attr{Name: name, Shape: []int{len(s)}, Value: slices.Clone(s), FixedStrings: true}
}

// legacyLayerGroup is a layer's group: weight_names "<model>/<variable>"
// and the datasets at those paths.
func legacyLayerGroup(m *Model, l layers.Layer) (*hdf5.Group, error) {
	g := &hdf5.Group{Name: l.Name()}
	var names []string
	seen := map[string]bool{}
	for _, v := range legacyWeights(l) {
		name := m.name + "/" + v.Name()
		if seen[name] {
			return nil, fmt.Errorf("layer %q has two weights named %q: the legacy format keys weights by name", l.Name(), v.Name())
		}
		seen[name] = true
		names = append(names, name)
		d := h5MakeGroups(g, path.Dir(name))
		d.Datasets = append(d.Datasets, &hdf5.Dataset{Name: path.Base(name), Shape: slices.Clone([]int(v.Shape())), Value: v.Numpy()})
	}
	g.Attrs = append(g.Attrs, fixedStrings("weight_names", names))
	return g, nil
}
