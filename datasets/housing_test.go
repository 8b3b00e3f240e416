package datasets

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gorgonia.org/tensor"
)

// housingExpected is testdata/housing/expected.json, written by
// tools/keras_reference/data_utils_vectors.py with Keras' load_data on the
// npz files beside it (column 0 of x holds the row's index in the file).
type housingExpected struct {
	Cases []struct {
		Dataset     string
		Args        map[string]any
		XTrainDtype string    `json:"x_train_dtype"`
		XTrainShape []int     `json:"x_train_shape"`
		XTestShape  []int     `json:"x_test_shape"`
		TrainRows   []int     `json:"train_rows"`
		TestRows    []int     `json:"test_rows"`
		YTrain      []float64 `json:"y_train"`
		YTest       []float64 `json:"y_test"`
		YTrainSum   float64   `json:"y_train_sum"`
		YTestSum    float64   `json:"y_test_sum"`
		XTrainSum   float64   `json:"x_train_sum"`
		XTestSum    float64   `json:"x_test_sum"`
	}
}

func float64s(t *testing.T, x *tensor.Dense) []float64 {
	t.Helper()
	switch d := x.Data().(type) {
	case []float64:
		return d
	case []float32:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
		return out
	}
	t.Fatalf("dtype %v", x.Dtype())
	return nil
}

func sum(v []float64) (s float64) {
	for _, x := range v {
		s += x
	}
	return s
}

// The loaders return what Keras' load_data returns for the same file:
// the rows in Keras' order (numpy's RandomState(seed) shuffle), the split
// at int(n*(1-test_split)), the file's dtype, and Version("small")'s first
// 600 rows.
func TestHousingMatchesKeras(t *testing.T) {
	b, err := os.ReadFile("testdata/housing/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var e housingExpected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	for _, c := range e.Cases {
		opts := []LoadOption{Dir("testdata/housing"), NoDownload()}
		for k, v := range c.Args {
			switch k {
			case "test_split":
				opts = append(opts, TestSplit(v.(float64)))
			case "seed":
				opts = append(opts, ShuffleSeed(int64(v.(float64))))
			case "version":
				opts = append(opts, Version(v.(string)))
			default:
				t.Fatalf("argument %q", k)
			}
		}
		load := LoadBostonHousing
		if c.Dataset == "california" {
			load = LoadCaliforniaHousing
		}
		train, test, err := load(opts...)
		if err != nil {
			t.Fatalf("%s %v: %v", c.Dataset, c.Args, err)
		}
		for _, p := range []struct {
			what       string
			pair       Pair
			shape      []int
			rows       []int
			y          []float64
			xSum, ySum float64
		}{{"train", train, c.XTrainShape, c.TrainRows, c.YTrain, c.XTrainSum, c.YTrainSum}, {"test", test, c.XTestShape, c.TestRows, c.YTest, c.XTestSum, c.YTestSum}} {
			where := c.Dataset + " " + p.what + " " + stringify(c.Args)
			if p.shape[0] == 0 {
				if p.pair.X != nil || p.pair.Y != nil {
					t.Errorf("%s: no rows, want nil tensors", where)
				}
				continue
			}
			if !reflect.DeepEqual([]int(p.pair.X.Shape()), p.shape) {
				t.Errorf("%s: x shape %v, Keras %v", where, p.pair.X.Shape(), p.shape)
				continue
			}
			if got := p.pair.X.Dtype().String(); got != c.XTrainDtype {
				t.Errorf("%s: dtype %s, Keras %s", where, got, c.XTrainDtype)
			}
			x := float64s(t, p.pair.X)
			f := p.shape[1]
			for i, r := range p.rows {
				if x[i*f] != float64(r) {
					t.Fatalf("%s: row %d is file row %v, Keras %d", where, i, x[i*f], r)
				}
			}
			y := float64s(t, p.pair.Y)
			if p.y != nil && !reflect.DeepEqual(y, p.y) {
				t.Errorf("%s: y %v, Keras %v", where, y, p.y)
			}
			if d := math.Abs(sum(y) - p.ySum); d > 1e-9*math.Abs(p.ySum) {
				t.Errorf("%s: y sums to %v, Keras %v", where, sum(y), p.ySum)
			}
			if d := math.Abs(sum(x) - p.xSum); d > 1e-9*math.Abs(p.xSum)+1e-9 {
				t.Errorf("%s: x sums to %v, Keras %v", where, sum(x), p.xSum)
			}
		}
	}
}

func stringify(m map[string]any) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// A housing file that is not what Keras writes is an error naming the
// file and the problem; a wrong version or split is refused before any
// reading.
func TestHousingErrors(t *testing.T) {
	dir := t.TempDir()
	x := make([]byte, 3*13*8)
	cases := []struct {
		members map[string][]byte
		want    string
	}{
		{map[string][]byte{"x.npy": npyBytes("<f8", []int{3, 13}, x)}, `no array "y"`},
		{map[string][]byte{"x.npy": npyBytes("|u1", []int{3, 13}, x[:39]), "y.npy": npyBytes("<f8", []int{3}, x[:24])}, "want float64"},
		{map[string][]byte{"x.npy": npyBytes("<f8", []int{3, 13}, x), "y.npy": npyBytes("<f8", []int{4}, make([]byte, 32))}, "3 rows in x but 4 values in y"},
		{map[string][]byte{"x.npy": npyBytes("<f8", []int{3, 13}, x[:100]), "y.npy": npyBytes("<f8", []int{3}, x[:24])}, "bytes of data"},
		{map[string][]byte{"x.npy": npyBytes("<f8", []int{3}, x[:24]), "y.npy": npyBytes("<f8", []int{3}, x[:24])}, "want (N, features)"},
	}
	for i, c := range cases {
		writeFile(t, filepath.Join(dir, "boston_housing.npz"), npzBytes(t, c.members))
		_, _, err := LoadBostonHousing(Dir(dir), NoDownload())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "boston_housing.npz") {
			t.Errorf("case %d: %v, want an error naming the file with %q", i, err, c.want)
		}
	}
	if _, _, err := LoadCaliforniaHousing(Dir(dir), Version("medium")); err == nil || !strings.Contains(err.Error(), `version "medium"`) {
		t.Errorf("version medium: %v", err)
	}
	if _, _, err := LoadBostonHousing(Dir(dir), TestSplit(1)); err == nil || !strings.Contains(err.Error(), "TestSplit(1)") {
		t.Errorf("test split 1: %v", err)
	}
	if _, _, err := LoadBostonHousing(Dir(t.TempDir()), NoDownload()); err == nil || !strings.Contains(err.Error(), "boston_housing.npz") {
		t.Errorf("missing: %v", err)
	}
}
