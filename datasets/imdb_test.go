package datasets

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// textExpected is testdata/text/expected.json, written by
// testdata/gen_text_npz.py with Keras' own load_data on the fixtures.
type textExpected struct {
	IMDB, Reuters []struct {
		Args   map[string]any
		XTrain [][]int `json:"x_train"`
		YTrain []int   `json:"y_train"`
		XTest  [][]int `json:"x_test"`
		YTest  []int   `json:"y_test"`
	}
	Shuffles []struct {
		Seed int64
		N    int
		Perm []int
	}
}

func readTextExpected(t *testing.T) textExpected {
	t.Helper()
	b, err := os.ReadFile("testdata/text/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var e textExpected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// textOptions turns Keras' load_data keyword arguments into options.
func textOptions(t *testing.T, args map[string]any) []LoadOption {
	t.Helper()
	opts := []LoadOption{Dir("testdata/text"), NoDownload()}
	for k, v := range args {
		n, isNum := v.(float64)
		switch {
		case k == "num_words":
			opts = append(opts, NumWords(int(n)))
		case k == "skip_top":
			opts = append(opts, SkipTop(int(n)))
		case k == "maxlen":
			opts = append(opts, MaxLen(int(n)))
		case k == "seed":
			opts = append(opts, ShuffleSeed(int64(n)))
		case k == "index_from":
			opts = append(opts, IndexFrom(int(n)))
		case k == "test_split":
			opts = append(opts, TestSplit(n))
		case k == "start_char" && !isNum:
			opts = append(opts, StartChar(-1))
		case k == "start_char":
			opts = append(opts, StartChar(int(n)))
		case k == "oov_char" && !isNum:
			opts = append(opts, OOVChar(-1))
		case k == "oov_char":
			opts = append(opts, OOVChar(int(n)))
		default:
			t.Fatalf("unknown argument %s", k)
		}
	}
	return opts
}

func sameTexts(t *testing.T, what string, got, want [][]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d texts, Keras %d", what, len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) || (len(want[i]) > 0 && !reflect.DeepEqual(got[i], want[i])) {
			t.Fatalf("%s[%d] = %v, Keras %v", what, i, got[i], want[i])
		}
	}
}

// LoadIMDB and LoadReuters return what Keras' load_data returns on the
// same files, for Keras' defaults and for each argument.
func TestTextLoadersMatchKeras(t *testing.T) {
	e := readTextExpected(t)
	for name, c := range map[string]struct {
		load  func(...LoadOption) (TextPair, TextPair, error)
		cases int
	}{"imdb": {LoadIMDB, len(e.IMDB)}, "reuters": {LoadReuters, len(e.Reuters)}} {
		for i := 0; i < c.cases; i++ {
			want := e.IMDB
			if name == "reuters" {
				want = e.Reuters
			}
			w := want[i]
			train, test, err := c.load(textOptions(t, w.Args)...)
			if err != nil {
				t.Fatalf("%s %v: %v", name, w.Args, err)
			}
			sameTexts(t, name+" x_train", train.X, w.XTrain)
			sameTexts(t, name+" x_test", test.X, w.XTest)
			if !reflect.DeepEqual(train.Y, w.YTrain) || !reflect.DeepEqual(test.Y, w.YTest) {
				t.Fatalf("%s %v: labels %v %v, Keras %v %v", name, w.Args, train.Y, test.Y, w.YTrain, w.YTest)
			}
		}
	}
}

