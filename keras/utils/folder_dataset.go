package utils

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/gokeras/gokeras/datasets"
	"gorgonia.org/tensor"
)

// The pipeline image_dataset_from_directory and text_dataset_from_directory
// share: the arguments, the listing and split of the folder, the labels,
// and a dataset of file positions that each pass shuffles, batches and
// turns into the loaded files.

// folderSpec is what the folder loaders share: the index, the split and the
// label tensors.
type folderSpec struct {
	what      string
	directory string
	kind      string   // "images", "text files"
	formats   []string // the file endings read
	index     indexSpec
	labelMode string // "" without labels
	batch     int    // 0: unbatched
	shuffle   bool
	seed      int64
	split     float64
	subset    string
	out       io.Writer
}

// folderArgs are the arguments image and text folders share.
type folderArgs struct {
	fsys            fs.FS
	labels          []int
	noLabels        bool
	labelMode       string
	classNames      []string
	batchSize       int
	noBatch         bool
	noShuffle       bool
	seed            *int64
	validationSplit float64
	subset          string
	followLinks     bool
	quiet           bool
	out             io.Writer
}

// newFolderSpec checks the arguments common to image and text folders;
// kind names the files ("images", for messages) and formats their endings.
// both is the Both variants' subset="both".
func newFolderSpec(what, directory string, a folderArgs, kind string, formats []string, both bool) (*folderSpec, error) {
	if both {
		if a.subset != "" && a.subset != "both" {
			return nil, fmt.Errorf("%s: Subset %q, want \"\" or \"both\"", what, a.subset)
		}
		a.subset = ""
	}
	labelMode, labels, noLabels := a.labelMode, a.labels, a.noLabels
	if labelMode == "" {
		labelMode = "int"
	}
	switch labelMode {
	case "int", "categorical", "binary":
	case "none":
		noLabels = true
	default:
		return nil, fmt.Errorf("%s: LabelMode %q, want \"int\", \"categorical\" or \"binary\" (NoLabels for none)", what, labelMode)
	}
	if noLabels {
		labelMode = ""
		labels = nil
	}
	if labels != nil && a.classNames != nil {
		return nil, fmt.Errorf("%s: ClassNames are only for labels inferred from the sub-folders, not with Labels", what)
	}
	batchSize := a.batchSize
	if batchSize < 0 {
		return nil, fmt.Errorf("%s: BatchSize %d, want > 0 (or NoBatch)", what, batchSize)
	}
	if batchSize == 0 {
		batchSize = 32
	}
	if a.noBatch {
		batchSize = 0
	}
	if err := checkSplit(what, a.validationSplit, a.subset, !a.noShuffle, a.seed != nil, both); err != nil {
		return nil, err
	}
	f, root, err := resolveFS(a.fsys, directory)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out := a.out
	if out == nil {
		out = os.Stdout
	}
	if a.quiet {
		out = nil
	}
	s := &folderSpec{what: what, directory: directory, kind: kind, formats: formats, labelMode: labelMode, batch: batchSize,
		shuffle: !a.noShuffle, seed: drawSeed(a.seed), split: a.validationSplit, subset: a.subset, out: out}
	s.index = indexSpec{what: what, fsys: f, root: root, directory: directory, osPaths: a.fsys == nil, noLabels: noLabels,
		labels: labels, formats: formats, classNames: a.classNames, shuffle: s.shuffle, seed: s.seed, followLinks: a.followLinks, out: out}
	return s, nil
}

// files indexes the folder and checks the label mode against the classes.
func (s *folderSpec) files() (fileIndex, error) {
	idx, err := s.index.index()
	if err != nil {
		return fileIndex{}, err
	}
	if s.labelMode == "binary" && len(idx.classNames) != 2 {
		return fileIndex{}, fmt.Errorf("%s: LabelMode \"binary\" needs exactly 2 classes, have %d: %q", s.what, len(idx.classNames), idx.classNames)
	}
	return idx, nil
}

