package keras

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/gokeras/gokeras/keras/layers"
	"gorgonia.org/tensor"
)

// FuzzConfigValues is a structure-aware fuzz target of model configs: it
// takes a valid layer config of every registered class (the configs and
// input shapes of the Keras vector files, and seeds made here for the
// classes those lack), changes one or two of its values (a number to an extreme,
// its negative, a huge or fractional value, a value of another type,
// removed; the input shape too) and loads the model as LoadModel does
// (the size checks of config_budget.go, then the build under the weight
// and tensor budgets), then predicts one sample with what loaded. On
// every input: no panic, at most fuzzMaxTime, at most configFuzzAlloc
// bytes.
//
//	go test ./keras/ -run '^$' -fuzz '^FuzzConfigValues$' -fuzztime 10m
func FuzzConfigValues(f *testing.F) {
	cases := configSeeds(f)
	for i := range cases {
		f.Add(uint16(i), uint32(0), uint8(noMutation), int64(0), 0.0, "")
	}
	// The probes of issue 35 as mutations of their seeds.
	for i, c := range cases {
		switch c.class {
		case "CategoryEncoding", "RepeatVector", "Dense", "Conv2D", "Embedding", "LSTM":
			f.Add(uint16(i), uint32(7), uint8(mutExtreme), int64(9), 0.0, "")
			f.Add(uint16(i), uint32(1), uint8(mutSetInt), int64(1)<<40, 0.0, "")
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, pick uint32, kind uint8, num int64, fnum float64, str string) {
		c := cases[int(which)%len(cases)]
		tree := map[string]any{"config": deepCopy(c.config), "inputs": deepCopy(c.inputs)}
		mutate(tree, pick, kind, num, fnum, str)
		if pick>>24 != 0 && kind != noMutation { // a second value changed
			mutate(tree, pick>>8, kind>>4, num>>7, -fnum, str)
		}
		cfg, _ := tree["config"].(map[string]any)
		top := fuzzTopConfig(c.class, cfg, tree["inputs"], c.integer)
		boundedBy(t, configFuzzAlloc, func() {
			m, err := loadFuzzConfig(top)
			if err != nil || m == nil || !m.Built() {
				return
			}
			_, _ = predictOne(m)
		})
	})
}

// boundedBy runs call and fails if it took more than fuzzMaxTime or
// allocated more than limit bytes.
func boundedBy(t *testing.T, limit uint64, call func()) {
	t.Helper()
	start := time.Now()
	alloc := allocDuring(call)
	if d := time.Since(start); d > fuzzMaxTime {
		t.Errorf("took %v", d)
	}
	if alloc > limit {
		t.Errorf("allocated %d bytes; the bound is %d", alloc, limit)
	}
}

// TestConfigSeedsLoad: every seed of FuzzConfigValues loads and predicts
// as it is (but for Lambda, whose Go function is not registered), so that
// the mutations start from models that work.
func TestConfigSeedsLoad(t *testing.T) {
	for _, c := range configSeeds(t) {
		m, err := loadFuzzConfig(fuzzTopConfig(c.class, deepCopy(c.config), deepCopy(c.inputs), c.integer))
		if c.class == "Lambda" {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.class, err)
			continue
		}
		if _, err := predictOne(m); err != nil {
			t.Errorf("%s: predict: %v", c.class, err)
		}
	}
}

// predictOne predicts one sample of zeros.
func predictOne(m *Model) ([]*tensor.Dense, error) {
	var xs []*tensor.Dense
	for _, in := range m.Inputs() {
		s := in.Shape().Clone()
		for i := range s {
			s[i] = max(s[i], 1)
		}
		s[0] = 1
		xs = append(xs, tensor.New(tensor.WithShape(s...), tensor.Of(tensor.Float32)))
	}
	var x any = xs[0]
	if len(xs) > 1 {
		x = xs
	}
	return m.PredictAll(x, PredictConfig{Verbose: VerboseSilent})
}

// configFuzzAlloc bounds what one input of FuzzConfigValues may allocate:
// the budgets it loads under (a file of 2^16 weight values; tensors of
// 2^16 values) let a model of a few hundred tensors of 256 KiB.
const configFuzzAlloc = 256 << 20

