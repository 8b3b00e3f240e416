package ops

import (
	"slices"
	"testing"
)

// TestSeedGeneratorDraws: a seeded draw is a function of the generator's
// state: restoring the state repeats it, each draw advances the counter
// by one, and the k-th draw of a step equals the first draw from the
// state advanced k times (Keras' next() at every draw).
func TestSeedGeneratorDraws(t *testing.T) {
	x := make([]float32, 64)
	for i := range x {
		x[i] = 1
	}
	draw := func(g *SeedGenerator, n int) [][]float32 {
		tr := NewEagerTrace(true, 9)
		in := tr.Constant(Shape{8, 8}, x)
		var out [][]float32
		for i := 0; i < n; i++ {
			out = append(out, SeededDropout(in, 0.5, g).Float32s())
		}
		return out
	}
	g := NewSeedGenerator("g/seed_generator_state", 5)
	two := draw(g, 2) // one step with two draws
	if st := g.State().Numpy(); st[0] != 5 || st[1] != 2 {
		t.Fatalf("state after two draws %v, want [5 2]", st)
	}
	if slices.Equal(two[0], two[1]) {
		t.Error("two draws of one step have the same mask")
	}
	if err := g.State().Assign([]float32{5, 0}); err != nil {
		t.Fatal(err)
	}
	if again := draw(g, 1)[0]; !slices.Equal(again, two[0]) {
		t.Error("the restored state draws another mask")
	}
	if second := draw(g, 1)[0]; !slices.Equal(second, two[1]) {
		t.Error("the draw from state [5 1] differs from the second draw of a step at [5 0]")
	}
	// Another seed, another mask; a mask keeps about half.
	if other := draw(NewSeedGenerator("h", 6), 1)[0]; slices.Equal(other, two[0]) {
		t.Error("seeds 5 and 6 draw the same mask")
	}
	kept := 0
	for _, v := range two[0] {
		if v != 0 {
			kept++
			if v != 2 {
				t.Fatalf("kept value %v, want 1/(1-0.5) = 2", v)
			}
		}
	}
	if kept < 16 || kept > 48 {
		t.Errorf("kept %d of 64 at rate 0.5", kept)
	}
}

func TestSeededRandomFlipFollowsTheState(t *testing.T) {
	img := make([]float32, 4*3*3*1)
	for i := range img {
		img[i] = float32(i)
	}
	flip := func(g *SeedGenerator) []float32 {
		tr := NewEagerTrace(true, 1)
		return SeededRandomFlip(tr.Constant(Shape{4, 3, 3, 1}, img), true, true, g).Float32s()
	}
	g := NewSeedGenerator("flip", 11)
	first := flip(g)
	var later [][]float32
	for i := 0; i < 6; i++ {
		later = append(later, flip(g))
	}
	if err := g.State().Assign([]float32{11, 0}); err != nil {
		t.Fatal(err)
	}
	if again := flip(g); !slices.Equal(again, first) {
		t.Error("the restored state flips otherwise")
	}
	differs := false
	for _, l := range later {
		differs = differs || !slices.Equal(l, first)
	}
	if !differs {
		t.Error("7 draws flipped the batch the same way")
	}
}

func TestAdvanceSeedStateWraps(t *testing.T) {
	st := []float32{seedSpan - 1, seedSpan - 1}
	advanceSeedState(st, 1)
	if st[0] != 0 || st[1] != 0 {
		t.Errorf("state after the last counter value %v, want [0 0]", st)
	}
	a, b := stateSeeds([]float32{3, seedSpan - 1}, 1, 0)
	c, d := stateSeeds([]float32{4, 0}, 0, 0)
	if a != c || b != d {
		t.Error("a draw offset past the counter's end differs from the wrapped state's draw")
	}
}
