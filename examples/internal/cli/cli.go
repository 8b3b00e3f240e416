// Package cli checks the examples' command-line flags before any work, so
// that nonsense (-batch-size 0, -limit -5, -epochs 0) is a clear error
// naming the flag rather than a silent default or a failure after the
// model summary; output paths (-save-model, -plot, ...) are checked before
// training too.
package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Rule is one condition on the values of flags.
type Rule struct {
	names []string
	check func(f *flag.Flag) error
}

// intRule is a Rule on integer flags: ok says whether a value is good,
// want says what is wanted.
func intRule(names []string, ok func(v int64) bool, want string) Rule {
	return Rule{names, func(f *flag.Flag) error {
		v, err := strconv.ParseInt(f.Value.String(), 10, 64)
		if err != nil {
			return fmt.Errorf("cli: -%s is not an integer flag", f.Name)
		}
		if !ok(v) {
			return fmt.Errorf("-%s %d: want %s (%s)", f.Name, v, want, f.Usage)
		}
		return nil
	}}
}

// Positive requires each named integer flag to be at least 1.
func Positive(names ...string) Rule {
	return intRule(names, func(v int64) bool { return v >= 1 }, "at least 1")
}

// NonNegative requires each named integer flag to be 0 or more.
func NonNegative(names ...string) Rule {
	return intRule(names, func(v int64) bool { return v >= 0 }, "0 or more")
}

// OneOf requires the named integer flag to be one of vals.
func OneOf(name string, vals ...int64) Rule {
	return intRule([]string{name}, func(v int64) bool { return slices.Contains(vals, v) }, fmt.Sprintf("one of %v", vals))
}

// OneOfStrings requires the named string flag to be one of vals.
func OneOfStrings(name string, vals ...string) Rule {
	return Rule{[]string{name}, func(f *flag.Flag) error {
		if v := f.Value.String(); !slices.Contains(vals, v) {
			return fmt.Errorf("-%s %q: want one of %s (%s)", f.Name, v, strings.Join(vals, ", "), f.Usage)
		}
		return nil
	}}
}

// Datasets are the names exampledata.Load takes for -dataset.
var Datasets = []string{"fashion_mnist", "fashion-mnist", "mnist"}

// OutputFile requires the named string flag to be empty (nothing written)
// or the name of a file the program can create at the end of its run: a
// name ending in one of exts (any name when exts is empty), not a folder,
// in an existing folder where a file can be created (Check creates and
// removes a temporary file there). A run then cannot train for an hour and
// fail on its last write.
func OutputFile(name string, exts ...string) Rule {
	return Rule{[]string{name}, func(f *flag.Flag) error {
		path := f.Value.String()
		if path == "" {
			return nil
		}
		if len(exts) > 0 && !slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(path, e) && len(path) > len(e) }) {
			return fmt.Errorf("-%s %s: the name must end in %s (%s)", f.Name, path, strings.Join(exts, " or "), f.Usage)
		}
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return fmt.Errorf("-%s %s: a folder, want a file name (%s)", f.Name, path, f.Usage)
		}
		if err := writable(filepath.Dir(path)); err != nil {
			return fmt.Errorf("-%s %s: %v (%s)", f.Name, path, err, f.Usage)
		}
		return nil
	}}
}

// OutputDir requires the named string flag to be empty or a folder the
// program can write files in, creating it (and its parents) when missing.
func OutputDir(name string) Rule {
	return Rule{[]string{name}, func(f *flag.Flag) error {
		dir := f.Value.String()
		if dir == "" {
			return nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("-%s %s: %v (%s)", f.Name, dir, err, f.Usage)
		}
		if err := writable(dir); err != nil {
			return fmt.Errorf("-%s %s: %v (%s)", f.Name, dir, err, f.Usage)
		}
		return nil
	}}
}

// writable reports whether a file can be created in dir, by creating one
// and removing it.
func writable(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("no folder %s", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	f, err := os.CreateTemp(dir, ".gokeras-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s", dir)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Check applies rules to the parsed flags of fs and returns an error
// naming the first flag that breaks one, with its value and its usage.
func Check(fs *flag.FlagSet, rules ...Rule) error {
	for _, r := range rules {
		for _, name := range r.names {
			f := fs.Lookup(name)
			if f == nil {
				return fmt.Errorf("cli: no flag -%s to check", name)
			}
			if err := r.check(f); err != nil {
				return err
			}
		}
	}
	return nil
}

// MustCheck is [Check] on flag.CommandLine that, on an error, prints it
// to stderr and exits with status 2, as package flag does for flags that
// do not parse.
func MustCheck(rules ...Rule) {
	if err := Check(flag.CommandLine, rules...); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", flag.CommandLine.Name(), err)
		os.Exit(2)
	}
}
