package random_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gokeras/gokeras/keras"
	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/keras/random"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// values returns a function reading a draw's values, failing t on error.
func values(t *testing.T) func(*tensor.Dense, error) []float32 {
	return func(d *tensor.Dense, err error) []float32 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return d.Data().([]float32)
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

func TestSeedIsStateless(t *testing.T) {
	data := values(t)
	a := data(random.Normal([]int{3, 4}, random.Seed(7)))
	b := data(random.Normal([]int{3, 4}, random.Seed(7)))
	c := data(random.Normal([]int{3, 4}, random.Seed(8)))
	if !equal(a, b) {
		t.Error("Normal with the same seed differs between calls")
	}
	if equal(a, c) {
		t.Error("Normal with seeds 7 and 8 gives the same values")
	}
}

func TestGeneratorAdvances(t *testing.T) {
	data := values(t)
	g := random.NewSeedGenerator(1337)
	st := g.State()
	if got := st.Numpy(); got[0] != 1337 || got[1] != 0 {
		t.Fatalf("initial state %v, want [1337 0]", got)
	}
	a := data(random.Normal([]int{5}, random.Generator(g)))
	b := data(random.Normal([]int{5}, random.Generator(g)))
	if got := st.Numpy(); got[1] != 2 {
		t.Errorf("state after two draws %v, want counter 2", got)
	}
	if equal(a, b) {
		t.Error("two draws of a generator are equal")
	}
	// Back to the saved state: the same draws again (what a restored
	// checkpoint relies on).
	if err := st.Assign([]float32{1337, 0}); err != nil {
		t.Fatal(err)
	}
	if a2 := data(random.Normal([]int{5}, random.Generator(g))); !equal(a, a2) {
		t.Errorf("draw from the restored state %v, want %v", a2, a)
	}
}

func TestDistributions(t *testing.T) {
	data := values(t)
	const n = 200000
	x := data(random.Normal([]int{n}, random.Mean(2), random.Stddev(3), random.Seed(1)))
	var s, s2 float64
	for _, v := range x {
		s += float64(v)
		s2 += float64(v) * float64(v)
	}
	mean := s / n
	std := math.Sqrt(s2/n - mean*mean)
	// Standard errors: 3/sqrt(n) = 0.0067 for the mean, about 0.005 for the stddev.
	if math.Abs(mean-2) > 0.04 || math.Abs(std-3) > 0.03 {
		t.Errorf("normal(2, 3): mean %v, stddev %v", mean, std)
	}
	u := data(random.Uniform([]int{n}, random.MinVal(-1), random.MaxVal(3), random.Seed(2)))
	s = 0
	for _, v := range u {
		if v < -1 || v >= 3 {
			t.Fatalf("uniform value %v outside [-1, 3)", v)
		}
		s += float64(v)
	}
	// Mean 1, standard error 4/sqrt(12n) = 0.0026.
	if m := s / n; math.Abs(m-1) > 0.015 {
		t.Errorf("uniform(-1, 3): mean %v", m)
	}
}

// TestTracedDrawsFollowTheState: in a traced function the draw is fresh
// at every replay, equal to the eager draws of a generator with the same
// seed, and advances the state once per replay.
func TestTracedDrawsFollowTheState(t *testing.T) {
	data := values(t)
	g := random.NewSeedGenerator(42)
	f := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		return []ops.Tensor{ops.Add(in[0], random.NormalIn(in[0].Trace(), ops.Shape{4}, random.Generator(g), random.Stddev(2)))}, nil
	})
	zero := tensor.New(tensor.WithShape(4), tensor.WithBacking(make([]float32, 4)))
	ref := random.NewSeedGenerator(42)
	for step := 0; step < 3; step++ {
		out, err := f.Call(zero)
		if err != nil {
			t.Fatal(err)
		}
		want := data(random.Normal([]int{4}, random.Generator(ref), random.Stddev(2)))
		if !equal(out[0].Data, want) {
			t.Errorf("replay %d drew %v, want %v", step, out[0].Data, want)
		}
	}
	if got := g.State().Numpy(); got[1] != 3 {
		t.Errorf("state after 3 replays %v, want counter 3", got)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"negative dim", func() error { _, err := random.Normal([]int{2, -1}); return err }(), "negative dimension"},
		{"bounds", func() error { _, err := random.Uniform([]int{2}, random.MinVal(1), random.MaxVal(1)); return err }(), "below maxval"},
		{"stddev", func() error { _, err := random.Normal([]int{2}, random.Stddev(-1)); return err }(), "non-negative"},
		{"nil generator", func() error { _, err := random.Normal([]int{2}, random.Generator(nil)); return err }(), "nil seed generator"},
		{"huge", func() error { _, err := random.Uniform([]int{1 << 20, 1 << 20}); return err }(), "2^31"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

// TestTwoDrawsPerStep: a traced step drawing twice from one generator
// draws what two eager draws do, and advances the state by two per replay
// (Keras advances the state at each draw).
func TestTwoDrawsPerStep(t *testing.T) {
	data := values(t)
	g := random.NewSeedGenerator(7)
	f := keras.NewFunction(func(in []ops.Tensor) ([]ops.Tensor, error) {
		tr := in[0].Trace()
		return []ops.Tensor{
			ops.Add(in[0], random.NormalIn(tr, ops.Shape{3}, random.Generator(g))),
			ops.Add(in[0], random.UniformIn(tr, ops.Shape{3}, random.Generator(g))),
		}, nil
	})
	zero := tensor.New(tensor.WithShape(3), tensor.WithBacking(make([]float32, 3)))
	ref := random.NewSeedGenerator(7)
	for step := 0; step < 2; step++ {
		out, err := f.Call(zero)
		if err != nil {
			t.Fatal(err)
		}
		n := data(random.Normal([]int{3}, random.Generator(ref)))
		u := data(random.Uniform([]int{3}, random.Generator(ref)))
		if !equal(out[0].Data, n) || !equal(out[1].Data, u) {
			t.Errorf("step %d drew %v, %v; eager draws %v, %v", step, out[0].Data, out[1].Data, n, u)
		}
	}
	if got := g.State().Numpy(); got[1] != 4 {
		t.Errorf("state after 2 steps of 2 draws %v, want counter 4", got)
	}
}

// TestSetRandomSeedResetsTheGlobalGenerator: unseeded draws follow
// layers.SetRandomSeed, as keras.utils.set_random_seed governs them.
func TestSetRandomSeedResetsTheGlobalGenerator(t *testing.T) {
	data := values(t)
	draws := func(seed uint64) [][]float32 {
		layers.SetRandomSeed(seed)
		return [][]float32{data(random.Normal([]int{4})), data(random.Uniform([]int{4}))}
	}
	a, b, c := draws(3), draws(3), draws(4)
	for i := range a {
		if !equal(a[i], b[i]) {
			t.Errorf("draw %d after SetRandomSeed(3) differs between runs", i)
		}
		if equal(a[i], c[i]) {
			t.Errorf("draw %d is the same after seeds 3 and 4", i)
		}
	}
	if equal(a[0][:2], a[1][:2]) {
		t.Error("two unseeded draws are equal")
	}
}
