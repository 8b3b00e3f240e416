package datasets

import (
	"os"
	"path/filepath"
	"time"
)

// EnvDatasets names the environment variable that lists folders of shared
// datasets, separated as in PATH (":" on Unix, ";" on Windows). The loaders
// look in each, in order, after Keras' own cache: LoadMNIST in
// $GOKERAS_DATASETS/mnist (each entry), LoadFashionMNIST in
// .../fashion-mnist, the CIFAR loaders in .../cifar-10-batches-bin and
// .../cifar-10-batches-py (or the cifar-100 ones). Empty entries are
// ignored; relative ones are taken from the working directory.
const EnvDatasets = "GOKERAS_DATASETS"

// sharedFolders returns the entries of $GOKERAS_DATASETS, in order.
func sharedFolders() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv(EnvDatasets)) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// DefaultBaseURL is where Keras downloads its datasets from; the loaders
// fetch the same files so that the Keras cache and ours are interchangeable.
const DefaultBaseURL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"

// DefaultDownloadTimeout bounds a whole download. It is short enough that a
// machine whose firewall silently drops packets fails in reasonable time,
// long enough for the 30 MB of Fashion-MNIST on a slow link.
const DefaultDownloadTimeout = 3 * time.Minute

// LoadOption configures LoadMNIST and LoadFashionMNIST.
type LoadOption func(*loadConfig)

type loadConfig struct {
	dir        string
	noDownload bool
	cacheDir   string
	baseURL    string
	timeout    time.Duration
	// fixedDirs, when non-nil, replaces the machine-wide folders (such as
	// /usr/share/datasets/fashion-mnist) so tests do not see real data.
	fixedDirs []string
	labelMode string // LabelMode, for LoadCIFAR100; "" means "fine"
	version   string // Version, for LoadCaliforniaHousing; "" means "large"

	text textConfig // LoadIMDB and LoadReuters (imdb_options.go)
}

func newLoadConfig(opts []LoadOption) *loadConfig {
	cfg := &loadConfig{baseURL: DefaultBaseURL, timeout: DefaultDownloadTimeout}
	for _, o := range opts {
		if o != nil {
			o(cfg)
		}
	}
	return cfg
}

// Dir makes the loader read the copy in path and nowhere else: path is a
// folder holding the four idx files (gzipped or not) or, for MNIST,
// mnist.npz (for CIFAR, the batches or a folder that holds them). A folder
// that is missing or lacks the files is an error wrapping ErrNotFound that
// names the folder and the files looked for; the loader neither falls back
// on another copy nor downloads, so a mistyped path is never hidden.
func Dir(path string) LoadOption { return func(c *loadConfig) { c.dir = path } }

// NoDownload forbids network access: if the data is not found locally the
// loader fails with ErrNotFound instead of downloading.
func NoDownload() LoadOption { return func(c *loadConfig) { c.noDownload = true } }

// CacheDir replaces Keras' cache folder (~/.keras/datasets, or
// $KERAS_HOME/datasets) both where the loader looks and where it downloads.
func CacheDir(path string) LoadOption { return func(c *loadConfig) { c.cacheDir = path } }

// BaseURL downloads from a mirror instead of DefaultBaseURL. The mirror must
// serve the same file names. The SHA-256 of mnist.npz is only enforced for
// DefaultBaseURL; files from a mirror are checked by parsing them.
func BaseURL(url string) LoadOption { return func(c *loadConfig) { c.baseURL = url } }

// DownloadTimeout replaces DefaultDownloadTimeout.
func DownloadTimeout(d time.Duration) LoadOption { return func(c *loadConfig) { c.timeout = d } }

// withFixedDirs replaces the machine-wide folders; tests use it so that the
// real copies on this machine do not mask what they test.
func withFixedDirs(dirs ...string) LoadOption {
	return func(c *loadConfig) { c.fixedDirs = append([]string{}, dirs...) }
}

// cache returns Keras' cache folder, following Keras' own rule
// ($KERAS_HOME/datasets, else ~/.keras/datasets).
func (c *loadConfig) cache() (string, error) {
	if c.cacheDir != "" {
		return c.cacheDir, nil
	}
	if kh := os.Getenv("KERAS_HOME"); kh != "" {
		return filepath.Join(kh, "datasets"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".keras", "datasets"), nil
}
