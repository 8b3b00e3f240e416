package distribute_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/datasets"
	"github.com/gokeras/gokeras/distribute"
	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// TestRunErrorsReadWhatWentWrongFirst: a Dense fed the wrong width in a
// step run by strategy.Run gives an error that starts with the layer and
// the shapes, with the call path after.
func TestRunErrorsReadWhatWentWrongFirst(t *testing.T) {
	if err := distribute.SetLogicalCPUs(2); err != nil {
		t.Fatal(err)
	}
	s, err := distribute.NewMirroredStrategy()
	if err != nil {
		t.Fatal(err)
	}
	dense := layers.NewDense(64, layers.WithName("dense_run"))
	exit := s.Scope()
	err = dense.Build([]ops.Shape{{-1, 784}})
	exit()
	if err != nil {
		t.Fatal(err)
	}
	step := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		return []ops.Tensor{dense.Call(in[:1], true)}, nil
	})
	x := tensor.New(tensor.WithShape(32, 10), tensor.WithBacking(make([]float32, 320)))
	ds, err := datasets.FromTensorSlices(x)
	if err != nil {
		t.Fatal(err)
	}
	it := s.ExperimentalDistributeDataset(ds.Batch(32, false)).Iterate(context.Background())
	defer it.Close()
	batch, ok := it.Next()
	if !ok {
		t.Fatal(it.Err())
	}
	_, err = s.Run(step, batch)
	want := `layer "dense_run" (Dense): input shape (16, 10) does not match the kernel (784, 64) (in distribute: Run > keras: Function`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error\n  %v\nwant it to start with\n  %s", err, want)
	}
}
