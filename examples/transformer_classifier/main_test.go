package main

import (
	"math/rand/v2"
	"testing"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
)

// The generated task: sequences of 10 to maxLen tokens below vocab with
// one A and one B, labelled by whether A comes first, about half of them
// positive; checked by scanning the sequences again.
func TestOrderTask(t *testing.T) {
	p := orderTask(2000, 50, 300, rand.New(rand.NewPCG(1, 2)))
	pos := 0
	for i, x := range p.X {
		if len(x) < 10 || len(x) > 50 {
			t.Fatalf("sequence %d has %d tokens", i, len(x))
		}
		a, b := -1, -1
		for j, w := range x {
			switch {
			case w == tokenA && a < 0:
				a = j
			case w == tokenB && b < 0:
				b = j
			case w == tokenA || w == tokenB || w < tokenA || w >= 300:
				t.Fatalf("sequence %d: token %d at %d", i, w, j)
			}
		}
		want := 0
		if a < b {
			want = 1
		}
		if a < 0 || b < 0 || p.Y[i] != want {
			t.Fatalf("sequence %d: A at %d, B at %d, label %d", i, a, b, p.Y[i])
		}
		pos += p.Y[i]
	}
	if pos < 900 || pos > 1100 {
		t.Errorf("%d positives of 2000", pos)
	}
}

// The custom layers' parts are tracked from their fields: the embedding tables,
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
	b := NewTransformerBlock(8, 2, 8, 0.1)
	if n := len(layers.SeedGenerators(b)); n != 0 {
		t.Errorf("%d seed generators before Build", n)
	}
	count(b, ops.Shape{-1, 5, 8})
	if n := len(layers.SeedGenerators(b)); n != 2 {
		t.Errorf("%d seed generators after Build, want its two Dropouts'", n)
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

// With imdb.npz in a $GOKERAS_DATASETS folder (the datasets package's
// small fixture), -data auto trains on it.
func TestRunIMDBFixture(t *testing.T) {
	t.Setenv("KERAS_HOME", t.TempDir())
	t.Setenv("GOKERAS_DATASETS", "../../datasets/testdata/text")
	_, _, _, _, maxLen, err := loadData(settings{data: "auto", vocab: 100, trainSize: 1, valSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if maxLen != imdbMaxLen {
		t.Errorf("maxlen %d on IMDB, want %d", maxLen, imdbMaxLen)
	}
	if _, err := run(settings{data: "imdb", vocab: 100, maxLen: 30, epochs: 1, batchSize: 8, steps: 2, verbose: 0, seed: 3}); err != nil {
		t.Fatal(err)
	}
}

// The tutorial's model has keras.io's parameter count: token and
// position embeddings 20000*32 + 200*32, the block's attention
// 3*(32*2*32 + 2*32) + (2*32*32 + 32), its feed-forward 2*(32*32 + 32) and
// normalizations 2*2*32, then Dense 32*20 + 20 and 20*2 + 2.
func TestModelParams(t *testing.T) {
	m, err := buildModel(200, 20000)
	if err != nil {
		t.Fatal(err)
	}
	want := 20000*32 + 200*32 + 3*(32*2*32+2*32) + (2*32*32 + 32) + 2*(32*32+32) + 2*2*32 + 32*20 + 20 + 20*2 + 2
	got := 0
	for _, w := range m.Weights() {
		got += w.Shape().Size()
	}
	if got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
}
