package keras

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// kerasVectorExempt lists what gokeras has that has no Keras vector, each
// with the reason and the test that checks it instead. Keys are
// "<kind>:<name>" with kind layer, activation, loss, metric, optimizer or
// schedule. TestEverythingHasKerasVectors fails on an entry that is no
// longer needed, so the list stays true.
var kerasVectorExempt = map[string]string{
	// Keras 3.15's RandomCrop returns its input uncropped in inference
	// (training=False), against its own docstring and compute_output_shape;
	// early tf.keras took the centered window, as gokeras does, later
	// versions resized the largest centered window of the target aspect
	// ratio. So Keras 3.15 gives no vector to compare with; in training the
	// window is random. random_crop_test.go checks it.
	"layer:RandomCrop": "Keras 3.15 does not crop in inference; training is random",
	// Wrappers around a user's Go function: nothing of Keras' to compare;
	// every loss and metric built on them has its own vector.
	"loss:LossFunctionWrapper": "wraps a user function",
	"metric:MeanMetricWrapper": "wraps a user function",
	// keras/applications' class (InceptionResNetV2's residual scaling),
	// registered in this test binary because the ONNX export tests build
	// applications' models; its Keras vectors are applications' own
	// (TestCustomScaleLayerKerasFile loads Keras' file using it).
	"layer:CustomScaleLayer": "keras/applications' class, checked against Keras there",
}

// vectorKinds are the case keys of the vector files that name what a case
// covers, by the kind of thing they name.
var vectorKinds = map[string]string{
	"class_name": "layer", "activation": "activation", "loss": "loss",
	"metric": "metric", "optimizer": "optimizer", "schedule": "schedule",
}

// kerasVectorCoverage reads every JSON file under a testdata folder of the
// module and returns the "<kind>:<name>" its cases cover: the values of
// the keys of vectorKinds, and the names a case lists under "covers" (for
// every kind).
func kerasVectorCoverage(t *testing.T, root string) map[string][]string {
	t.Helper()
	covered := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") || !strings.Contains(filepath.ToSlash(path), "/testdata/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var f struct {
			Cases []map[string]any
		}
		if json.Unmarshal(b, &f) != nil {
			return nil // not a vector file
		}
		rel, _ := filepath.Rel(root, path)
		for _, c := range f.Cases {
			for key, kind := range vectorKinds {
				if s, ok := c[key].(string); ok && s != "" {
					covered[kind+":"+s] = append(covered[kind+":"+s], rel)
				}
			}
			if l, ok := c["covers"].([]any); ok {
				for _, v := range l {
					if s, ok := v.(string); ok {
						for _, kind := range vectorKinds {
							covered[kind+":"+s] = append(covered[kind+":"+s], rel)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return covered
}

// exportedFuncs parses the non-test Go files of dir and returns the names of
// the exported functions for which keep returns true.
func exportedFuncs(t *testing.T, dir string, keep func(*ast.FuncDecl) bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Recv == nil && fd.Name.IsExported() && keep(fd) {
				names = append(names, fd.Name.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// constructors returns the Keras class names of the New* constructors of
// package dir (NewAdam makes Adam).
func constructors(t *testing.T, dir string) []string {
	var out []string
	for _, n := range exportedFuncs(t, dir, func(fd *ast.FuncDecl) bool { return strings.HasPrefix(fd.Name.Name, "New") }) {
		out = append(out, strings.TrimPrefix(n, "New"))
	}
	return out
}

// mapKeys returns the string keys of the composite literal assigned to the
// package-level variable name in file.
func mapKeys(t *testing.T, file, name string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	found := false
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if id.Name != name || i >= len(vs.Values) {
					continue
				}
				cl, ok := vs.Values[i].(*ast.CompositeLit)
				if !ok {
					t.Fatalf("%s: %s is not a map literal", file, name)
				}
				found = true
				for _, el := range cl.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if bl, ok := kv.Key.(*ast.BasicLit); ok && bl.Kind == token.STRING {
						k, _ := strconv.Unquote(bl.Value)
						keys = append(keys, k)
					}
				}
			}
		}
	}
	if !found || len(keys) == 0 {
		t.Fatalf("%s: no map literal %s (the coverage test reads the activation names from it)", file, name)
	}
	return keys
}

// TestEverythingHasKerasVectors fails when gokeras has something with no
// Keras test vector (see tools/keras_reference/README.md, "How to add
// vectors"): every registered layer class, every activation name, every
// New* constructor of keras/losses, keras/metrics and keras/optimizers and
// every schedule constructor of keras/optimizers must be named by a case
// of a vector file under some testdata folder, unless kerasVectorExempt
// says why not. The tests that read each file compare gokeras with it.
func TestEverythingHasKerasVectors(t *testing.T) {
	covered := kerasVectorCoverage(t, "..")
	need := map[string]bool{}
	for _, c := range RegisteredLayers() {
		need["layer:"+c] = true
	}
	for _, a := range append(mapKeys(t, "layers/activations.go", "activations"),
		mapKeys(t, "layers/activations.go", "activationAliases")...) {
		need["activation:"+a] = true
	}
	need["activation:linear"] = true
	for kind, dir := range map[string]string{"loss": "losses", "metric": "metrics", "optimizer": "optimizers"} {
		cs := constructors(t, dir)
		if len(cs) == 0 {
			t.Fatalf("no New* constructor found in %s", dir)
		}
		for _, c := range cs {
			need[kind+":"+c] = true
		}
	}
	scheds := exportedFuncs(t, "optimizers", func(fd *ast.FuncDecl) bool {
		r := fd.Type.Results
		if r == nil || len(r.List) == 0 {
			return false
		}
		id, ok := r.List[0].Type.(*ast.Ident)
		return ok && id.Name == "Schedule"
	})
	if len(scheds) == 0 {
		t.Fatal("no schedule constructor found in optimizers")
	}
	for _, s := range scheds {
		need["schedule:"+s] = true
	}
	var missing []string
	for k := range need {
		if len(covered[k]) > 0 {
			if why, ok := kerasVectorExempt[k]; ok {
				// A TODO left for another's work only reminds, so that
				// their vectors landing first breaks nothing.
				report := t.Errorf
				if strings.HasPrefix(why, "TODO vectors") {
					report = t.Logf
				}
				report("%s is exempt (%s) but has Keras vectors in %v: remove it from kerasVectorExempt", k, why, covered[k])
			}
			continue
		}
		if _, ok := kerasVectorExempt[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range kerasVectorExempt {
		if !need[k] {
			t.Errorf("kerasVectorExempt lists %s, which gokeras no longer has: remove it", k)
		}
	}
	slices.Sort(missing)
	for _, k := range missing {
		t.Errorf("%s has no Keras vector: add one (tools/keras_reference/README.md) or an exemption with the reason", k)
	}
	t.Logf("%d things gokeras has, %d exempt, %d without vectors", len(need), len(kerasVectorExempt), len(missing))
}
