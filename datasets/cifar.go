package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gorgonia.org/tensor"
)

// CIFAR10Classes names the ten CIFAR-10 class ids.
var CIFAR10Classes = [10]string{
	"airplane", "automobile", "bird", "cat", "deer",
	"dog", "frog", "horse", "ship", "truck",
}

const (
	cifarImageBytes = 3 * 32 * 32 // one image: 1024 red, 1024 green, 1024 blue bytes
	// cifarMaxFileBytes bounds what one file may decompress to: a quarter
	// more than the largest real one (CIFAR-100's training batch, 155 MB
	// pickled, 154 MB binary), so that a gzip bomb or a wrong file fails
	// before it fills memory.
	cifarMaxFileBytes = 192 << 20
	// cifarDownloadTimeout replaces DefaultDownloadTimeout for the 163 MB
	// CIFAR archives, whose server is slow; an explicit DownloadTimeout
	// other than the default is used as given.
	cifarDownloadTimeout = 30 * time.Minute
)

// LabelMode selects the labels LoadCIFAR100 returns: "fine" (the default,
// 100 classes) or "coarse" (20 superclasses), like label_mode of
// keras.datasets.cifar100.load_data. The other loaders ignore it.
func LabelMode(mode string) LoadOption { return func(c *loadConfig) { c.labelMode = mode } }

// LoadCIFAR10 returns CIFAR-10 like keras.datasets.cifar10.load_data:
// 50,000 training and 10,000 test 32x32 colour images in ten classes (see
// CIFAR10Classes). X is a tensor.Uint8 tensor of shape (N, 32, 32, 3),
// channels last as Keras returns it by default; Y is a tensor.Uint8
// tensor of class ids, shape (N,) (Keras' is (N, 1)).
//
// It reads either version of the dataset: the binary one (folder
// cifar-10-batches-bin: data_batch_1.bin ... data_batch_5.bin and
// test_batch.bin, records of one label byte and 3072 pixel bytes) or the
// Python one that Keras downloads (folder cifar-10-batches-py: pickled
// batches data_batch_1 ... data_batch_5 and test_batch). Any file may be
// gzipped, which is detected from its content, not its name.
//
// With the Dir option (a folder that holds the batches or holds
// cifar-10-batches-bin or cifar-10-batches-py) it reads that folder and
// nowhere else; a folder without a complete copy is an error. Otherwise it
// looks, in order, in Keras' cache ($KERAS_HOME/datasets or
// ~/.keras/datasets: cifar-10-batches-py, and where Keras 3 extracts it,
// cifar-10-batches-py-target/cifar-10-batches-py) and in
// cifar-10-batches-bin and cifar-10-batches-py of each folder listed in
// $GOKERAS_DATASETS, and takes the first complete copy. If there is none it downloads Keras' archive
// https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz (checking its
// SHA-256; with BaseURL, cifar-10-python.tar.gz from that mirror, checked
// by parsing) and extracts cifar-10-batches-py into Keras' cache, unless
// NoDownload is given. With the default DownloadTimeout the download may
// take up to 30 minutes.
//
// A copy that is found but malformed is an error wrapping ErrFormat that
// names the file: a size that is not a whole number of records, labels out
// of range, a pickle that is not a CIFAR batch, or batches that do not all
// hold the same number of records (the official ones hold 10,000 each;
// smaller batches are accepted if they agree, so that subsets load).
func LoadCIFAR10(opts ...LoadOption) (train, test Pair, err error) {
	return loadCIFAR(&cifar10Spec, cifarLabels{index: 0, key: "labels", classes: 10}, opts)
}

// LoadCIFAR100 returns CIFAR-100 like keras.datasets.cifar100.load_data:
// 50,000 training and 10,000 test images, X of shape (N, 32, 32, 3) and Y
// of shape (N,), both tensor.Uint8. Y holds the fine labels (0..99)
// unless LabelMode("coarse") asks for the 20 superclasses.
//
// It reads the binary version (folder cifar-100-binary: train.bin and
// test.bin, records of a coarse label byte, a fine label byte and 3072
// pixel bytes) or the Python one Keras uses (folder cifar-100-python:
// pickled train and test), gzipped or not, searching as LoadCIFAR10 does
// (Dir alone, else ~/.keras/datasets/cifar-100-python and each folder of
// $GOKERAS_DATASETS) and downloading
// https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz into Keras'
// cache when no copy is found.
func LoadCIFAR100(opts ...LoadOption) (train, test Pair, err error) {
	cfg := newLoadConfig(opts)
	labels := cifarLabels{index: 1, key: "fine_labels", classes: 100}
	switch cfg.labelMode {
	case "", "fine":
	case "coarse":
		labels = cifarLabels{index: 0, key: "coarse_labels", classes: 20}
	default:
		return Pair{}, Pair{}, fmt.Errorf(`datasets: LabelMode(%q): want "fine" or "coarse"`, cfg.labelMode)
	}
	return loadCIFAR(&cifar100Spec, labels, opts)
}

