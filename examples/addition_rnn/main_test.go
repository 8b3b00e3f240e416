package main

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/losses"
	"github.com/gokeras/gokeras/keras/optimizers"
)

// The questions are distinct unordered pairs, padded and reversed, and
// each answer is the sum, padded: checked by parsing them back.
func TestQuestions(t *testing.T) {
	qs, as := questions(2000, rand.New(rand.NewPCG(1, 2)))
	if len(qs) != 2000 || len(as) != 2000 {
		t.Fatalf("%d questions, %d answers", len(qs), len(as))
	}
	seen := map[[2]int]bool{}
	for i, q := range qs {
		if len(q) != maxLen || len(as[i]) != outLen {
			t.Fatalf("question %q / answer %q: lengths %d, %d", q, as[i], len(q), len(as[i]))
		}
		parts := strings.Split(strings.TrimSpace(reverse(q)), "+")
		if len(parts) != 2 {
			t.Fatalf("question %q is not a+b", q)
		}
		a, errA := strconv.Atoi(parts[0])
		b, errB := strconv.Atoi(parts[1])
		sum, errS := strconv.Atoi(strings.TrimSpace(as[i]))
		if errA != nil || errB != nil || errS != nil || a+b != sum || a > 999 || b > 999 {
			t.Fatalf("question %q answer %q", q, as[i])
		}
		key := [2]int{min(a, b), max(a, b)}
		if seen[key] {
			t.Fatalf("question %q repeats a pair", q)
		}
		seen[key] = true
	}
	x := encode(qs[:3], maxLen)
	if got := x.Shape(); got[0] != 3 || got[1] != maxLen || got[2] != numChar {
		t.Fatalf("encoded shape %v", got)
	}
	if d := decode(x.Data().([]float32)[:maxLen*numChar]); d != qs[0] {
		t.Errorf("decode(encode(%q)) = %q", qs[0], d)
	}
}

// A few training steps of the tutorial's model run end to end.
func TestRunFewSteps(t *testing.T) {
	if err := run(400, 2, 32, 1, 0, 3, 2); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkTrainStep times one training step of the tutorial's model on a
// batch of 32 questions (Fit on one batch, after a warm-up that traces).
func BenchmarkTrainStep(b *testing.B) {
	layers.SetRandomSeed(1)
	qs, as := questions(32, rand.New(rand.NewPCG(1, 1)))
	x, y := encode(qs, maxLen), encode(as, outLen)
	m, err := buildModel()
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Compile(keras.CompileConfig{Optimizer: optimizers.NewAdam(), Loss: losses.NewCategoricalCrossentropy()}); err != nil {
		b.Fatal(err)
	}
	cfg := keras.FitConfig{BatchSize: 32, NoShuffle: true, Verbose: keras.VerboseSilent}
	if _, err := m.Fit(x, y, cfg); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Fit(x, y, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/step")
}
