// Command supported writes docs/supported.md, the table of the Keras classes
// gokeras has, from the code itself: the layer classes of the registry that
// keras.LoadModel rebuilds models from (keras.RegisteredLayers), the
// activation names layers.WithActivation takes, and the constructors and
// by-name lookups of keras/losses, keras/metrics, keras/optimizers (with the
// learning-rate schedules) and keras/callbacks. Run it through
//
//	go generate ./tools/supported
//
// TestSupportedUpToDate fails when the committed file is not what this
// program writes, so the table stays true.
package main

//go:generate go run . -o ../../docs/supported.md

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/metrics"
	"github.com/gokeras/gokeras/keras/optimizers"
)

func main() {
	out := flag.String("o", "", "write the table to this file (default: standard output)")
	root := flag.String("root", "../..", "the module's root folder (the one with go.mod)")
	flag.Parse()
	b, err := generate(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "supported:", err)
		os.Exit(1)
	}
	if *out == "" {
		os.Stdout.Write(b)
		return
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "supported:", err)
		os.Exit(1)
	}
}

// pkgSource is the parsed non-test source of one package of the module.
type pkgSource struct {
	files []*ast.File
}

func parsePkg(root, dir string) (*pkgSource, error) {
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	p := &pkgSource{}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.files = append(p.files, f)
	}
	if len(p.files) == 0 {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}
	return p, nil
}

