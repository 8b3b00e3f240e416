package cli

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" for no error
	}{
		{nil, ""},
		{[]string{"-epochs", "3", "-limit", "0", "-verbose", "-1"}, ""},
		{[]string{"-epochs", "0"}, "-epochs 0: want at least 1"},
		{[]string{"-batch-size", "-4"}, "-batch-size -4: want at least 1"},
		{[]string{"-limit", "-5"}, "-limit -5: want 0 or more"},
		{[]string{"-verbose", "7"}, "-verbose 7: want one of [-1 0 1 2]"},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("epochs", 5, "training epochs")
		fs.Int("batch-size", 64, "batch size")
		fs.Int("limit", 0, "first N examples")
		fs.Int("verbose", 0, "verbosity")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := Check(fs, Positive("epochs", "batch-size"), NonNegative("limit"), OneOf("verbose", -1, 0, 1, 2))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	if err := Check(fs, Positive("nope")); err == nil {
		t.Error("a rule on a missing flag passed")
	}
}

func TestOutputFileAndDir(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	rootCanWrite := writable(ro) == nil // root ignores permissions
	for _, c := range []struct {
		file, out string
		want      string // "" for no error
		skip      bool
	}{
		{"", "", "", false},
		{filepath.Join(dir, "m.keras"), filepath.Join(dir, "imgs", "sub"), "", false},
		{filepath.Join(dir, "m.h5"), "", "", false},
		{"/nonexistent/m.keras", "", "-save-model /nonexistent/m.keras: no folder /nonexistent", false},
		{filepath.Join(dir, "m.txt"), "", "the name must end in .keras or .h5", false},
		{".keras", "", "the name must end in .keras or .h5", false},
		{dir, "", "the name must end in", false},
		{filepath.Join(dir, "d.keras"), "", "a folder, want a file name", false},
		{filepath.Join(ro, "m.keras"), "", "cannot create files in", rootCanWrite},
		{"", filepath.Join(dir, "m.keras", "x"), "-out " + filepath.Join(dir, "m.keras", "x"), false},
	} {
		if c.skip {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, "d.keras"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "m.keras"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.String("save-model", c.file, "the model file")
		fs.String("out", c.out, "image folder")
		err := Check(fs, OutputFile("save-model", ".keras", ".h5"), OutputDir("out"))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q %q: %v", c.file, c.out, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q %q: err = %v, want %q", c.file, c.out, err, c.want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "imgs", "sub")); err != nil || !fi.IsDir() {
		t.Errorf("OutputDir did not create the folder: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".gokeras-write-check-*"))
	if len(left) > 0 {
		t.Errorf("the write check left %v", left)
	}
}

func TestOneOfStrings(t *testing.T) {
	for _, c := range []struct{ v, want string }{{"mnist", ""}, {"fashion_mnist", ""}, {"cifar", `-dataset "cifar": want one of fashion_mnist, fashion-mnist, mnist`}} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.String("dataset", c.v, "the data")
		err := Check(fs, OneOfStrings("dataset", Datasets...))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.v, err, c.want)
		}
	}
}