// labelTensor returns the labels of idx in s's label mode: int32 ids,
// float32 one-hot rows (tf.one_hot: an id at or above the class count, as
// explicit Labels may give, is a row of zeros) or float32 values (N, 1).
func (s *folderSpec) labelTensor(idx fileIndex) *tensor.Dense {
	n := len(idx.labels)
	switch s.labelMode {
	case "categorical":
		k := len(idx.classNames)
		oh := make([]float32, n*k)
		for i, l := range idx.labels {
			if l >= 0 && l < k {
				oh[i*k+l] = 1
			}
		}
		return tensor.New(tensor.WithShape(n, k), tensor.WithBacking(oh))
	case "binary":
		v := make([]float32, n)
		for i, l := range idx.labels {
			v[i] = float32(l)
		}
		return tensor.New(tensor.WithShape(n, 1), tensor.WithBacking(v))
	}
	v := make([]int32, n)
	for i, l := range idx.labels {
		v[i] = int32(l)
	}
	return tensor.New(tensor.WithShape(n), tensor.WithBacking(v))
}

// dataset builds the pipeline over the files of idx: their positions (and
// labels) are sliced, shuffled each pass when shuffle is set (tf.data's
// buffer of batch*8, or 1024 unbatched), batched, and load turns each
// element's positions into the loaded files, on GOMAXPROCS goroutines,
// prefetched as Keras' prefetch(AUTOTUNE).
func (s *folderSpec) dataset(idx fileIndex, shuffle bool, load func(pos []int32) (*tensor.Dense, error)) (*datasets.Dataset, error) {
	n := len(idx.rel)
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	parts := []*tensor.Dense{tensor.New(tensor.WithShape(n), tensor.WithBacking(pos))}
	if s.labelMode != "" {
		parts = append(parts, s.labelTensor(idx))
	}
	ds, err := datasets.FromTensorSlices(parts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.what, err)
	}
	if shuffle {
		buf := 1024
		if s.batch > 0 {
			buf = s.batch * 8
		}
		ds = ds.Shuffle(buf, s.seed)
	}
	if s.batch > 0 {
		ds = ds.Batch(s.batch)
	}
	ds = ds.MapParallel(func(e datasets.Element) (datasets.Element, error) {
		var p []int32
		switch v := e[0].Data().(type) {
		case []int32:
			p = v
		case int32:
			p = []int32{v}
		}
		x, err := load(p)
		if err != nil {
			return nil, err
		}
		if s.batch == 0 {
			if x, err = unbatch(x); err != nil {
				return nil, err
			}
		}
		return append(datasets.Element{x}, e[1:]...), nil
	}, 0).Prefetch(datasets.Autotune)
	return ds.WithAttributes(idx.classNames, idx.paths), nil
}

// unbatch returns the one row of x, a batch of one, as a tensor of
// x's shape without its first axis (a scalar for a 1-D x).
func unbatch(x *tensor.Dense) (*tensor.Dense, error) {
	if x.Dims() == 1 {
		v, err := x.At(0)
		if err != nil {
			return nil, err
		}
		return tensor.New(tensor.FromScalar(v)), nil
	}
	return x, x.Reshape(slices.Clone([]int(x.Shape()[1:]))...)
}

// build lists the folder, splits it and makes its dataset, or with both
// the training and validation datasets of one split (only the training
// one shuffled each pass, as in Keras); loader returns the function that
// loads the files of a subset.
func (s *folderSpec) build(both bool, loader func(sub fileIndex) func(pos []int32) (*tensor.Dense, error)) (*datasets.Dataset, *datasets.Dataset, error) {
	idx, err := s.files()
	if err != nil {
		return nil, nil, err
	}
	make1 := func(subset, which string, shuffle bool) (*datasets.Dataset, error) {
		sub, err := splitSubset(s.what, idx, s.split, subset, s.out)
		if err != nil {
			return nil, err
		}
		if len(sub.rel) == 0 {
			return nil, fmt.Errorf("%s: no%s %s in %s (the formats read: %v)", s.what, which, s.kind, s.directory, s.formats)
		}
		return s.dataset(sub, shuffle, loader(sub))
	}
	if !both {
		ds, err := make1(s.subset, "", s.shuffle)
		return ds, nil, err
	}
	train, err := make1("training", " training", s.shuffle)
	if err != nil {
		return nil, nil, err
	}
	val, err := make1("validation", " validation", false)
	if err != nil {
		return nil, nil, err
	}
	return train, val, nil
}