// cifarLabels says which labels to return.
type cifarLabels struct {
	index   int    // which label byte of a binary record
	key     string // the pickled batch's key
	classes int    // labels must be below this
}

// cifarSpec describes one CIFAR dataset: its two layouts, where it may be
// and where to download it.
type cifarSpec struct {
	title         string   // "CIFAR-10", for messages
	binDir, pyDir string   // the folders of the two versions
	binTrain      []string // file names in binDir (each also accepted with .gz)
	binTest       string
	pyTrain       []string // file names in pyDir (each also accepted with .gz)
	pyTest        string
	labelClasses  []int    // class count of each label byte of a binary record
	sameCounts    bool     // all files hold as many records (the CIFAR-10 batches)
	kerasDirs     []string // copies in Keras' cache, relative to it
	url, sha256   string   // Keras' download and its checksum
	archive       string   // the archive's name on a BaseURL mirror
	filesSummary  string   // what the files are called, for "no files" reasons
	hint          string   // how to get the data, for NotFoundError
	dataset       string   // NotFoundError.Dataset
}

var cifar10Spec = cifarSpec{
	title:  "CIFAR-10",
	binDir: "cifar-10-batches-bin",
	pyDir:  "cifar-10-batches-py",
	binTrain: []string{"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
		"data_batch_4.bin", "data_batch_5.bin"},
	binTest:      "test_batch.bin",
	pyTrain:      []string{"data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5"},
	pyTest:       "test_batch",
	labelClasses: []int{10},
	sameCounts:   true,
	kerasDirs:    []string{"cifar-10-batches-py", filepath.Join("cifar-10-batches-py-target", "cifar-10-batches-py")},
	url:          "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
	sha256:       "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
	archive:      "cifar-10-python.tar.gz",
	filesSummary: "data_batch_1.bin ... data_batch_5.bin and test_batch.bin, or Keras' data_batch_1 ... data_batch_5 and test_batch",
	hint: "To get CIFAR-10: put Keras' folder cifar-10-batches-py (data_batch_1 ... data_batch_5, test_batch; " +
		"from https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz) in ~/.keras/datasets/, or the binary " +
		"version's folder cifar-10-batches-bin (data_batch_1.bin ... data_batch_5.bin, test_batch.bin, gzipped " +
		"or not; from https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz) in a folder listed in $" + EnvDatasets + ", or pass " +
		"datasets.Dir(folder) naming either folder or the folder that holds it; with network access the loader " +
		"downloads cifar-10-python.tar.gz into ~/.keras/datasets/cifar-10-batches-py itself.",
	dataset: "cifar-10",
}

var cifar100Spec = cifarSpec{
	title:        "CIFAR-100",
	binDir:       "cifar-100-binary",
	pyDir:        "cifar-100-python",
	binTrain:     []string{"train.bin"},
	binTest:      "test.bin",
	pyTrain:      []string{"train"},
	pyTest:       "test",
	labelClasses: []int{20, 100},
	kerasDirs:    []string{"cifar-100-python", filepath.Join("cifar-100-python-target", "cifar-100-python")},
	url:          "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz",
	sha256:       "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
	archive:      "cifar-100-python.tar.gz",
	filesSummary: "train.bin and test.bin, or Keras' train and test",
	hint: "To get CIFAR-100: put Keras' folder cifar-100-python (train, test; from " +
		"https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz) in ~/.keras/datasets/, or the binary " +
		"version's folder cifar-100-binary (train.bin, test.bin, gzipped or not; from " +
		"https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz) in a folder listed in $" + EnvDatasets + ", or pass " +
		"datasets.Dir(folder) naming either folder or the folder that holds it; with network access the loader " +
		"downloads cifar-100-python.tar.gz into ~/.keras/datasets/cifar-100-python itself.",
	dataset: "cifar-100",
}

