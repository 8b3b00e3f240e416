package keras_test

import (
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
)

// A config with a string-taking layer in the graph says why it cannot load
// and what to do, naming the layer, rather than "unknown layer class".
func TestStringLayerInGraphExplained(t *testing.T) {
	for _, class := range []string{"StringLookup", "TextVectorization"} {
		_, err := keras.LayerFromConfig(class, map[string]any{"name": "lookup"})
		if err == nil || !strings.Contains(err.Error(), "lookup") || !strings.Contains(err.Error(), "strings") || strings.Contains(err.Error(), "unknown layer class") {
			t.Errorf("%s: %v", class, err)
		}
	}
}
