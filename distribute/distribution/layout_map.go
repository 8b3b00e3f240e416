package distribution

import (
	"fmt"
	"regexp"
	"slices"
)

// LayoutMap is keras.distribution.LayoutMap: layouts keyed by regular
// expressions over variable paths ("dense/kernel", "encoder/ffn/bias").
// [LayoutMap.Get] looks a path up as Keras does: a key equal to the path
// first; otherwise every key is a regular expression that must match the
// whole path (Python's re.fullmatch), and more than one matching key is
// an error; no match is nil (the variable stays replicated).
//
// Keys are Go regular expressions (RE2): Python's syntax without
// look-arounds and back-references, which [LayoutMap.Set] refuses.
type LayoutMap struct {
	mesh    *DeviceMesh
	keys    []string
	res     []*regexp.Regexp
	layouts []*TensorLayout
}

// NewLayoutMap makes an empty map whose layouts get mesh.
func NewLayoutMap(mesh *DeviceMesh) *LayoutMap { return &LayoutMap{mesh: mesh} }

// DeviceMesh returns the map's mesh.
func (lm *LayoutMap) DeviceMesh() *DeviceMesh { return lm.mesh }

// Set stores the layout with these axes under key, Keras'
// layout_map[key] = (None, "model") with "" for None.
func (lm *LayoutMap) Set(key string, axes ...string) error {
	l, err := NewTensorLayout(axes, nil)
	if err != nil {
		return err
	}
	return lm.SetLayout(key, l)
}

// SetLayout stores layout under key. A key stored already is an error, as
// in Keras, and so is a key that is not a regular expression or a layout
// naming an axis the map's mesh lacks. A layout without a mesh gets the
// map's.
func (lm *LayoutMap) SetLayout(key string, layout *TensorLayout) error {
	if layout == nil {
		return fmt.Errorf("distribution: LayoutMap: a nil layout for %q", key)
	}
	if slices.Contains(lm.keys, key) {
		return fmt.Errorf("distribution: LayoutMap: %q already exists in the LayoutMap with the value %s; do not use duplicated keys", key, lm.layouts[slices.Index(lm.keys, key)])
	}
	re, err := regexp.Compile(`^(?:` + key + `)$`)
	if err != nil {
		return fmt.Errorf("distribution: LayoutMap: key %q is not a regular expression Go reads: %w", key, err)
	}
	if layout.mesh == nil && lm.mesh != nil {
		if err := layout.SetDeviceMesh(lm.mesh); err != nil {
			return fmt.Errorf("distribution: LayoutMap[%q]: %w", key, err)
		}
	}
	lm.keys = append(lm.keys, key)
	lm.res = append(lm.res, re)
	lm.layouts = append(lm.layouts, layout)
	return nil
}

// Get returns the layout for path: the layout stored under path itself,
// else that of the only key matching all of path, else nil. Several
// matching keys are an error naming them.
func (lm *LayoutMap) Get(path string) (*TensorLayout, error) {
	if i := slices.Index(lm.keys, path); i >= 0 {
		return lm.layouts[i], nil
	}
	var hits []string
	var hit *TensorLayout
	for i, re := range lm.res {
		if re.MatchString(path) {
			hits = append(hits, lm.keys[i])
			hit = lm.layouts[i]
		}
	}
	if len(hits) > 1 {
		return nil, fmt.Errorf("distribution: LayoutMap: path %q matches multiple layout specification keys: %q; make sure each tensor/variable path matches at most one key", path, hits)
	}
	return hit, nil
}

// Delete removes key; it reports whether the key was there.
func (lm *LayoutMap) Delete(key string) bool {
	i := slices.Index(lm.keys, key)
	if i < 0 {
		return false
	}
	lm.keys = slices.Delete(lm.keys, i, i+1)
	lm.res = slices.Delete(lm.res, i, i+1)
	lm.layouts = slices.Delete(lm.layouts, i, i+1)
	return true
}

// Len is the number of keys.
func (lm *LayoutMap) Len() int { return len(lm.keys) }

// Keys returns the keys in insertion order.
func (lm *LayoutMap) Keys() []string { return slices.Clone(lm.keys) }
