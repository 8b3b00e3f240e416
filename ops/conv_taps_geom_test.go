package ops

import (
	"testing"
	"time"
)

// TestTapSumMatchesLoop: tapSum counts the same taps as a loop over every
// output position, for every padding, stride, window and size up to 12.
func TestTapSumMatchesLoop(t *testing.T) {
	for n := 1; n <= 12; n++ {
		for k := 1; k <= 7; k++ {
			for s := 1; s <= 4; s++ {
				for _, pad := range []string{"valid", "same"} {
					o, p, err := ConvOutputSize(n, k, s, 1, pad)
					if err != nil {
						continue
					}
					want := 0
					for i := 0; i < o; i++ {
						a, b := tapRange(i, s, p, k, n)
						want += b - a
					}
					if got := tapSum(o, s, p, k, n); got != want {
						t.Errorf("n=%d k=%d s=%d %s: tapSum %d, loop %d", n, k, s, pad, got, want)
					}
				}
			}
		}
	}
}

// TestTapWasteHugeInput: the padding fraction of a 3x3 convolution of a
// 3037000500x3037000500 map (a config's declared input; the product of
// its sides overflows int64) takes no time and is about 0, where the loop
// over output positions never returned.
func TestTapWasteHugeInput(t *testing.T) {
	start := time.Now()
	g := newGeom("Conv2D", Shape{2, 3037000500, 3037000500, 1}, 3, 3, [2]int{1, 1}, [2]int{1, 1}, "same")
	w := g.tapWaste()
	if d := time.Since(start); d > time.Second {
		t.Errorf("tapWaste took %v", d)
	}
	if w < 0 || w > 1e-8 {
		t.Errorf("tapWaste %v; want about 0", w)
	}
	if p := newConvPlan(g, 4); p != nil {
		t.Error("a plan of tap classes for a map with no padding to speak of")
	}
	// A small map: 4 of 9 taps valid at each of the 4 positions of a 2x2.
	g = newGeom("Conv2D", Shape{1, 2, 2, 1}, 3, 3, [2]int{1, 1}, [2]int{1, 1}, "same")
	if w := g.tapWaste(); w != 1-4.0/9 {
		t.Errorf("2x2 map: tapWaste %v, want %v", w, 1-4.0/9)
	}
}