func loadCIFAR(spec *cifarSpec, labels cifarLabels, opts []LoadOption) (train, test Pair, err error) {
	cfg := newLoadConfig(opts)
	src, searched, ok := spec.search(cfg)
	if ok {
		return src.load(spec, labels)
	}
	if cfg.dir != "" {
		return Pair{}, Pair{}, &NotFoundError{Dataset: spec.dataset, Searched: searched,
			Hint: explicitDirHint(cfg.dir, spec.filesSummary+" (gzipped or not), in the folder itself or in "+
				spec.binDir+" or "+spec.pyDir+" inside it")}
	}
	dlErr := errDownloadDisabled
	if !cfg.noDownload {
		if train, test, dlErr = spec.download(cfg, labels); dlErr == nil {
			return train, test, nil
		}
	}
	return Pair{}, Pair{}, &NotFoundError{Dataset: spec.dataset, Searched: searched, Download: dlErr, Hint: spec.hint}
}

// cifarSource is a complete copy: the training files and the test file of
// one layout.
type cifarSource struct {
	binary bool // records (the binary version) rather than pickles
	train  []string
	test   string
}

// cifarPlace is one place in the search: a folder and the folders in it
// that may hold the files (itself, binDir, pyDir).
type cifarPlace struct {
	where      string
	candidates []string
	note       string // why a place was not looked at ($GOKERAS_DATASETS not set)
}

// places lists where to look, in order, without repeating a folder.
func (s *cifarSpec) places(cfg *loadConfig) (places []cifarPlace) {
	seen := map[string]bool{}
	add := func(where string, self bool) {
		where = filepath.Clean(where)
		if seen[where] {
			return
		}
		seen[where] = true
		p := cifarPlace{where: where}
		if self {
			p.candidates = append(p.candidates, where)
		}
		p.candidates = append(p.candidates, filepath.Join(where, s.binDir), filepath.Join(where, s.pyDir))
		places = append(places, p)
	}
	if cfg.dir != "" {
		add(cfg.dir, true)
		return places
	}
	if cache, err := cfg.cache(); err != nil {
		places = append(places, cifarPlace{where: "~/.keras/datasets", note: err.Error()})
	} else {
		for _, d := range s.kerasDirs {
			d = filepath.Join(cache, d)
			if !seen[d] {
				seen[d] = true
				places = append(places, cifarPlace{where: d, candidates: []string{d}})
			}
		}
	}
	shared := sharedFolders()
	for _, d := range shared {
		add(d, false)
	}
	if len(shared) == 0 {
		places = append(places, cifarPlace{where: "$" + EnvDatasets, note: "not set"})
	}
	for _, d := range cfg.fixedDirs {
		add(d, true)
	}
	return places
}

// search returns the first complete copy, and for NotFoundError every place
// that did not qualify and why.
func (s *cifarSpec) search(cfg *loadConfig) (src cifarSource, searched []string, ok bool) {
	for _, p := range s.places(cfg) {
		if p.note != "" {
			searched = append(searched, p.where+": "+p.note)
			continue
		}
		src, why, ok := s.probePlace(p)
		if ok {
			return src, searched, true
		}
		searched = append(searched, p.where+": "+why)
	}
	return cifarSource{}, searched, false
}

// probePlace checks each candidate folder of a place and explains, if none
// holds a complete copy, what was wrong with those that exist.
func (s *cifarSpec) probePlace(p cifarPlace) (cifarSource, string, bool) {
	if why := checkDir(p.where); why != "" {
		return cifarSource{}, why, false
	}
	// The folder's own reason is "no files" unless it holds part of a
	// copy; the subfolders' reasons are worth giving if they exist.
	var own string
	var reasons []string
	for _, c := range p.candidates {
		src, why, ok := s.probeDir(c)
		switch {
		case ok:
			return src, "", true
		case c == p.where:
			own = why
			if strings.HasPrefix(why, "incomplete") {
				reasons = append(reasons, why)
			}
		case why != "no such folder":
			reasons = append(reasons, filepath.Base(c)+": "+why)
		}
	}
	switch {
	case len(reasons) > 0:
		return cifarSource{}, strings.Join(reasons, "; "), false
	case own != "":
		return cifarSource{}, own + ", and no " + s.binDir + " or " + s.pyDir + " folder", false
	}
	return cifarSource{}, "no " + s.binDir + " or " + s.pyDir + " folder", false
}

func checkDir(dir string) string {
	st, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return "no such folder"
	case err != nil:
		return err.Error()
	case !st.IsDir():
		return "not a folder"
	}
	return ""
}