// The object arrays read alike whatever pickle protocol wrote them.
func TestIMDBPickleProtocols(t *testing.T) {
	want, _, err := readSequenceNPZ("testdata/text/imdb.npz", []string{"x_train", "x_test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"imdb_p0.npz", "imdb_p2.npz"} {
		got, _, err := readSequenceNPZ(filepath.Join("testdata/text", f), []string{"x_train", "x_test"}, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for k := range want {
			sameTexts(t, f+" "+k, got[k], want[k])
		}
	}
}

// The shuffle is numpy's RandomState(seed).shuffle(np.arange(n)).
func TestKerasPermutationMatchesNumpy(t *testing.T) {
	for _, s := range readTextExpected(t).Shuffles {
		got := kerasPermutation(newMT19937(uint32(s.Seed)), s.N)
		if !reflect.DeepEqual(got[:len(s.Perm)], s.Perm) {
			t.Errorf("seed %d, n %d: %v..., numpy %v...", s.Seed, s.N, got[:min(10, len(got))], s.Perm[:min(10, len(s.Perm))])
		}
	}
}

// The word index reads the JSON object of word to rank.
func TestIMDBWordIndex(t *testing.T) {
	m, err := IMDBWordIndex(Dir("testdata/text"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 119 || m["w1"] != 1 || m["w119"] != 119 {
		t.Errorf("%d words, w1 %d, w119 %d", len(m), m["w1"], m["w119"])
	}
	if _, err := ReutersWordIndex(Dir("testdata/text")); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing reuters_word_index.json: %v, want ErrNotFound", err)
	}
}

// The loaders look in Keras' cache and in $GOKERAS_DATASETS (the entry
// and its imdb subfolder), and report every place when nothing is found.
func TestTextLoadersSearch(t *testing.T) {
	b, err := os.ReadFile("testdata/text/imdb.npz")
	if err != nil {
		t.Fatal(err)
	}
	shared := t.TempDir()
	t.Setenv(EnvDatasets, shared)
	t.Setenv("KERAS_HOME", t.TempDir())
	_, _, err = LoadIMDB(NoDownload())
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Searched) != 3 {
		t.Fatalf("nothing anywhere: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(shared, "imdb"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "imdb", "imdb.npz"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	train, _, err := LoadIMDB(NoDownload())
	if err != nil || len(train.X) != 40 {
		t.Fatalf("in $GOKERAS_DATASETS/imdb: %d texts, %v", len(train.X), err)
	}
	cache := t.TempDir()
	if err := os.WriteFile(filepath.Join(cache, "imdb.npz"), []byte("not an npz"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadIMDB(NoDownload(), CacheDir(cache)); !errors.Is(err, ErrFormat) {
		t.Errorf("a corrupt copy in the cache: %v, want ErrFormat", err)
	}
}

// Bad arguments are errors, as in Keras.
func TestTextLoaderArguments(t *testing.T) {
	for _, o := range []LoadOption{ShuffleSeed(-1), NumWords(-2), TestSplit(1.5)} {
		if _, _, err := LoadReuters(Dir("testdata/text"), o); err == nil {
			t.Error("no error")
		}
	}
	if _, _, err := LoadIMDB(Dir("testdata/text"), MaxLen(1)); err == nil {
		t.Error("MaxLen(1) keeps no review: no error")
	}
}

// Where the file is nowhere, LoadIMDB and IMDBWordIndex download it into
// Keras' cache (checked by parsing it: a mirror's file has no known
// checksum), and the next load reads the cached copy; a corrupt download
// leaves nothing behind.
func TestTextDownload(t *testing.T) {
	files := map[string][]byte{}
	for _, f := range []string{"imdb.npz", "imdb_word_index.json"} {
		b, err := os.ReadFile(filepath.Join("testdata/text", f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = b
	}
	files["reuters.npz"] = []byte("PK not really")
	srv, hits := fakeServer(t, files)
	cache := t.TempDir()
	opts := func() []LoadOption { return downloadOpts(t, srv, cache) }
	train, _, err := LoadIMDB(opts()...)
	if err != nil || len(train.X) != 40 {
		t.Fatalf("%d texts, %v", len(train.X), err)
	}
	if _, err := IMDBWordIndex(opts()...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadIMDB(append(opts(), NoDownload())...); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 2 {
		t.Errorf("%d requests, want 2", hits.Load())
	}
	if _, _, err := LoadReuters(opts()...); !errors.Is(err, ErrNotFound) {
		t.Errorf("a corrupt download: %v, want ErrNotFound (with the download's error)", err)
	}
	if got := onlyFiles(t, cache); len(got) != 2 {
		t.Errorf("cache holds %v, want imdb.npz and imdb_word_index.json", got)
	}
}
