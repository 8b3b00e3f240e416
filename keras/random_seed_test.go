package keras

import (
	"reflect"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// TestSetRandomSeedGovernsDropout: models built alike and trained after
// the same SetRandomSeed draw the same dropout masks (equal weights); a
// different seed draws other masks (other weights), as
// keras.utils.set_random_seed does.
func TestSetRandomSeedGovernsDropout(t *testing.T) {
	x, y := svData(32, []int{6}, 3, 4)
	train := func(seed uint64) [][]float32 {
		layers.ClearSession()
		layers.SetRandomSeed(1) // the same initial weights every time
		d1 := layers.NewDense(16, layers.WithActivation("relu"), layers.WithInputShape(6))
		d2 := layers.NewDense(3, layers.WithActivation("softmax"))
		// As in Keras 3, Dropout's seed generator is seeded when the
		// layer is made (its masks then follow the generator's state).
		layers.SetRandomSeed(seed)
		m, err := NewSequential(d1, layers.NewDropout(0.5), d2)
		if err != nil {
			t.Fatal(err)
		}
		svCompile(t, m, optimizers.NewSGD(optimizers.LearningRate(0.1)))
		svFit(t, m, x, y, 1, 0)
		var ws [][]float32
		for _, v := range m.Weights() {
			ws = append(ws, v.Numpy())
		}
		return ws
	}
	a, b, c := train(5), train(5), train(6)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different weights")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("seeds 5 and 6 gave the same weights: dropout ignores SetRandomSeed")
	}
}
