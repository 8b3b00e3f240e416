package utils_test

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
)

// The vectors tools/keras_reference/data_utils_vectors.py wrote with
// Keras 3 (its versions in the manifest), on the inputs beside them.
const (
	vectorDir = "testdata/data_utils"
	imagesDir = vectorDir + "/images"
	textsDir  = vectorDir + "/texts"
)

type kerasVectors struct {
	Images []struct {
		Name                string
		Args                map[string]any
		ClassNames          []string  `json:"class_names"`
		FilePaths           []string  `json:"file_paths"`
		ValidationFilePaths []string  `json:"validation_file_paths"`
		Cardinality         *int      `json:"cardinality"`
		XShape              []int     `json:"x_shape"`
		XDtype              string    `json:"x_dtype"`
		X                   []float64 `json:"x"`
		YShape              []int     `json:"y_shape"`
		YDtype              string    `json:"y_dtype"`
		Y                   []float64 `json:"y"`
	}
	Texts []struct {
		Name       string
		Args       map[string]any
		Seed       int64
		ClassNames []string  `json:"class_names"`
		RawBytes   [][]int   `json:"text_bytes"`
		YShape     []int     `json:"y_shape"`
		Y          []float64 `json:"y"`
		FilePaths  []string  `json:"file_paths"`
		Labels     []int
	}
	Timeseries struct {
		Data      []float64
		DataShape []int `json:"data_shape"`
		Targets   []int64
		Cases     []struct {
			Name         string
			Args         map[string]any
			TargetsGiven bool `json:"targets_given"`
			Windows      [][]float64
			Targets      []int64
			AsSet        bool `json:"as_set"`
		}
	}
	LoadImg []struct {
		File  string
		Args  map[string]any
		Mode  string
		Shape []int
		X     []float64
	} `json:"load_img"`
	ArrayToImg []struct {
		X     []float64
		Shape []int
		Scale bool
		Mode  string
		Out   []float64
	} `json:"array_to_img"`
	Permutations []struct {
		Seed int64
		N    int
		Perm []int
	}
}

var vectors = sync.OnceValues(func() (*kerasVectors, error) {
	b, err := os.ReadFile(vectorDir + "/expected.json")
	if err != nil {
		return nil, err
	}
	var v kerasVectors
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return &v, nil
})

func readVectors(t *testing.T) *kerasVectors {
	t.Helper()
	v, err := vectors()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// jpegTolerance is how far a JPEG's samples may lie from TensorFlow's
// (and PIL's): TensorFlow decodes with libjpeg's fast integer IDCT
// (JDCT_IFAST, its default), Go's image/jpeg with a more accurate one, and
// the luma they give differs by at most 1 level on these files (measured:
// 1, and 1.05 after a bilinear resize); the chroma planes' differences of
// a level grow by up to 1.772 (Cb to blue) and 1.402 (Cr to red) in the
// YCbCr to RGB conversion and add to the luma's, so RGB samples differ by
// up to 4 (measured: 4, nearest resizing of the 4:4:4 file). The
// upsampling of 4:2:0 chroma is libjpeg's own (see image_jpeg.go): with
// Go's replication instead the 4:2:0 file differed by 11. One level of
// margin over the measured bounds.
func jpegTolerance(channels int) float64 {
	if channels == 1 {
		return 2
	}
	return 5
}

func isJPEG(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".jpg") || strings.HasSuffix(p, ".jpeg")
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
