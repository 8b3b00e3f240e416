package datasets

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"

	"gorgonia.org/tensor"
)

var bostonSpec = textSpec{
	name: "boston_housing", file: "boston_housing.npz",
	sha256: "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
}

var californiaSpec = textSpec{
	name: "california_housing", file: "california_housing.npz",
	sha256: "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f",
}

// maxHousingExamples bounds the rows read from a housing file (Boston has
// 506, California 20,640).
const maxHousingExamples = 1 << 20

// Version chooses the variant of LoadCaliforniaHousing, as Keras'
// version argument: "large" (the default, all 20,640 districts) or
// "small" (the first 600).
func Version(v string) LoadOption { return func(c *loadConfig) { c.version = v } }

// LoadBostonHousing loads the Boston housing price regression dataset, as
// keras.datasets.boston_housing.load_data: 506 houses with 13 features
// each (X, float64 of shape (N, 13)) and their median value in k$ (Y,
// shape (N,)), shuffled by numpy's RandomState(ShuffleSeed, default 113)
// and split by TestSplit (default 0.2) as Keras does, so example i is
// Keras' example i. A split of no rows (TestSplit(0)'s test split) has
// nil X and Y, where Keras returns empty arrays. In Python and in Go:
//
//	(x_train, y_train), (x_test, y_test) = keras.datasets.boston_housing.load_data()
//
//	train, test, err := datasets.LoadBostonHousing()
//
// It reads boston_housing.npz where LoadIMDB looks for imdb.npz (Keras'
// cache, then each $GOKERAS_DATASETS entry or its boston_housing
// subfolder) and downloads it into Keras' cache where there is a network.
// Options: ShuffleSeed, TestSplit, and Dir, NoDownload, CacheDir,
// BaseURL, DownloadTimeout.
func LoadBostonHousing(opts ...LoadOption) (train, test Pair, err error) {
	return loadHousing(bostonSpec, newLoadConfig(opts), 0)
}

// LoadCaliforniaHousing loads the California housing price regression
// dataset, as keras.datasets.california_housing.load_data: 20,640
// districts of the 1990 census with 8 features (X, shape (N, 8)) and their
// median house value in $ (Y, shape (N,)); Version("small") keeps the
// first 600 before shuffling. Shuffling, split and options are those of
// [LoadBostonHousing], plus Version; the file is california_housing.npz.
func LoadCaliforniaHousing(opts ...LoadOption) (train, test Pair, err error) {
	cfg := newLoadConfig(opts)
	keep := 0
	switch cfg.version {
	case "", "large":
	case "small":
		keep = 600
	default:
		return Pair{}, Pair{}, fmt.Errorf("datasets: california_housing: version %q, want \"small\" or \"large\"", cfg.version)
	}
	return loadHousing(californiaSpec, cfg, keep)
}

// loadHousing reads spec's x and y, keeps the first keep rows (0: all),
// shuffles them with Keras' RandomState(seed) and splits off the test rows.
func loadHousing(spec textSpec, cfg *loadConfig, keep int) (train, test Pair, err error) {
	tc := cfg.text.resolve()
	if !(tc.testSplit >= 0 && tc.testSplit < 1) {
		return Pair{}, Pair{}, fmt.Errorf("datasets: %s: TestSplit(%v), want 0 <= test_split < 1", spec.name, tc.testSplit)
	}
	if tc.seed < 0 || tc.seed > math.MaxUint32 {
		return Pair{}, Pair{}, fmt.Errorf("datasets: %s: ShuffleSeed(%d), want 0 to 2**32-1 as numpy's RandomState", spec.name, tc.seed)
	}
	path, err := spec.find(cfg, spec.file, func(p string) error { _, _, err := readHousingNPZ(p); return err })
	if err != nil {
		return Pair{}, Pair{}, err
	}
	x, y, err := readHousingNPZ(path)
	if err != nil {
		return Pair{}, Pair{}, err
	}
	if keep > 0 && keep < x.rows {
		x.rows, y.rows = keep, keep
	}
	perm := kerasPermutation(newMT19937(uint32(tc.seed)), x.rows)
	split := int(float64(x.rows) * (1 - tc.testSplit))
	return Pair{x.take(perm[:split]), y.take(perm[:split])}, Pair{x.take(perm[split:]), y.take(perm[split:])}, nil
}

// floatArray is a float32 or float64 array read from an npy member.
type floatArray struct {
	dtype tensor.Dtype
	shape []int // of the whole array; shape[0] is rows in the file
	rows  int   // rows in use
	data  []byte
	width int // bytes per row
}

