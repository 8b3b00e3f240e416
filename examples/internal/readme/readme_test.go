package readme

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// exampleFlags parses the non-test Go files of an example and returns the
// flags it defines on flag.CommandLine (flag.String("name", ...),
// flag.IntVar(&v, "name", ...), ...), with "policy" for cli.PolicyFlag,
// and the string literals of its source.
func exampleFlags(t *testing.T, dir string) (flags []string, literals string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var lits strings.Builder
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				if s, err := strconv.Unquote(bl.Value); err == nil {
					lits.WriteString(s + "\x00")
				}
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case pkg.Name == "cli" && sel.Sel.Name == "PolicyFlag":
				flags = append(flags, "policy")
			case pkg.Name == "flag" && strings.HasSuffix(sel.Sel.Name, "Var") && len(call.Args) >= 2:
				if bl, ok := call.Args[1].(*ast.BasicLit); ok {
					name, _ := strconv.Unquote(bl.Value)
					flags = append(flags, name)
				}
			case pkg.Name == "flag" && len(call.Args) >= 1 && sel.Sel.Name != "Parse" && sel.Sel.Name != "Lookup":
				if bl, ok := call.Args[0].(*ast.BasicLit); ok && bl.Kind == token.STRING {
					name, _ := strconv.Unquote(bl.Value)
					flags = append(flags, name)
				}
			}
			return true
		})
	}
	slices.Sort(flags)
	return slices.Compact(flags), lits.String()
}

var (
	rowRE     = regexp.MustCompile("^\\| `go (?:run|build)[^`]*\\./examples/([a-z_0-9]+)")
	flagRE    = regexp.MustCompile("`-([a-z0-9-]+)`")
	lastKeyRE = regexp.MustCompile("`([a-z_ 0-9]+): (0\\.XXXX|X\\.XX)")
)

// TestExamplesTable checks the README's table of examples against the
// examples' sources.
func TestExamplesTable(t *testing.T) {
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := m[1]
		seen[name] = true
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "/"), " | ")
		if len(cells) != 4 {
			t.Errorf("%s: %d cells in the README's row, want 4 (command, tutorial, flags, last line)", name, len(cells))
			continue
		}
		got, lits := exampleFlags(t, filepath.Join("../..", name))
		if len(got) == 0 {
			t.Errorf("%s: no flags found in its source", name)
		}
		if strings.Contains(cells[2], "see `-h`") {
			continue
		}
		var listed []string
		for _, f := range flagRE.FindAllStringSubmatch(cells[2], -1) {
			listed = append(listed, f[1])
		}
		slices.Sort(listed)
		for _, f := range got {
			if !slices.Contains(listed, f) {
				t.Errorf("%s defines -%s, which the README's table does not list", name, f)
			}
		}
		for _, f := range listed {
			if !slices.Contains(got, f) {
				t.Errorf("the README lists -%s for %s, which does not define it", f, name)
			}
		}
		if k := lastKeyRE.FindStringSubmatch(cells[3]); k != nil {
			// "test_accuracy: 0.XXXX" is printed by "test_accuracy: %.4f";
			// "adversarial loss at step 0: X.XX" by "... at step %d: %.2f".
			format := k[1] + ": %.4f"
			if k[2] == "X.XX" {
				format = strings.TrimSuffix(k[1], " at step 0") + " at step %d: %.2f"
			}
			if !strings.Contains(lits, format) {
				t.Errorf("%s: the README says its last line is %q, its source has no %q", name, k[0], format)
			}
		}
	}
	entries, err := os.ReadDir("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "internal" && !seen[e.Name()] {
			t.Errorf("examples/%s has no row in the README's table", e.Name())
		}
	}
}

// TestTestCommandIsCI: the README's test command and its fuzzing command
// are lines .ci/run runs, and the scripts they name are executable.
func TestTestCommandIsCI(t *testing.T) {
	b, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	ciLines := strings.Split(string(ci), "\n")
	for _, heading := range []string{"Run the tests:", "Fuzzing, which CI runs as a second command:"} {
		_, after, ok := strings.Cut(string(b), heading+"\n\n```sh\n")
		if !ok {
			t.Errorf("README.md: no %q block", heading)
			continue
		}
		cmd, _, _ := strings.Cut(after, "\n")
		if !slices.Contains(ciLines, cmd) {
			t.Errorf(".ci/run does not run the README's command %q (%s)", cmd, heading)
		}
		for _, script := range []string{"tools/race_packages.sh", "tools/fuzz.sh"} {
			if strings.Contains(cmd, script) {
				if fi, err := os.Stat("../../../" + script); err != nil || fi.Mode()&0o111 == 0 {
					t.Errorf("%s: not an executable script (%v)", script, err)
				}
			}
		}
	}
}
