package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gokeras/gokeras/engine"
)

func TestModelSpec(t *testing.T) {
	for _, c := range []struct {
		spec    modelSpec
		wantErr string
		args    []string
	}{
		{modelSpec{"mnist_cnn", 1}, "", nil},
		{modelSpec{"mnist_cnn", 0.5}, "", []string{"--width", "0.5"}},
		{modelSpec{"mnist_cnn", 4}, "", []string{"--width", "4"}},
		{modelSpec{"resnet_seed", 1}, "", nil},
		{modelSpec{"resnet_seed", 2}, "only mnist_cnn takes a width", nil},
		{modelSpec{"mnist_cnn", 0.01}, "whole number of filters", nil},
		{modelSpec{"vgg", 1}, "unknown -model", nil},
	} {
		err := c.spec.check()
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%+v: %v", c.spec, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%+v: error %v, want one containing %q", c.spec, err, c.wantErr)
		case c.wantErr == "" && !slices.Equal(c.spec.widthArgs("--width"), c.args):
			t.Errorf("%+v: widthArgs %q, want %q", c.spec, c.spec.widthArgs("--width"), c.args)
		}
	}
}

// TestFloorOf: the seed CNN's 0.985 GFLOP at 100 GFLOP/s is a 9.85 ms
// floor; a 19.7 ms step is twice it.
func TestFloorOf(t *testing.T) {
	f, err := floorOf(modelSpec{"mnist_cnn", 1}, 64, 100)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.fields(2*f.ms), " gflop=0.9854 floor_ms=9.854 floor_ratio=2.00"; got != want {
		t.Errorf("fields %q, want %q", got, want)
	}
	if _, err := floorOf(modelSpec{"mnist_cnn", 1}, 64, 0); err == nil {
		t.Error("a zero peak gave a floor")
	}
}

// TestPrintOpStats: an op line per entry, ms and calls per step, and its
// shapes quoted only when they were gathered.
func TestPrintOpStats(t *testing.T) {
	var b strings.Builder
	printOpStats(&b, "cnn", 64, 4, []engine.OpStat{
		{Kind: "Conv2DBias", Shapes: "64x28x28x1, 3x3x1x32, 32 -> 64x26x26x32", Calls: 8, Time: 10 * time.Millisecond},
		{Kind: "hook", Calls: 4, Time: 2 * time.Millisecond},
	})
	want := `op model=cnn batch=64 kind=Conv2DBias calls_per_step=2 ms_per_step=2.500 shapes="64x28x28x1, 3x3x1x32, 32 -> 64x26x26x32"
op model=cnn batch=64 kind=hook calls_per_step=1 ms_per_step=0.500
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
