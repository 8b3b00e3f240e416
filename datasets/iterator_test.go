package datasets

import (
	"context"
	"runtime"
	"sync"
	"testing"
)

func TestIteratorEnd(t *testing.T) {
	before := runtime.NumGoroutine()
	var ctx context.Context // nil is accepted and means Background
	it := rangeDataset(t, 2).Prefetch(1).Iterate(ctx)
	for i := range 2 {
		if _, ok := it.Next(); !ok {
			t.Fatalf("element %d missing: %v", i, it.Err())
		}
	}
	for range 3 {
		if _, ok := it.Next(); ok {
			t.Fatal("element after the end")
		}
	}
	if it.Err() != nil {
		t.Errorf("Err %v", it.Err())
	}
	// Reaching the end released the goroutines even without Close.
	checkNoLeak(t, before)
	it.Close()
}

func TestIteratorCloseBeforeNextAndConcurrently(t *testing.T) {
	before := runtime.NumGoroutine()
	it := rangeDataset(t, 100).Repeat(-1).Prefetch(2).Iterate(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(it.Close)
	}
	wg.Wait()
	if _, ok := it.Next(); ok || it.Err() != nil {
		t.Errorf("after Close: ok=%v err=%v", ok, it.Err())
	}
	checkNoLeak(t, before)
}

func TestIteratorsAreIndependent(t *testing.T) {
	ds := rangeDataset(t, 5).Prefetch(1)
	a, b := ds.Iterate(context.Background()), ds.Iterate(context.Background())
	defer a.Close()
	defer b.Close()
	a.Next()
	a.Next()
	e, _ := b.Next()
	if e[0].Data().(int) != 0 {
		t.Errorf("second iterator starts at %v", e[0].Data())
	}
	e, _ = a.Next()
	if e[0].Data().(int) != 2 {
		t.Errorf("first iterator continued at %v", e[0].Data())
	}
}
