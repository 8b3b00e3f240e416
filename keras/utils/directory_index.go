package utils

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gokeras/gokeras/datasets"
)

// maxFolderDepth bounds the folders walked below a class folder: following
// links, a link to a parent would otherwise loop for ever.
const maxFolderDepth = 64

// fileIndex is what Keras' dataset_utils.index_directory returns.
type fileIndex struct {
	paths      []string // Keras' file_paths: the directory joined with rel
	rel        []string // the same files as slash-separated paths in fsys
	labels     []int    // one per file; nil without labels
	classNames []string // nil without labels
}

// indexSpec is the arguments of index_directory.
type indexSpec struct {
	what        string // the function, for messages
	fsys        fs.FS
	root        string // directory's path in fsys
	directory   string // as given, for file paths and messages
	osPaths     bool   // directory is an OS path (FS was nil)
	noLabels    bool
	labels      []int // explicit labels; nil: inferred
	formats     []string
	classNames  []string
	shuffle     bool
	seed        int64
	followLinks bool
	out         io.Writer // nil: quiet
}

// resolveFS returns the file system and root to read directory from: fsys
// itself (directory is then a path in it) or, when fsys is nil, the OS's.
func resolveFS(fsys fs.FS, directory string) (fs.FS, string, error) {
	if fsys != nil {
		p := path.Clean(directory)
		if directory == "" {
			p = "."
		}
		if !fs.ValidPath(p) {
			return nil, "", fmt.Errorf("%q is not a path in the file system (want slash-separated, relative, without ..)", directory)
		}
		return fsys, p, nil
	}
	if directory == "" {
		return nil, "", errors.New("no directory")
	}
	return os.DirFS(directory), ".", nil
}

// joinPath joins the directory as given and a slash-separated relative path
// the way Python's os.path.join does, so that file paths read as Keras'.
func (s *indexSpec) joinPath(rel string) string {
	sep := "/"
	if s.osPaths {
		sep, rel = string(filepath.Separator), filepath.FromSlash(rel)
	}
	if s.directory == "" || strings.HasSuffix(s.directory, sep) || (s.osPaths && strings.HasSuffix(s.directory, "/")) {
		return s.directory + rel
	}
	return s.directory + sep + rel
}

// pathErr names the file of a *fs.PathError as the user gave it (the
// directory joined with the path below it) rather than as a path in the
// file system read (".", for the directory itself).
func (s *indexSpec) pathErr(err error) error {
	var pe *fs.PathError
	if !s.osPaths || !errors.As(err, &pe) {
		return err
	}
	rel := pe.Path
	if rel == "." {
		return &fs.PathError{Op: pe.Op, Path: s.directory, Err: pe.Err}
	}
	return &fs.PathError{Op: pe.Op, Path: s.joinPath(rel), Err: pe.Err}
}

// isDir reports whether name is a folder, following links as Python's
// os.path.isdir.
func isDir(fsys fs.FS, name string) bool {
	st, err := fs.Stat(fsys, name)
	return err == nil && st.IsDir()
}

// index lists the files as Keras' index_directory: with inferred labels
// the class folders are the directory's non-hidden sub-folders in sorted
// order (or ClassNames, a subset, in its order); each is walked as Python's
// os.walk walks it (links to folders entered only with followLinks), its
// folders in sorted order of their paths and the files of each in sorted
// order; files whose lower-case names end in one of the formats count.
// With shuffle the list is shuffled by numpy's RandomState(seed), as Keras.
func (s *indexSpec) index() (fileIndex, error) {
	var subdirs []string
	inferred := !s.noLabels && s.labels == nil
	if inferred {
		entries, err := fs.ReadDir(s.fsys, s.root)
		if err != nil {
			return fileIndex{}, fmt.Errorf("%s: %w", s.what, s.pathErr(err))
		}
		for _, e := range entries { // ReadDir sorts by name, as sorted(os.listdir)
			if !strings.HasPrefix(e.Name(), ".") && isDir(s.fsys, path.Join(s.root, e.Name())) {
				subdirs = append(subdirs, e.Name())
			}
		}
		if s.classNames != nil {
			for _, c := range s.classNames {
				if !slices.Contains(subdirs, c) {
					return fileIndex{}, fmt.Errorf("%s: ClassNames %q do not match the sub-folders of %s: want %q or a subset of it (%q is not one)",
						s.what, s.classNames, s.directory, subdirs, c)
				}
			}
			subdirs = slices.Clone(s.classNames)
		}
	} else {
		if s.classNames != nil {
			return fileIndex{}, fmt.Errorf("%s: ClassNames are for labels inferred from the sub-folders, not with Labels or NoLabels", s.what)
		}
		subdirs = []string{""}
	}

	var idx fileIndex
	for i, sub := range subdirs {
		files, err := walkFiles(s.fsys, path.Join(s.root, sub), s.followLinks, s.formats)
		if err != nil {
			return fileIndex{}, fmt.Errorf("%s: %w", s.what, s.pathErr(err))
		}
		for _, f := range files {
			rel := path.Join(sub, f)
			idx.rel = append(idx.rel, path.Join(s.root, rel))
			idx.paths = append(idx.paths, s.joinPath(rel))
			if inferred {
				idx.labels = append(idx.labels, i)
			}
		}
	}
	switch {
	case inferred:
		idx.classNames = subdirs
	case s.labels != nil:
		if len(s.labels) != len(idx.rel) {
			return fileIndex{}, fmt.Errorf("%s: %d Labels but %d files in %s; want one label per file", s.what, len(s.labels), len(idx.rel), s.directory)
		}
		idx.labels = slices.Clone(s.labels)
		uniq := slices.Compact(slices.Sorted(slices.Values(s.labels)))
		for _, l := range uniq {
			idx.classNames = append(idx.classNames, fmt.Sprint(l))
		}
	}
	if s.out != nil {
		if s.noLabels {
			fmt.Fprintf(s.out, "Found %d files.\n", len(idx.rel))
		} else {
			fmt.Fprintf(s.out, "Found %d files belonging to %d classes.\n", len(idx.rel), len(idx.classNames))
		}
	}
	if s.shuffle {
		perm, err := datasets.RandomStatePermutation(s.seed, len(idx.rel))
		if err != nil {
			return fileIndex{}, fmt.Errorf("%s: %w", s.what, err)
		}
		idx.rel, idx.paths = permuted(idx.rel, perm), permuted(idx.paths, perm)
		if idx.labels != nil {
			idx.labels = permuted(idx.labels, perm)
		}
	}
	return idx, nil
}