// take returns rows idx of a as a new tensor of a's dtype; nil for no
// rows (a tensor.Dense with none panics on Data).
func (a floatArray) take(idx []int) *tensor.Dense {
	if len(idx) == 0 {
		return nil
	}
	shape := append([]int{len(idx)}, a.shape[1:]...)
	t := newDense(a.dtype, shape)
	dst := denseBytes(t)
	for i, r := range idx {
		copy(dst[i*a.width:(i+1)*a.width], a.data[r*a.width:(r+1)*a.width])
	}
	return t
}

// readHousingNPZ reads arrays x (N, F) and y (N,) of float32 or float64.
func readHousingNPZ(path string) (x, y floatArray, err error) {
	f, err := os.Open(path)
	if err != nil {
		return x, y, fmt.Errorf("datasets: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return x, y, fmt.Errorf("datasets: %w", err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return x, y, formatErrorf(path, "not a readable npz archive: %v", err)
	}
	if x, err = readFloatMember(zr, path, "x", 2); err != nil {
		return x, y, err
	}
	if y, err = readFloatMember(zr, path, "y", 1); err != nil {
		return x, y, err
	}
	if x.rows != y.rows {
		return x, y, formatErrorf(path, "%d rows in x but %d values in y", x.rows, y.rows)
	}
	if x.rows == 0 {
		return x, y, formatErrorf(path, "holds no examples")
	}
	return x, y, nil
}

// readFloatMember reads the float array key of the given rank (y may also
// be stored as (N, 1), as some copies do).
func readFloatMember(zr *zip.Reader, path, key string, rank int) (floatArray, error) {
	var zf *zip.File
	for _, name := range []string{key + ".npy", key} {
		for _, m := range zr.File {
			if m.Name == name && zf == nil {
				zf = m
			}
		}
	}
	if zf == nil {
		return floatArray{}, formatErrorf(path, "no array %q (has %s)", key, memberNames(zr))
	}
	rc, err := zf.Open()
	if err != nil {
		return floatArray{}, formatErrorf(path, "%s: %v", key, err)
	}
	defer rc.Close()
	hdr, err := readNPYHeader(rc)
	if err != nil {
		return floatArray{}, formatErrorf(path, "%s: %v", key, err)
	}
	var a floatArray
	var order binary.ByteOrder = binary.LittleEndian
	switch hdr.descr {
	case "<f8", "f8", "=f8":
		a.dtype = tensor.Float64
	case ">f8":
		a.dtype, order = tensor.Float64, binary.BigEndian
	case "<f4", "f4", "=f4":
		a.dtype = tensor.Float32
	case ">f4":
		a.dtype, order = tensor.Float32, binary.BigEndian
	default:
		return floatArray{}, formatErrorf(path, "%s has dtype %s, want float64 (<f8) or float32 (<f4)", key, quote(hdr.descr))
	}
	shape := slices.Clone(hdr.shape)
	if rank == 1 && len(shape) == 2 && shape[1] == 1 {
		shape = shape[:1]
	}
	if len(shape) != rank || (rank == 2 && (shape[1] == 0 || shape[1] > 1024)) {
		return floatArray{}, formatErrorf(path, "%s has shape %v, want %s", key, hdr.shape, map[int]string{1: "(N,)", 2: "(N, features)"}[rank])
	}
	if hdr.fortran && rank > 1 {
		return floatArray{}, formatErrorf(path, "%s is stored in Fortran order, which is not supported", key)
	}
	if shape[0] > maxHousingExamples {
		return floatArray{}, formatErrorf(path, "%s has implausible shape %v (at most %d rows are read)", key, hdr.shape, maxHousingExamples)
	}
	a.shape, a.rows = shape, shape[0]
	a.width = int(a.dtype.Size())
	for _, d := range shape[1:] {
		a.width *= d
	}
	data, err := readRest(rc, path, key)
	if err != nil {
		return floatArray{}, err
	}
	if len(data) != a.rows*a.width {
		return floatArray{}, formatErrorf(path, "%s: %d bytes of data, its shape %v and dtype %s need %d", key, len(data), hdr.shape, quote(hdr.descr), a.rows*a.width)
	}
	if order == binary.BigEndian {
		size := int(a.dtype.Size())
		for i := 0; i < len(data); i += size {
			slices.Reverse(data[i : i+size])
		}
	}
	a.data = data
	return a, nil
}
