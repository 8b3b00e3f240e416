package layers

import (
	"encoding/hex"
	"strconv"
	"testing"

	"github.com/gokeras/gokeras/internal/kerasvectors"
)

// TestFingerprint64MatchesTensorFlow compares fingerprint64 with
// TensorFlow's tf.fingerprint (farmhash64) on random byte strings of every
// length up to 69 and some longer ones (each of FarmHash's length
// branches, and the 64-byte loop run once to 15 times), from
// testdata/keras/fingerprint.json (tools/keras_reference/text_vectors.py).
func TestFingerprint64MatchesTensorFlow(t *testing.T) {
	type fpCase struct {
		Name, Hex     string
		Fingerprint64 string
	}
	cases := kerasvectors.Read[fpCase](t, "testdata/keras/fingerprint.json")
	if len(cases) < 70 {
		t.Fatalf("%d cases, want at least 70", len(cases))
	}
	for _, tc := range cases {
		b, err := hex.DecodeString(tc.Hex)
		if err != nil {
			t.Fatal(err)
		}
		want, err := strconv.ParseUint(tc.Fingerprint64, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := fingerprint64(b); got != want {
			t.Errorf("%s: fingerprint64 = %d, TensorFlow %d", tc.Name, got, want)
		}
	}
}