// loadFuzzConfig is loadModel's checks and build for a config.json of a
// file holding 2^16 weight values, under a tensor budget of 2^16.
func loadFuzzConfig(top map[string]any) (*Model, error) {
	const values, tensors = 1 << 16, 1 << 16
	b, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	var parsed map[string]any // as LoadModel sees it: decoded JSON
	if err := json.Unmarshal(b, &parsed); err != nil {
		return nil, err
	}
	if err := checkConfigSizes(parsed, values); err != nil {
		return nil, err
	}
	if err := checkConfigBudget(parsed, tensors); err != nil {
		return nil, err
	}
	return buildFromConfig(parsed, values, tensors)
}

type configSeed struct {
	class   string
	config  map[string]any
	inputs  []any // input shapes with the batch
	integer []bool
}

// configSeeds reads one case per class of the vector files and adds seeds
// for the registered classes they lack; it fails when a registered class
// has no seed.
func configSeeds(f testing.TB) []configSeed {
	var out []configSeed
	seen := map[string]bool{}
	for _, pattern := range []string{"testdata/keras/*.json", "layers/testdata/keras/*.json"} {
		files, _ := filepath.Glob(pattern)
		sort.Strings(files)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			var doc struct {
				Cases []map[string]any `json:"cases"`
			}
			if json.Unmarshal(b, &doc) != nil {
				continue
			}
			for _, c := range doc.Cases {
				class, _ := c["class_name"].(string)
				cfg, _ := c["config"].(map[string]any)
				if class == "" || cfg == nil || seen[class] {
					continue
				}
				s := configSeed{class: class, config: cfg}
				if sh, ok := c["shape"].([]any); ok {
					s.inputs, s.integer = []any{sh}, []bool{false}
				} else if ins, ok := c["inputs"].([]any); ok {
					for _, in := range ins {
						im, _ := in.(map[string]any)
						s.inputs = append(s.inputs, im["shape"])
						integer, _ := im["integer"].(bool)
						s.integer = append(s.integer, integer)
					}
				}
				if len(s.inputs) == 0 {
					continue
				}
				seen[class] = true
				out = append(out, s)
			}
		}
	}
	// Classes without a vector case of their own.
	layers.ClearSession()
	extra := []struct {
		l     layers.Layer
		shape []any
	}{
		{layers.NewRandomCrop(3, 2), []any{2.0, 5.0, 4.0, 1.0}},
		{layers.NewLayerScale(1e-6, 3), []any{2.0, 4.0, 4.0, 3.0}},
	}
	for _, e := range extra {
		if !seen[e.l.ClassName()] {
			seen[e.l.ClassName()] = true
			out = append(out, configSeed{class: e.l.ClassName(), config: deepCopy(e.l.GetConfig()), inputs: []any{e.shape}, integer: []bool{false}})
		}
	}
	inner, err := NewSequential(layers.NewDense(3, layers.WithInputShape(4)), layers.NewRepeatVector(2))
	if err != nil {
		f.Fatal(err)
	}
	// keras/applications' CustomScaleLayer (inputs[0] + inputs[1]*scale),
	// registered when a test of this binary imports applications (which
	// imports this package, so it is written here as Keras' config).
	if slices.Contains(RegisteredLayers(), "CustomScaleLayer") && !seen["CustomScaleLayer"] {
		seen["CustomScaleLayer"] = true
		out = append(out, configSeed{class: "CustomScaleLayer", config: map[string]any{"name": "custom_scale_layer", "trainable": true,
			"dtype": "float32", "scale": 0.17}, inputs: []any{[]any{2.0, 4.0}, []any{2.0, 4.0}}, integer: []bool{false, false}})
	}
	for _, class := range []string{"Sequential", "Functional"} {
		var m *Model = inner
		if class == "Functional" {
			in := layers.Input([]int{4})
			m, err = NewModel([]*layers.KerasTensor{in}, []*layers.KerasTensor{layers.Apply(layers.NewDense(2), in)})
			if err != nil {
				f.Fatal(err)
			}
		}
		cfg, err := m.GetConfig()
		if err != nil {
			f.Fatal(err)
		}
		seen[class] = true
		out = append(out, configSeed{class: class, config: deepCopy(cfg), inputs: []any{[]any{2.0, 4.0}}, integer: []bool{false}})
	}
	for _, c := range RegisteredLayers() {
		if !seen[c] && c != "Scale" && c != "StringLookup" && c != "TextVectorization" { // string layers: no float model input
			f.Fatalf("registered class %s has no seed config", c)
		}
	}
	return out
}

