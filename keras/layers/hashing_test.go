package layers

import (
	"testing"

	"github.com/gokeras/gokeras/ops"
)

// TestHashingErrors: bad settings and shapes give errors.
func TestHashingErrors(t *testing.T) {
	for _, l := range []*Hashing{
		NewHashing(0, HashingSettings{}),
		NewHashing(3, HashingSettings{OutputMode: "tf_idf"}),
	} {
		if l.Err() == nil {
			t.Errorf("%v accepted", l.GetConfig())
		}
	}
	if _, err := OutputShape(NewHashing(3, HashingSettings{OutputMode: "count"}), []ops.Shape{{-1, 2, 2}}); err == nil {
		t.Error("count of a rank-3 input accepted")
	}
}
