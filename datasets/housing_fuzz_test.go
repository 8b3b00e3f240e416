package datasets

import (
	"os"
	"testing"
)

// FuzzReadHousingNPZ reads a boston_housing.npz or california_housing.npz.
func FuzzReadHousingNPZ(f *testing.F) {
	for _, name := range []string{"boston_housing.npz", "california_housing.npz"} {
		if b, err := os.ReadFile("testdata/housing/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Add(npzBytes(f, map[string][]byte{"x.npy": npyBytes(">f4", []int{2, 1}, make([]byte, 8)), "y.npy": npyBytes("<f8", []int{2, 1}, make([]byte, 16))}))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := fuzzFile(t, dir, "housing.npz", data)
		bounded(t, len(data)+unzippedSize(data), func() {
			x, y, err := readHousingNPZ(path)
			if err == nil && (x.rows != y.rows || x.rows > maxHousingExamples || len(x.data) != x.rows*x.width) {
				t.Errorf("accepted x %v (%d rows), y %v", x.shape, x.rows, y.shape)
			}
		})
	})
}