// fuzzTopConfig is the config.json of a functional model calling the
// layer class (config cfg) on inputs of the given shapes.
func fuzzTopConfig(class string, cfg map[string]any, inputs any, integer []bool) map[string]any {
	shapes, _ := inputs.([]any)
	var entries, ins, args []any
	for i, s := range shapes {
		name := "in_" + string(rune('a'+i%26))
		bs := s
		if l, ok := s.([]any); ok && len(l) > 0 {
			bs = append([]any{nil}, l[1:]...)
		}
		ic := map[string]any{"batch_shape": bs, "name": name}
		if i < len(integer) && integer[i] {
			ic["dtype"] = "int32"
		}
		entries = append(entries, map[string]any{"class_name": "InputLayer", "name": name, "config": ic, "inbound_nodes": []any{}})
		ref := []any{name, 0.0, 0.0}
		ins = append(ins, ref)
		args = append(args, map[string]any{"class_name": "__keras_tensor__", "config": map[string]any{"shape": bs, "keras_history": ref}})
	}
	_, positional := positionalInputs[class] // MultiHeadAttention, GroupQueryAttention
	if positional && len(args) == 1 {
		args = append(args, args[0]) // self-attention: query and value
	}
	node := map[string]any{"args": args, "kwargs": map[string]any{}}
	if len(args) > 1 && !positional {
		node["args"] = []any{args}
	}
	entries = append(entries, map[string]any{"class_name": class, "name": "under_test", "config": cfg, "inbound_nodes": []any{node}})
	node0 := 0.0
	if class == "Functional" {
		node0 = 1
	}
	return map[string]any{"class_name": "Functional", "config": map[string]any{
		"name": "fuzz", "layers": entries, "input_layers": ins, "output_layers": []any{[]any{"under_test", node0, 0.0}}}}
}

// Mutations of FuzzConfigValues (the kind argument, modulo mutKinds).
const (
	mutSetInt = iota
	mutSetFloat
	mutExtreme
	mutNegate
	mutString
	mutBool
	mutNull
	mutList
	mutMap
	mutDelete
	mutGrowList
	mutKinds
	noMutation = 255
)

// extremes are the values mutExtreme picks from.
var extremes = []float64{0, -1, 1, 0.5, -0.5, 2, 1 << 31, 1 << 32, 1 << 40, 1 << 53, 1 << 62, 1 << 63, -(1 << 63),
	3037000500, 1e308, -1e308, 1e-308, math.MaxInt32, -math.MaxInt32 - 1, 255, 65536, 7, 1e6}

// mutate changes the leaf pick of tree (leaves in sorted-key order): to a
// number, an extreme, its negative, a value of another type, nothing.
func mutate(tree map[string]any, pick uint32, kind uint8, num int64, fnum float64, str string) {
	if kind == noMutation {
		return
	}
	type leaf struct {
		get func() any
		set func(any)
		del func()
	}
	var leaves []leaf
	var walk func(v any, set func(any), del func())
	walk = func(v any, set func(any), del func()) {
		leaves = append(leaves, leaf{func() any { return v }, set, del})
		switch x := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(x) {
				walk(x[k], func(n any) { x[k] = n }, func() { delete(x, k) })
			}
		case []any:
			for i := range x {
				walk(x[i], func(n any) { x[i] = n }, nil)
			}
		}
	}
	walk(tree, func(any) {}, nil)
	l := leaves[1+int(pick%uint32(len(leaves)-1))]
	switch kind % mutKinds {
	case mutSetInt:
		l.set(float64(num))
	case mutSetFloat:
		if !math.IsNaN(fnum) && !math.IsInf(fnum, 0) {
			l.set(fnum)
		}
	case mutExtreme:
		l.set(extremes[int(uint64(num)%uint64(len(extremes)))])
	case mutNegate:
		if f, ok := l.get().(float64); ok {
			l.set(-f)
		}
	case mutString:
		l.set(str)
	case mutBool:
		l.set(num%2 == 0)
	case mutNull:
		l.set(nil)
	case mutList:
		l.set([]any{l.get(), float64(num)})
	case mutMap:
		l.set(map[string]any{"class_name": str, "config": map[string]any{}})
	case mutDelete:
		if l.del != nil {
			l.del()
		}
	case mutGrowList:
		if x, ok := l.get().([]any); ok {
			n := int(uint64(num) % 64)
			grown := slices.Clone(x)
			for range n {
				if len(x) > 0 {
					grown = append(grown, deepCopy(x[len(x)-1]))
				} else {
					grown = append(grown, 1.0)
				}
			}
			l.set(grown)
		}
	}
}

// deepCopy copies decoded JSON.
func deepCopy[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out T
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}
