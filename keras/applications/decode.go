package applications

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"

	"gorgonia.org/tensor"

	"github.com/gokeras/gokeras/keras/utils"
)

// classIndex is Keras' ImageNet class index: its name in the cache, where
// Keras downloads it from, and its MD5 digest.
var classIndex = weightsFile{"imagenet_class_index.json",
	"https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json",
	"c2c37ea517e94d9795004a39431a14cb"}

// Prediction is one decoded class: its WordNet id ("n01440764"), its
// name ("tench") and its score.
type Prediction struct {
	ClassID   string
	ClassName string
	Score     float32
}

// DecodePredictions is keras.applications.imagenet_utils.decode_predictions
// (every family's decode_predictions): for each row of preds, a batch of
// 1000 ImageNet scores, the top classes, highest score first.
// classIndexPath is the imagenet_class_index.json to read; "" takes
// Keras' cached copy ($KERAS_HOME/models, else ~/.keras/models),
// downloaded there by utils.GetFile when missing, as Keras does.
func DecodePredictions(preds *tensor.Dense, top int, classIndexPath string) ([][]Prediction, error) {
	if preds == nil || len(preds.Shape()) != 2 || preds.Shape()[1] != 1000 {
		var shape any = "nil"
		if preds != nil {
			shape = preds.Shape()
		}
		return nil, fmt.Errorf("applications: DecodePredictions expects a batch of predictions (samples, 1000), got shape %v", shape)
	}
	vals, ok := preds.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("applications: DecodePredictions: want float32 predictions, got %T", preds.Data())
	}
	if top <= 0 {
		return nil, fmt.Errorf("applications: DecodePredictions: top must be positive, got %d", top)
	}
	names, err := readClassIndex(classIndexPath)
	if err != nil {
		return nil, err
	}
	top = min(top, 1000)
	rows := preds.Shape()[0]
	out := make([][]Prediction, rows)
	idx := make([]int, 1000)
	for r := range out {
		row := vals[r*1000 : (r+1)*1000]
		for i := range idx {
			idx[i] = i
		}
		// NaN ranks above every score, as in Keras (NumPy's argsort puts
		// NaN last, and Keras reads it backwards); a comparison with NaN
		// would otherwise break the order and drop classes.
		sort.SliceStable(idx, func(a, b int) bool {
			x, y := row[idx[a]], row[idx[b]]
			if xn, yn := x != x, y != y; xn || yn {
				return xn && !yn
			}
			return x > y
		})
		for _, i := range idx[:top] {
			n := names[i]
			out[r] = append(out[r], Prediction{ClassID: n[0], ClassName: n[1], Score: row[i]})
		}
	}
	return out, nil
}

// readClassIndex reads an imagenet_class_index.json: {"0": ["n01440764",
// "tench"], ...}, every class 0..999.
func readClassIndex(path string) ([1000][2]string, error) {
	var names [1000][2]string
	if path == "" {
		p, err := getFile(classIndex.name, classIndex.url, utils.GetFileConfig{CacheSubdir: "models", FileHash: classIndex.hash})
		if err != nil {
			return names, fmt.Errorf("applications: DecodePredictions: the ImageNet class index (Keras caches it in $KERAS_HOME/models or ~/.keras/models): %w", err)
		}
		path = p
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return names, fmt.Errorf("applications: DecodePredictions: %w", err)
	}
	var m map[string][]string
	if err := json.Unmarshal(b, &m); err != nil {
		return names, fmt.Errorf("applications: DecodePredictions: %s is not an ImageNet class index: %w", path, err)
	}
	for i := range names {
		e := m[strconv.Itoa(i)]
		if len(e) != 2 {
			return names, fmt.Errorf("applications: DecodePredictions: %s has no class %d (want \"%d\": [wordnet id, name])", path, i, i)
		}
		names[i] = [2]string{e[0], e[1]}
	}
	return names, nil
}
