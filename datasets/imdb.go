package datasets

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// TextPair is one split of a text dataset: X[i] holds the word ids of
// text i (of any length; utils.PadSequences makes a batch of them) and
// Y[i] its label.
type TextPair struct {
	X [][]int
	Y []int
}

// textSpec describes one of Keras' text datasets: a single npz file (and
// its word index) in Keras' cache, a $GOKERAS_DATASETS entry or its
// subfolder name.
type textSpec struct {
	name      string // dataset and subfolder name: "imdb", "reuters"
	file      string // "imdb.npz"
	sha256    string // what Keras enforces on file
	indexFile string // "imdb_word_index.json"
}

var imdbSpec = textSpec{
	name: "imdb", file: "imdb.npz",
	sha256:    "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
	indexFile: "imdb_word_index.json",
}

// LoadIMDB loads Keras' IMDB movie review sentiment dataset, as
// keras.datasets.imdb.load_data: 25,000 training and 25,000 test reviews
// as word ids (by frequency: id 4 is the most frequent word with the
// default IndexFrom(3)), labels 0 (negative) or 1 (positive). In Python
// and in Go:
//
//	(x_train, y_train), (x_test, y_test) = keras.datasets.imdb.load_data(num_words=20000)
//
//	train, test, err := datasets.LoadIMDB(datasets.NumWords(20000))
//
// It reads imdb.npz from Keras' cache ($KERAS_HOME/datasets or
// ~/.keras/datasets), then from each $GOKERAS_DATASETS entry (or its imdb
// subfolder), and downloads it into Keras' cache where there is a network.
// Options: NumWords, SkipTop, MaxLen, ShuffleSeed, StartChar, OOVChar,
// IndexFrom (Keras' load_data arguments, with its defaults), and Dir,
// NoDownload, CacheDir, BaseURL, DownloadTimeout. The texts are shuffled
// as Keras shuffles them (numpy's RandomState(113)), so example i is
// Keras' example i.
func LoadIMDB(opts ...LoadOption) (train, test TextPair, err error) {
	cfg := newLoadConfig(opts)
	tc := cfg.text.resolve()
	if err := tc.check("imdb"); err != nil {
		return TextPair{}, TextPair{}, err
	}
	path, err := imdbSpec.find(cfg, imdbSpec.file, func(p string) error {
		_, _, err := readSequenceNPZ(p, []string{"x_train", "x_test"}, []string{"y_train", "y_test"})
		return err
	})
	if err != nil {
		return TextPair{}, TextPair{}, err
	}
	seqs, labels, err := readSequenceNPZ(path, []string{"x_train", "x_test"}, []string{"y_train", "y_test"})
	if err != nil {
		return TextPair{}, TextPair{}, err
	}
	for _, k := range [][2]string{{"x_train", "y_train"}, {"x_test", "y_test"}} {
		if len(seqs[k[0]]) != len(labels[k[1]]) {
			return TextPair{}, TextPair{}, formatErrorf(path, "%d texts in %s but %d labels in %s", len(seqs[k[0]]), k[0], len(labels[k[1]]), k[1])
		}
	}
	rng := newMT19937(uint32(tc.seed))
	train = permute(TextPair{seqs["x_train"], labels["y_train"]}, kerasPermutation(rng, len(labels["y_train"])))
	test = permute(TextPair{seqs["x_test"], labels["y_test"]}, kerasPermutation(rng, len(labels["y_test"])))
	train.X, test.X = tc.shift(train.X), tc.shift(test.X)
	if tc.maxLen > 0 {
		train, test = tc.dropLong(train), tc.dropLong(test)
		if len(train.X) == 0 || len(test.X) == 0 {
			return TextPair{}, TextPair{}, fmt.Errorf("datasets: imdb: no text is shorter than MaxLen(%d); increase it", tc.maxLen)
		}
	}
	all := tc.limitWords(append(append([][]int(nil), train.X...), test.X...))
	train.X, test.X = all[:len(train.X)], all[len(train.X):]
	return train, test, nil
}

// IMDBWordIndex returns the IMDB word index, as
// keras.datasets.imdb.get_word_index: word -> rank by frequency (1 is the
// most frequent); the ids LoadIMDB returns are rank + IndexFrom. It reads
// imdb_word_index.json from the places LoadIMDB searches, downloading it
// where there is a network.
func IMDBWordIndex(opts ...LoadOption) (map[string]int, error) {
	return imdbSpec.wordIndex(newLoadConfig(opts))
}

func (s textSpec) wordIndex(cfg *loadConfig) (map[string]int, error) {
	path, err := s.find(cfg, s.indexFile, func(p string) error { _, err := readWordIndex(p); return err })
	if err != nil {
		return nil, err
	}
	return readWordIndex(path)
}

// maxWordIndexBytes bounds a word index file (IMDB's is 1.6 MB).
const maxWordIndexBytes = 64 << 20

