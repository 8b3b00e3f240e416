package datasets

import (
	"context"
	"testing"

	"gorgonia.org/tensor"
)

func order(t *testing.T, d *Dataset, ctx context.Context) []float32 {
	t.Helper()
	it := d.Iterate(ctx)
	defer it.Close()
	var out []float32
	for el, ok := it.Next(); ok; el, ok = it.Next() {
		out = append(out, el[0].Data().([]float32)...)
	}
	return out
}

// TestShuffleWithEpoch: with an epoch in the context, a pass's order
// depends on the epoch, not on how many passes the process made.
func TestShuffleWithEpoch(t *testing.T) {
	x := tensor.New(tensor.WithShape(50), tensor.WithBacking(func() []float32 {
		v := make([]float32, 50)
		for i := range v {
			v[i] = float32(i)
		}
		return v
	}()))
	base, err := FromTensorSlices(x)
	if err != nil {
		t.Fatal(err)
	}
	d := base.Shuffle(50, 7).Batch(10, false)
	e0 := order(t, d, WithEpoch(context.Background(), 0))
	e1 := order(t, d, WithEpoch(context.Background(), 1))
	// A fresh dataset (another process) asked for epoch 1 directly.
	fresh := base.Shuffle(50, 7).Batch(10, false)
	if got := order(t, fresh, WithEpoch(context.Background(), 1)); !equal(got, e1) {
		t.Errorf("epoch 1 of a fresh pipeline differs:\n%v\n%v", got, e1)
	}
	if equal(e0, e1) {
		t.Error("epochs 0 and 1 have the same order")
	}
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