// funcs returns the exported package-level functions for which keep is true, sorted.
func (p *pkgSource) funcs(keep func(*ast.FuncDecl) bool) []string {
	var names []string
	for _, f := range p.files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Recv == nil && fd.Name.IsExported() && keep(fd) {
				names = append(names, fd.Name.Name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// newFuncs returns the New* constructors whose first result is not an error.
func (p *pkgSource) newFuncs() map[string]bool {
	m := map[string]bool{}
	for _, n := range p.funcs(func(fd *ast.FuncDecl) bool { return strings.HasPrefix(fd.Name.Name, "New") }) {
		m[n] = true
	}
	return m
}

// callbackTypes returns the exported types that have an On... method (a
// callback's hook), sorted.
func (p *pkgSource) callbackTypes() []string {
	var names []string
	for _, f := range p.files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 || !strings.HasPrefix(fd.Name.Name, "On") {
				continue
			}
			t := fd.Recv.List[0].Type
			if st, ok := t.(*ast.StarExpr); ok {
				t = st.X
			}
			if id, ok := t.(*ast.Ident); ok && id.IsExported() {
				names = append(names, id.Name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// mapKeys returns the string keys of the map literal assigned to the package-level variable name.
func (p *pkgSource) mapKeys(name string) ([]string, error) {
	for _, f := range p.files {
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
						return nil, fmt.Errorf("%s is not a map literal", name)
					}
					var keys []string
					for _, el := range cl.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if bl, ok := kv.Key.(*ast.BasicLit); ok && bl.Kind == token.STRING {
								k, _ := strconv.Unquote(bl.Value)
								keys = append(keys, k)
							}
						}
					}
					if len(keys) == 0 {
						return nil, fmt.Errorf("map literal %s has no string keys", name)
					}
					slices.Sort(keys)
					return keys, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("no package-level map literal %s", name)
}

// typeName is the name of v's concrete type without the pointer ("MeanSquaredError").
func typeName(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// row is one class of a family: its constructor and the names that resolve to it.
type row struct {
	class, ctor string
	names       []string
}

func writeTable(b *bytes.Buffer, head [3]string, rows []row) {
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.class, b.class) })
	fmt.Fprintf(b, "| %s | %s | %s |\n|---|---|---|\n", head[0], head[1], head[2])
	for _, r := range rows {
		ctor, names := "", ""
		if r.ctor != "" {
			ctor = "`" + r.ctor + "`"
		}
		slices.Sort(r.names)
		r.names = slices.Compact(r.names)
		for i, n := range r.names {
			if i > 0 {
				names += ", "
			}
			names += "`\"" + n + "\"`"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", r.class, ctor, names)
	}
	b.WriteString("\n")
}

// byName groups the names that get resolves by the class of what it returns,
// and adds a row for each New* constructor, named by its class.
func byName(pkg string, ctors map[string]bool, names []string, get func(string) (any, error)) ([]row, error) {
	rows := map[string]*row{}
	for c := range ctors {
		class := strings.TrimPrefix(c, "New")
		rows[class] = &row{class: class, ctor: pkg + "." + c}
	}
	for _, n := range names {
		v, err := get(n)
		if err != nil {
			return nil, fmt.Errorf("%s.Get(%q): %v", pkg, n, err)
		}
		class := typeName(v)
		r := rows[class]
		if r == nil {
			r = &row{class: class}
			rows[class] = r
		}
		r.names = append(r.names, n)
	}
	var out []row
	for _, r := range rows {
		out = append(out, *r)
	}
	return out, nil
}

func generate(root string) ([]byte, error) {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, fmt.Errorf("-root %s: not the module's root: %v", root, err)
	}
	src := map[string]*pkgSource{}
	for _, d := range []string{"keras/layers", "keras/losses", "keras/metrics", "keras/optimizers", "keras/callbacks"} {
		p, err := parsePkg(root, d)
		if err != nil {
			return nil, err
		}
		src[d] = p
	}
	var b bytes.Buffer
	b.WriteString("<!-- Code generated by tools/supported (go generate ./tools/supported); DO NOT EDIT. -->\n\n")
	b.WriteString("# What gokeras supports\n\n")
	b.WriteString("Generated from the code: the layer registry `keras.LoadModel` rebuilds models from\n" +
		"(`keras.RegisteredLayers()`), the activation names of `layers.WithActivation`, and the constructors\n" +
		"and `Get` names of `keras/losses`, `keras/metrics`, `keras/optimizers` and `keras/callbacks`.\n" +
		"Every layer, activation, loss, metric, optimizer and schedule here is checked against Keras 3.15.1 test vectors\n" +
		"(`keras/coverage_keras_test.go` fails on one without, except the few it exempts with the reason). The API reference: `go doc github.com/gokeras/gokeras/keras/layers` (or any\n" +
		"package), or https://pkg.go.dev/github.com/gokeras/gokeras.\n\n")

	// Layers: the registry.
	layerCtors := src["keras/layers"].newFuncs()
	classes := keras.RegisteredLayers()
	var lrows []row
	for _, c := range classes {
		r := row{class: c}
		if layerCtors["New"+c] {
			r.ctor = "layers.New" + c
		}
		lrows = append(lrows, r)
	}
	fmt.Fprintf(&b, "## Layers (%d classes)\n\n", len(classes))
	b.WriteString("Each class name is the `class_name` of a layer in a `.keras` or legacy `.h5` model file that `keras.LoadModel`\n" +
		"reads (and `Save` writes); `keras.RegisterLayer` adds your own. The models, which have no `layers.New...`, are\n" +
		"`keras.NewModel` (Functional) and `keras.NewSequential`; inputs are `layers.Input` and `layers.NewInputLayer`.\n\n")
	b.WriteString("| Keras class | gokeras constructor |\n|---|---|\n")
	for _, r := range lrows {
		ctor := ""
		if r.ctor != "" {
			ctor = "`" + r.ctor + "`"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", r.class, ctor)
	}
	b.WriteString("\n")

	// Activations.
	acts, err := src["keras/layers"].mapKeys("activations")
	if err != nil {
		return nil, fmt.Errorf("keras/layers: %v", err)
	}
	aliases, err := src["keras/layers"].mapKeys("activationAliases")
	if err != nil {
		return nil, fmt.Errorf("keras/layers: %v", err)
	}
	all := append(append([]string{"linear"}, acts...), aliases...)
	slices.Sort(all)
	all = slices.Compact(all)
	fmt.Fprintf(&b, "## Activations (%d names)\n\n", len(all))
	b.WriteString("Names taken by `layers.WithActivation(name)` and `layers.NewActivation(name)`:\n")
	for i, a := range all {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" `" + a + "`")
	}
	b.WriteString(".\n\n")

	// Losses and metrics: constructors, and the names Get resolves (its ctors and aliases maps).
	for _, fam := range []struct {
		title, dir, pkg string
		get             func(string) (any, error)
	}{
		{"Losses", "keras/losses", "losses", func(n string) (any, error) { return losses.Get(n) }},
		{"Metrics", "keras/metrics", "metrics", func(n string) (any, error) { return metrics.Get(n) }},
	} {
		p := src[fam.dir]
		var names []string
		for _, m := range []string{"ctors", "aliases"} {
			k, err := p.mapKeys(m)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", fam.dir, err)
			}
			names = append(names, k...)
		}
		rows, err := byName(fam.pkg, p.newFuncs(), names, fam.get)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "## %s (%d classes)\n\n", fam.title, len(rows))
		fmt.Fprintf(&b, "By constructor, or by name through `%s.Get` and `keras.CompileConfig` (a class without names here is\n"+
			"given as an object).\n\n", fam.pkg)
		writeTable(&b, [3]string{"Keras class", "gokeras constructor", "by name"}, rows)
	}

	// Optimizers: Get is case-insensitive on the class name.
	optSrc := src["keras/optimizers"]
	optCtors := optSrc.newFuncs()
	var orows []row
	for c := range optCtors {
		class := strings.TrimPrefix(c, "New")
		r := row{class: class, ctor: "optimizers." + c}
		if v, err := optimizers.Get(strings.ToLower(class)); err == nil && typeName(v) == class {
			r.names = []string{strings.ToLower(class)}
		}
		orows = append(orows, r)
	}
	fmt.Fprintf(&b, "## Optimizers (%d classes)\n\n", len(orows))
	b.WriteString("By constructor, or by name through `optimizers.Get` and `keras.CompileConfig{Optimizer: \"adam\"}`.\n\n")
	writeTable(&b, [3]string{"Keras class", "gokeras constructor", "by name"}, orows)

	scheds := optSrc.funcs(func(fd *ast.FuncDecl) bool {
		r := fd.Type.Results
		if r == nil || len(r.List) == 0 {
			return false
		}
		id, ok := r.List[0].Type.(*ast.Ident)
		return ok && id.Name == "Schedule"
	})
	fmt.Fprintf(&b, "## Learning-rate schedules (%d)\n\n", len(scheds))
	for _, s := range scheds {
		fmt.Fprintf(&b, "- `optimizers.%s`\n", s)
	}
	b.WriteString("\n")

	cbCtors := src["keras/callbacks"].newFuncs()
	cbs := src["keras/callbacks"].callbackTypes()
	fmt.Fprintf(&b, "## Callbacks (%d)\n\n", len(cbs))
	for _, c := range cbs {
		if cbCtors["New"+c] {
			fmt.Fprintf(&b, "- %s: `callbacks.New%s`\n", c, c)
		} else {
			fmt.Fprintf(&b, "- %s: `&callbacks.%s{...}`\n", c, c)
		}
	}
	b.WriteString("\n")

	var unregistered []string
	for c := range layerCtors {
		if !slices.Contains(classes, strings.TrimPrefix(c, "New")) {
			unregistered = append(unregistered, c)
		}
	}
	slices.Sort(unregistered)
	fmt.Fprintf(&b, "## Other constructors of keras/layers (%d)\n\n", len(unregistered))
	b.WriteString("Constructors of `keras/layers` whose name is no registered class (helpers, layers saved under another\n" +
		"class name, or layers a model file cannot hold):")
	for i, c := range unregistered {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" `layers." + c + "`")
	}
	b.WriteString(".\n")
	return b.Bytes(), nil
}