func readWordIndex(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxWordIndexBytes+1))
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	if len(b) > maxWordIndexBytes {
		return nil, formatErrorf(path, "more than %d bytes, more than a word index", maxWordIndexBytes)
	}
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, formatErrorf(path, "not a word index (a JSON object of word to int): %v", err)
	}
	return m, nil
}

// check rejects arguments Keras rejects or that make no sense.
func (c textConfig) check(name string) error {
	switch {
	case c.seed < 0 || c.seed > 1<<32-1:
		return fmt.Errorf("datasets: %s: ShuffleSeed(%d) must be in [0, 2**32)", name, c.seed)
	case c.numWords < 0 || c.skipTop < 0 || c.maxLen < 0 || c.indexFrom < 0:
		return fmt.Errorf("datasets: %s: NumWords, SkipTop, MaxLen and IndexFrom must not be negative", name)
	case c.testSplit < 0 || c.testSplit > 1:
		return fmt.Errorf("datasets: %s: TestSplit(%v) must be in [0, 1]", name, c.testSplit)
	}
	return nil
}

func permute(p TextPair, idx []int) TextPair {
	out := TextPair{X: make([][]int, len(idx)), Y: make([]int, len(idx))}
	for i, j := range idx {
		out.X[i], out.Y[i] = p.X[j], p.Y[j]
	}
	return out
}

// shift adds index_from to every id and puts start_char first.
func (c textConfig) shift(xs [][]int) [][]int {
	out := make([][]int, len(xs))
	for i, x := range xs {
		var y []int
		if c.startChar >= 0 {
			y = make([]int, 0, len(x)+1)
			y = append(y, c.startChar)
		} else {
			y = make([]int, 0, len(x))
		}
		for _, w := range x {
			y = append(y, w+c.indexFrom)
		}
		out[i] = y
	}
	return out
}

// dropLong keeps the texts shorter than maxlen, as Keras' remove_long_seq.
func (c textConfig) dropLong(p TextPair) TextPair {
	var out TextPair
	for i, x := range p.X {
		if len(x) < c.maxLen {
			out.X = append(out.X, x)
			out.Y = append(out.Y, p.Y[i])
		}
	}
	return out
}

// limitWords replaces (or, with no OOV id, drops) the ids outside
// [skip_top, num_words); num_words defaults to the largest id, which
// Keras' bound then excludes too.
func (c textConfig) limitWords(xs [][]int) [][]int {
	n := c.numWords
	if n == 0 {
		for _, x := range xs {
			for _, w := range x {
				n = max(n, w)
			}
		}
	}
	for i, x := range xs {
		y := x[:0:0]
		for _, w := range x {
			switch {
			case c.skipTop <= w && w < n:
				y = append(y, w)
			case c.oovChar >= 0:
				y = append(y, c.oovChar)
			}
		}
		xs[i] = y
	}
	return xs
}

// find returns the path of file: in Dir alone when given, else in Keras'
// cache, then in each $GOKERAS_DATASETS entry and its subfolder named
// after the dataset; failing those it downloads file into Keras' cache
// (checked by verify, and by its SHA-256 for the npz from Keras' URL).
func (s textSpec) find(cfg *loadConfig, file string, verify func(string) error) (string, error) {
	var places, searched []string
	if cfg.dir != "" {
		places = append(places, filepath.Join(cfg.dir, file))
	} else {
		if cache, err := cfg.cache(); err != nil {
			searched = append(searched, "~/.keras/datasets: "+err.Error())
		} else {
			places = append(places, filepath.Join(cache, file))
		}
		shared := sharedFolders()
		for _, d := range shared {
			places = append(places, filepath.Join(d, file), filepath.Join(d, s.name, file))
		}
		if len(shared) == 0 {
			searched = append(searched, "$"+EnvDatasets+": not set")
		}
	}
	for _, p := range places {
		if _, why, ok := probeFile(p); ok {
			return p, nil
		} else {
			searched = append(searched, p+": "+why)
		}
	}
	nf := &NotFoundError{Dataset: s.name, Searched: searched,
		Hint: fmt.Sprintf("Put Keras' %s (%s%s) in ~/.keras/datasets or a folder listed in $%s.", file, DefaultBaseURL, file, EnvDatasets)}
	switch {
	case cfg.dir != "":
		nf.Hint = explicitDirHint(cfg.dir, file)
		return "", nf
	case cfg.noDownload:
		nf.Download = errDownloadDisabled
		return "", nf
	}
	cache, err := cfg.cache()
	if err != nil {
		nf.Download = fmt.Errorf("no cache folder: %w", err)
		return "", nf
	}
	dst := filepath.Join(cache, file)
	sum := ""
	if cfg.baseURL == DefaultBaseURL && file == s.file {
		sum = s.sha256
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	client := newHTTPClient(cfg.timeout)
	defer client.CloseIdleConnections()
	if err := downloadFile(ctx, client, joinURL(cfg.baseURL, file), dst, sum, verify); err != nil {
		nf.Download = err
		return "", nf
	}
	return dst, nil
}
