package applications

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/internal/kerasvectors"
	"github.com/gokeras/gokeras/keras/utils"
)

// kerasIndexFile is Keras' own imagenet_class_index.json (MD5
// c2c37ea517e94d9795004a39431a14cb, the file Keras downloads from
// storage.googleapis.com), taken from the tensorwatch 0.9.1 package on
// PyPI (MIT); see testdata/README.md.
const kerasIndexFile = "testdata/imagenet_class_index.json"

// decodeVectors is testdata/keras/decode_predictions.json, written by
// tools/keras_reference/decode_predictions_vectors.py.
const decodeVectors = "testdata/keras/decode_predictions.json"

// decodeEntry is one of Keras' (wnid, name, score) tuples. An empty ID is
// a class Keras chose among equal scores at the top-k cut, by NumPy's
// CPU-dependent argsort order: only its score is Keras'.
type decodeEntry struct {
	ID, Name string
	Score    float32
}

func (e *decodeEntry) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) != 3 {
		return errors.New("want [wnid, name, score]")
	}
	if err := json.Unmarshal(raw[0], &e.ID); err != nil {
		return err
	}
	if err := json.Unmarshal(raw[1], &e.Name); err != nil {
		return err
	}
	return json.Unmarshal(raw[2], &e.Score) // ParseFloat(s, 32): the float32 exactly
}

type decodeCase struct {
	Name    string
	Top     int
	Preds   [][]float32
	Decoded [][]decodeEntry
	Ties    []bool
}

