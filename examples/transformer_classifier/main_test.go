package main

import (
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// The generated task: sequences of 10 to maxLen tokens below vocab, each
// with A and B, labelled by whether some A is right before B, about half
// of them positive; checked by scanning the sequences again.
func TestPatternTask(t *testing.T) {
	p := patternTask(2000, 50, 300, rand.New(rand.NewPCG(1, 2)))
	pos := 0
	for i, x := range p.X {
		if len(x) < 10 || len(x) > 50 {
			t.Fatalf("sequence %d has %d tokens", i, len(x))
		}
		hasA, hasB, adj := false, false, 0
		for j, w := range x {
			if w < tokenA || w >= 300 {
				t.Fatalf("sequence %d: token %d", i, w)
			}
			hasA = hasA || w == tokenA
			hasB = hasB || w == tokenB
			if j > 0 && x[j-1] == tokenA && w == tokenB {
				adj = 1
			}
		}
		if p.Y[i] != adj || (p.Y[i] == 0 && (!hasA || !hasB)) {
			t.Fatalf("sequence %d: label %d, adjacent %d, A %v, B %v", i, p.Y[i], adj, hasA, hasB)
		}
		pos += p.Y[i]
	}
	if pos < 900 || pos > 1200 {
		t.Errorf("%d positives of 2000", pos)
	}
}

// The custom layers expose their parts' weights: the embedding tables,
// and the attention, feed-forward and normalization weights (keras.io's
// model has 20000*32 + 200*32 and 4*(32*2*32 + 2*32) - 2*32 + 32 +
// 32*32+32 + 32*32+32 + 4*32 parameters in them).
func TestCustomLayerWeights(t *testing.T) {
	count := func(l layers.Layer, in ops.Shape) int {
		if _, err := layers.OutputShape(l, []ops.Shape{in}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, w := range l.TrainableWeights() {
			n += w.Shape().Size()
		}
		return n
	}
	if got, want := count(NewTokenAndPositionEmbedding(200, 20000, 32), ops.Shape{-1, 200}), 20000*32+200*32; got != want {
		t.Errorf("TokenAndPositionEmbedding: %d parameters, want %d", got, want)
	}
	mha := 3*(32*2*32+2*32) + (2*32*32 + 32)
	if got, want := count(NewTransformerBlock(32, 2, 32, 0.1), ops.Shape{-1, 200, 32}), mha+(32*32+32)*2+2*2*32; got != want {
		t.Errorf("TransformerBlock: %d parameters, want %d", got, want)
	}
	if n := len(NewTransformerBlock(8, 2, 8, 0.1).SeedGenerators()); n != 0 {
		t.Errorf("%d seed generators before Build", n)
	}
}

// A few training steps of the tutorial's model on the generated task run
// end to end and give an accuracy.
func TestRunFewSteps(t *testing.T) {
	acc, err := run(settings{data: "synthetic", vocab: 100, maxLen: 20, epochs: 2, batchSize: 16, steps: 3,
		trainSize: 64, valSize: 32, verbose: 0, seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if acc < 0 || acc > 1 {
		t.Errorf("val_accuracy %v", acc)
	}
}
