package hdf5

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
)

// TestKeras3Weights reads a model.weights.h5 laid out as Keras 3's
// H5IOStore writes it: layers/<name>/vars/<index>.
func TestKeras3Weights(t *testing.T) {
	root, err := ReadFile(filepath.Join("testdata", "keras3_weights.h5"))
	if err != nil {
		t.Fatal(err)
	}
	vars, _, err := root.Lookup("layers/dense/vars")
	if err != nil || vars == nil {
		t.Fatalf("layers/dense/vars: %v", err)
	}
	if len(vars.Datasets) != 2 || vars.Datasets[0].Name != "0" || vars.Datasets[1].Name != "1" {
		t.Fatalf("vars datasets %v", vars.Datasets)
	}
	k := vars.Dataset("0")
	if !reflect.DeepEqual(k.Shape, []int{4, 3}) || len(k.Value.([]float32)) != 12 {
		t.Errorf("kernel shape %v", k.Shape)
	}
	if _, d, _ := root.Lookup("optimizer/vars/0"); d == nil || d.Shape != nil || d.Value.([]int64)[0] != 3 {
		t.Errorf("optimizer/vars/0 = %+v", d)
	}
	if g := root.Group("vars"); g == nil || len(g.Datasets)+len(g.Groups) != 0 {
		t.Errorf("empty top-level vars group: %+v", g)
	}
}

// TestKeras2Model reads a legacy Keras 2 .h5 model: JSON model_config,
// layer_names / weight_names as fixed-length byte strings, and weights
// under model_weights/<layer>/<layer>/<weight>:0.
func TestKeras2Model(t *testing.T) {
	root, err := ReadFile(filepath.Join("testdata", "keras2_model.h5"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, ok := root.Attr("model_config")
	if !ok || cfg.Shape != nil || cfg.FixedStrings {
		t.Fatalf("model_config attribute %+v", cfg)
	}
	var mc struct {
		ClassName string `json:"class_name"`
	}
	if err := json.Unmarshal([]byte(cfg.Value.([]string)[0]), &mc); err != nil || mc.ClassName != "Sequential" {
		t.Errorf("model_config %v: %v", cfg.Value, err)
	}
	mw := root.Group("model_weights")
	names, _ := mw.Attr("layer_names")
	if !names.FixedStrings || !reflect.DeepEqual(names.Value, []string{"dense", "dropout"}) {
		t.Errorf("layer_names %+v", names)
	}
	wn, _ := mw.Group("dense").Attr("weight_names")
	if !reflect.DeepEqual(wn.Value, []string{"dense/kernel:0", "dense/bias:0"}) {
		t.Errorf("weight_names %+v", wn)
	}
	_, k, err := root.Lookup("model_weights/dense/dense/kernel:0")
	if err != nil || !reflect.DeepEqual(k.Shape, []int{4, 3}) {
		t.Errorf("kernel: %v %+v", err, k)
	}
	empty, _ := mw.Group("dropout").Attr("weight_names")
	if v, ok := empty.Value.([]string); !ok || len(v) != 0 || !reflect.DeepEqual(empty.Shape, []int{0}) {
		t.Errorf("empty weight_names %+v", empty)
	}
}