// offlineGetFile makes DecodePredictions' getFile the real utils.GetFile
// whose HTTP client records each request and fails it, so a test sees
// whether GetFile took the cached index or tried to download one.
func offlineGetFile(t *testing.T) *[]string {
	t.Helper()
	// No lock: http.Client.Do calls a RoundTripper on the caller's
	// goroutine (no timeout is set), and utils.GetFile starts none. A lock
	// here would also put this package, which has no concurrent code, under
	// tools/race_packages.sh's race run (five minutes of applications).
	var asked []string
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		asked = append(asked, r.URL.String())
		return nil, errors.New("offline test: no download")
	})}
	orig := getFile
	t.Cleanup(func() { getFile = orig })
	getFile = func(fname, origin string, cfg utils.GetFileConfig) (string, error) {
		cfg.Client, cfg.Out = client, io.Discard
		return utils.GetFile(fname, origin, cfg)
	}
	return &asked
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestDecodePredictionsKeras: DecodePredictions with Keras' real class
// index, taken from Keras' cache ($KERAS_HOME/models) by its digest as
// Keras takes it, gives what keras.applications.imagenet_utils.
// decode_predictions gave for the same float32 predictions: the same
// classes (WordNet id and name; the index has two "crane"s and two
// "maillot"s), order and scores, top 1, 3, 5, 6, 1000 and beyond 1000.
// Among equal scores Keras' order is NumPy's unstable argsort's, which
// depends on the CPU; the vectors list those classes by index, the order
// of gokeras' stable sort, and where the cut falls inside equal scores
// only Keras' scores are compared, the classes being any with that score.
func TestDecodePredictionsKeras(t *testing.T) {
	b, err := os.ReadFile(kerasIndexFile)
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(b)
	if got := hex.EncodeToString(sum[:]); got != classIndex.hash {
		t.Fatalf("%s: MD5 %s, not Keras' %s (was the file changed, e.g. its line ends?)", kerasIndexFile, got, classIndex.hash)
	}
	var top struct {
		Index struct {
			File, MD5, Origin string
		}
		TamperedCacheRefetched bool   `json:"tampered_cache_refetched"`
		BadShapeError          string `json:"bad_shape_error"`
	}
	vb, err := os.ReadFile(decodeVectors)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(vb, &top); err != nil {
		t.Fatal(err)
	}
	if top.Index.MD5 != classIndex.hash || top.Index.Origin != classIndex.url {
		t.Errorf("the vectors' index: %+v, want MD5 %s from %s", top.Index, classIndex.hash, classIndex.url)
	}
	var index map[string][2]string
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	classOf := map[string]int{}
	for k, v := range index {
		i, err := strconv.Atoi(k)
		if err != nil {
			t.Fatal(err)
		}
		classOf[v[0]] = i
	}

	home := t.TempDir()
	t.Setenv("KERAS_HOME", home)
	if err := os.MkdirAll(filepath.Join(home, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	cached := filepath.Join(home, "models", classIndex.name)
	if err := os.WriteFile(cached, b, 0o644); err != nil {
		t.Fatal(err)
	}
	asked := offlineGetFile(t)

	cases := kerasvectors.Read[decodeCase](t, decodeVectors)
	var ties, cutTies int
	for _, c := range cases {
		flat := make([]float32, 0, len(c.Preds)*1000)
		for _, r := range c.Preds {
			flat = append(flat, r...)
		}
		preds := tensor.New(tensor.WithShape(len(c.Preds), 1000), tensor.WithBacking(flat))
		got, err := DecodePredictions(preds, c.Top, "")
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		// The index given by path decodes the same.
		byPath, err := DecodePredictions(preds, c.Top, kerasIndexFile)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if len(got) != len(c.Decoded) || len(byPath) != len(got) {
			t.Fatalf("%s: %d rows (by path %d), Keras %d", c.Name, len(got), len(byPath), len(c.Decoded))
		}
		for r, want := range c.Decoded {
			if c.Ties[r] {
				ties++
			}
			if len(got[r]) != len(want) || len(byPath[r]) != len(want) {
				t.Errorf("%s, row %d: %d classes (by path %d), Keras %d", c.Name, r, len(got[r]), len(byPath[r]), len(want))
				continue
			}
			for i, w := range want {
				g := got[r][i]
				if g != byPath[r][i] {
					t.Errorf("%s, row %d, #%d: %+v from the cache, %+v by path", c.Name, r, i, g, byPath[r][i])
				}
				if g.Score != w.Score {
					t.Errorf("%s, row %d, #%d: score %v, Keras %v", c.Name, r, i, g.Score, w.Score)
				}
				if w.ID == "" { // Keras' choice among equal scores
					cutTies++
					k, ok := classOf[g.ClassID]
					if !ok || c.Preds[r][k] != w.Score || index[strconv.Itoa(k)][1] != g.ClassName {
						t.Errorf("%s, row %d, #%d: %+v is not a class scored %v", c.Name, r, i, g, w.Score)
					}
					continue
				}
				if g.ClassID != w.ID || g.ClassName != w.Name {
					t.Errorf("%s, row %d, #%d: %s %s, Keras %s %s", c.Name, r, i, g.ClassID, g.ClassName, w.ID, w.Name)
				}
			}
		}
	}
	if ties == 0 || cutTies == 0 {
		t.Errorf("the vectors have %d rows with ties and %d classes chosen at a cut: the tie cases are gone", ties, cutTies)
	}
	if len(*asked) != 0 {
		t.Errorf("GetFile downloaded %v though Keras' cache holds the index with its digest", *asked)
	}

	// Keras' digest check: a cached index with another digest is fetched
	// again from Keras' origin (Keras did, the vectors say); here the
	// fetch fails, and so does DecodePredictions, rather than decode with
	// the changed file.
	if !top.TamperedCacheRefetched {
		t.Errorf("the vectors say Keras did not fetch the index again for a cached file with another digest")
	}
	changed := append([]byte(nil), b...)
	changed[3] = '1' // {"0": -> {"1":
	if err := os.WriteFile(cached, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	one := tensor.New(tensor.WithShape(1, 1000), tensor.WithBacking(make([]float32, 1000)))
	if _, err := DecodePredictions(one, 5, ""); err == nil {
		t.Errorf("a cached index with another digest decoded")
	}
	if len(*asked) != 1 || (*asked)[0] != classIndex.url {
		t.Errorf("for a cached index with another digest GetFile asked for %v, want Keras' %s once", *asked, classIndex.url)
	}

	// Keras refuses predictions of another shape; so does gokeras.
	if top.BadShapeError == "" {
		t.Errorf("the vectors say Keras decoded a (1, 10) batch")
	}
	if _, err := DecodePredictions(tensor.New(tensor.WithShape(1, 10), tensor.WithBacking(make([]float32, 10))), 5, kerasIndexFile); err == nil {
		t.Errorf("a (1, 10) batch decoded; Keras: %s", top.BadShapeError)
	}
}
