package readme

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// callsPeakRSS reports whether the non-test Go files of an example call
// cli.PrintPeakRSS.
func callsPeakRSS(t *testing.T, dir string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := false
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "cli" && sel.Sel.Name == "PrintPeakRSS" {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// TestEveryExamplePrintsPeakRSS: the README says -verbose prints the peak
// RSS; every example's source prints it through cli.PrintPeakRSS (the
// benchmark reports its own per step and per epoch), and the README says
// so. The tests that run examples with -verbose check the line itself.
func TestEveryExamplePrintsPeakRSS(t *testing.T) {
	entries, err := os.ReadDir("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "internal" || e.Name() == "benchmark" {
			continue
		}
		if !callsPeakRSS(t, filepath.Join("../..", e.Name())) {
			t.Errorf("examples/%s never calls cli.PrintPeakRSS", e.Name())
		}
	}
}