// probeDir looks for a complete copy of either layout in one folder. A
// partial copy does not count, but the reason names what is missing.
func (s *cifarSpec) probeDir(dir string) (cifarSource, string, bool) {
	if why := checkDir(dir); why != "" {
		return cifarSource{}, why, false
	}
	find := func(names []string) (paths, missing []string) {
		for _, name := range names {
			found := ""
			for _, n := range []string{name, name + ".gz"} {
				if _, _, ok := probeFile(filepath.Join(dir, n)); ok {
					found = filepath.Join(dir, n)
					break
				}
			}
			if found == "" {
				missing = append(missing, name+"[.gz]")
			} else {
				paths = append(paths, found)
			}
		}
		return paths, missing
	}
	binPaths, binMissing := find(append(append([]string(nil), s.binTrain...), s.binTest))
	if len(binMissing) == 0 {
		return cifarSource{binary: true, train: binPaths[:len(s.binTrain)], test: binPaths[len(s.binTrain)]}, "", true
	}
	pyPaths, pyMissing := find(append(append([]string(nil), s.pyTrain...), s.pyTest))
	if len(pyMissing) == 0 {
		return cifarSource{train: pyPaths[:len(s.pyTrain)], test: pyPaths[len(s.pyTrain)]}, "", true
	}
	switch {
	case len(binPaths) > 0 && len(binPaths) >= len(pyPaths):
		return cifarSource{}, "incomplete: missing " + strings.Join(binMissing, ", "), false
	case len(pyPaths) > 0:
		return cifarSource{}, "incomplete: missing " + strings.Join(pyMissing, ", "), false
	}
	return cifarSource{}, "no " + s.title + " files (" + s.filesSummary + ")", false
}

// cifarBatch is one parsed file: n images, image i's planes at
// raw[i*stride+off:][:3072].
type cifarBatch struct {
	path        string
	n           int
	raw         []byte
	stride, off int
	labels      []byte
}

// load reads a complete copy, decoding the files concurrently.
func (src cifarSource) load(spec *cifarSpec, labels cifarLabels) (train, test Pair, err error) {
	paths := append(append([]string(nil), src.train...), src.test)
	batches := make([]cifarBatch, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() {
			if src.binary {
				batches[i], errs[i] = readCIFARBinary(p, spec, labels)
			} else {
				batches[i], errs[i] = readCIFARPickle(p, labels)
			}
		})
	}
	wg.Wait()
	for _, err := range errs { // the first, as the other loaders report
		if err != nil {
			return Pair{}, Pair{}, err
		}
	}
	if spec.sameCounts {
		if err := checkSameCounts(spec, batches); err != nil {
			return Pair{}, Pair{}, err
		}
	}
	nt := len(src.train)
	return assembleCIFAR(batches[:nt]), assembleCIFAR(batches[nt:]), nil
}

// checkSameCounts reports a batch that holds a different number of
// records from the others (most likely cut short): the CIFAR-10 batches
// all hold 10,000.
func checkSameCounts(spec *cifarSpec, batches []cifarBatch) error {
	freq := map[int]int{}
	for _, b := range batches {
		freq[b.n]++
	}
	common := 0
	for n, f := range freq {
		if f > freq[common] || (f == freq[common] && n > common) {
			common = n
		}
	}
	for _, b := range batches {
		if b.n != common {
			return formatErrorf(b.path, "holds %d records, but the other %s batches hold %d each (the official ones hold 10000): cut short, or from another copy",
				b.n, spec.title, common)
		}
	}
	return nil
}

// assembleCIFAR stacks batches into one (N, 32, 32, 3) tensor of images,
// turning each image's three colour planes into interleaved pixels, and
// one (N,) tensor of labels.
func assembleCIFAR(batches []cifarBatch) Pair {
	total := 0
	for _, b := range batches {
		total += b.n
	}
	x := make([]byte, total*cifarImageBytes)
	y := make([]byte, 0, total)
	const chunk = 2500 // images per goroutine
	var wg sync.WaitGroup
	start := 0
	for _, b := range batches {
		y = append(y, b.labels...)
		for lo := 0; lo < b.n; lo += chunk {
			dst := x[(start+lo)*cifarImageBytes:]
			wg.Go(func() {
				for i := lo; i < min(lo+chunk, b.n); i++ {
					planesToPixels(dst[(i-lo)*cifarImageBytes:], b.raw[i*b.stride+b.off:])
				}
			})
		}
		start += b.n
	}
	wg.Wait()
	return Pair{
		X: tensor.New(tensor.WithShape(total, 32, 32, 3), tensor.WithBacking(x)),
		Y: tensor.New(tensor.WithShape(total), tensor.WithBacking(y)),
	}
}