func permuted[T any](s []T, perm []int) []T {
	out := make([]T, len(s))
	for i, j := range perm {
		out[i] = s[j]
	}
	return out
}

// walkFiles returns the files below dir (slash-separated, relative to it)
// in the order of Keras' iter_valid_files.
func walkFiles(fsys fs.FS, dir string, followLinks bool, formats []string) ([]string, error) {
	type group struct {
		root  string
		files []string
	}
	var groups []group
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		if depth > maxFolderDepth {
			return fmt.Errorf("%s: more than %d levels of folders (a link to a parent folder?)", path.Join(dir, rel), maxFolderDepth)
		}
		full := path.Join(dir, rel)
		entries, err := fs.ReadDir(fsys, full)
		if err != nil {
			return err
		}
		g := group{root: rel}
		for _, e := range entries {
			name := path.Join(rel, e.Name())
			sub := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 && isDir(fsys, path.Join(dir, name)) {
				if !followLinks {
					continue // os.walk lists it among the folders and does not enter it
				}
				sub = true
			}
			if sub {
				if err := walk(name, depth+1); err != nil {
					return err
				}
				continue
			}
			if hasFormat(e.Name(), formats) {
				g.files = append(g.files, e.Name())
			}
		}
		groups = append(groups, g)
		return nil
	}
	if err := walk("", 0); err != nil {
		return nil, err
	}
	slices.SortFunc(groups, func(a, b group) int { return strings.Compare(a.root, b.root) })
	var files []string
	for _, g := range groups {
		slices.Sort(g.files)
		for _, f := range g.files {
			files = append(files, path.Join(g.root, f))
		}
	}
	return files, nil
}

func hasFormat(name string, formats []string) bool {
	low := strings.ToLower(name)
	for _, f := range formats {
		if strings.HasSuffix(low, f) {
			return true
		}
	}
	return false
}

// splitSubset is Keras' get_training_or_validation_split: the validation
// subset is the last int(validationSplit*n) files, training the others.
// Where that rounds to no file Keras returns every file for validation (and
// none for training); here it is an error.
func splitSubset(what string, idx fileIndex, validationSplit float64, subset string, out io.Writer) (fileIndex, error) {
	if validationSplit == 0 {
		return idx, nil
	}
	n := len(idx.rel)
	nVal := int(validationSplit * float64(n))
	if nVal == 0 {
		return fileIndex{}, fmt.Errorf("%s: ValidationSplit %v of %d files is 0 files; want a larger split", what, validationSplit, n)
	}
	cut := func(lo, hi int) fileIndex {
		r := fileIndex{paths: idx.paths[lo:hi], rel: idx.rel[lo:hi], classNames: idx.classNames}
		if idx.labels != nil {
			r.labels = idx.labels[lo:hi]
		}
		return r
	}
	switch subset {
	case "training":
		if out != nil {
			fmt.Fprintf(out, "Using %d files for training.\n", n-nVal)
		}
		return cut(0, n-nVal), nil
	case "validation":
		if out != nil {
			fmt.Fprintf(out, "Using %d files for validation.\n", nVal)
		}
		return cut(n-nVal, n), nil
	}
	return fileIndex{}, fmt.Errorf("%s: Subset %q, want \"training\" or \"validation\"", what, subset)
}

// checkSplit is Keras' check_validation_split_arg. hasSeed reports whether
// a seed was given: shuffled training and validation subsets must come from
// the same shuffle, or they would overlap.
func checkSplit(what string, validationSplit float64, subset string, shuffle, hasSeed bool, both bool) error {
	switch {
	case validationSplit != 0 && !(validationSplit > 0 && validationSplit < 1):
		return fmt.Errorf("%s: ValidationSplit %v, want between 0 and 1", what, validationSplit)
	case both && validationSplit == 0:
		return fmt.Errorf("%s: the training and validation subsets need a ValidationSplit", what)
	case !both && (validationSplit != 0) != (subset != ""):
		return fmt.Errorf("%s: ValidationSplit and Subset go together (ValidationSplit %v, Subset %q)", what, validationSplit, subset)
	case !both && subset != "" && subset != "training" && subset != "validation":
		if subset == "both" {
			return fmt.Errorf("%s: Subset \"both\": call the function's Both variant, which returns the two datasets", what)
		}
		return fmt.Errorf("%s: Subset %q, want \"training\" or \"validation\"", what, subset)
	case validationSplit != 0 && shuffle && !hasSeed:
		return fmt.Errorf("%s: with a ValidationSplit and shuffling, give a Seed, so that the training and validation subsets (made by two calls) do not overlap", what)
	}
	return nil
}

// drawSeed returns *seed, or a seed drawn as Keras' np.random.randint(1e6).
func drawSeed(seed *int64) int64 {
	if seed != nil {
		return *seed
	}
	return rand.Int64N(1e6)
}
