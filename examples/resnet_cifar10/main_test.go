package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gokeras/gokeras/examples/internal/models"
	"github.com/gokeras/gokeras/keras"
)

// writeCIFAR writes a small CIFAR-10 in the official binary layout: records
// of a label byte and 3072 pixel bytes (R, G, B planes), where each class
// is a distinct colour plus noise, so a few steps can learn something.
func writeCIFAR(t *testing.T, dir string, perFile int) {
	t.Helper()
	bin := filepath.Join(dir, "cifar-10-batches-bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5", "test_batch"}
	for _, name := range names {
		buf := make([]byte, 0, perFile*3073)
		for i := 0; i < perFile; i++ {
			label := byte(r.IntN(10))
			buf = append(buf, label)
			for c := 0; c < 3; c++ {
				base := int(label) * 25 * (c + 1) % 256
				for p := 0; p < 1024; p++ {
					buf = append(buf, byte((base+r.IntN(40))%256))
				}
			}
		}
		if err := os.WriteFile(filepath.Join(bin, name+".bin"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestShortRunTwoReplicas trains the example's ResNet for a few steps with
// two replicas on generated CIFAR-format files: the loss must go down.
func TestShortRunTwoReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a ResNet for a few steps")
	}
	dir := t.TempDir()
	writeCIFAR(t, dir, 16)
	hist, err := run(2, 2, 8, 0, 0, 1, dir, keras.VerboseSilent, false, 0, models.KerasInit)
	if err != nil {
		t.Fatal(err)
	}
	loss := hist.History["loss"]
	t.Logf("losses %v", loss)
	if len(loss) != 2 || !(loss[1] < loss[0]) {
		t.Errorf("loss did not go down over 2 epochs: %v", loss)
	}
}
