package random

import (
	"fmt"
	"sync"

	"github.com/gokeras/gokeras/keras/layers"
	"github.com/gokeras/gokeras/ops"
	"gorgonia.org/tensor"
)

// SeedGenerator is keras.random.SeedGenerator: see [ops.SeedGenerator].
type SeedGenerator = ops.SeedGenerator

// NewSeedGenerator is keras.random.SeedGenerator(seed): its state
// variable, "seed_generator/seed_generator_state" (numbered like layer
// names), starts at [seed, 0].
func NewSeedGenerator(seed int64) *SeedGenerator {
	return ops.NewSeedGenerator(layers.UniqueName("seed_generator")+"/seed_generator_state", uint64(seed))
}

// Option sets an argument of a draw: [Mean], [Stddev], [MinVal],
// [MaxVal], [Seed], [Generator].
type Option func(*config)

type config struct {
	mean, stddev   float32
	minval, maxval float32
	seed           *int64
	gen            *SeedGenerator
	err            error
}

// Mean is the mean of [Normal] (default 0).
func Mean(m float64) Option { return func(c *config) { c.mean = float32(m) } }

// Stddev is the standard deviation of [Normal] (default 1).
func Stddev(s float64) Option {
	return func(c *config) {
		if s < 0 {
			c.err = fmt.Errorf("stddev must be non-negative, got %v", s)
		}
		c.stddev = float32(s)
	}
}

// MinVal is the lower bound of [Uniform] (default 0, included).
func MinVal(v float64) Option { return func(c *config) { c.minval = float32(v) } }

// MaxVal is the upper bound of [Uniform] (default 1, excluded).
func MaxVal(v float64) Option { return func(c *config) { c.maxval = float32(v) } }

// Seed makes a draw stateless: the same seed gives the same values at
// every call, as Keras' seed=<int>.
func Seed(s int64) Option { return func(c *config) { c.seed = &s; c.gen = nil } }

// Generator makes a draw come from gen, advancing its state, as Keras'
// seed=<SeedGenerator>.
func Generator(gen *SeedGenerator) Option {
	return func(c *config) {
		if gen == nil {
			c.err = fmt.Errorf("nil seed generator")
		}
		c.gen, c.seed = gen, nil
	}
}

var global struct {
	sync.Mutex
	gen        *SeedGenerator
	generation uint64 // of layers.SetRandomSeed when gen was made
}

// globalGenerator is Keras' global seed generator, made on first use
// with a seed from the global random state, and made afresh after
// layers.SetRandomSeed (keras.utils.set_random_seed resets it).
func globalGenerator() *SeedGenerator {
	global.Lock()
	defer global.Unlock()
	if gen := layers.RandomSeedGeneration(); global.gen == nil || global.generation != gen {
		global.gen = ops.NewSeedGenerator("global_seed_generator/seed_generator_state", layers.DrawSeed())
		global.generation = gen
	}
	return global.gen
}

func newConfig(fn string, opts []Option) (*config, error) {
	c := &config{stddev: 1, maxval: 1}
	for _, o := range opts {
		o(c)
	}
	if c.err != nil {
		return nil, fmt.Errorf("random: %s: %w", fn, c.err)
	}
	if fn == "Uniform" && !(c.minval < c.maxval) {
		return nil, fmt.Errorf("random: Uniform: minval %v must be below maxval %v", c.minval, c.maxval)
	}
	return c, nil
}

// generator is the generator of a draw: the one given, a fresh one for a
// stateless seed, or the global one.
func (c *config) generator() *SeedGenerator {
	switch {
	case c.gen != nil:
		return c.gen
	case c.seed != nil:
		return ops.NewSeedGenerator("seed/seed_generator_state", uint64(*c.seed))
	}
	return globalGenerator()
}

func checkShape(fn string, shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("random: %s: shape %v has a negative dimension", fn, shape)
		}
		if d > 0 && n > (1<<31)/d {
			return 0, fmt.Errorf("random: %s: shape %v has more than 2^31 elements", fn, shape)
		}
		n *= d
	}
	return n, nil
}

// Normal is keras.random.normal: a tensor of the given shape from a
// normal distribution (options [Mean], [Stddev], and a seed: [Seed],
// [Generator], or none for the global generator).
func Normal(shape []int, opts ...Option) (*tensor.Dense, error) {
	c, err := newConfig("Normal", opts)
	if err != nil {
		return nil, err
	}
	n, err := checkShape("Normal", shape)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	c.generator().FillNormal(out, c.mean, c.stddev)
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

// Uniform is keras.random.uniform: a tensor of the given shape with
// values uniform in [minval, maxval) (options [MinVal], [MaxVal], and a
// seed as for [Normal]).
func Uniform(shape []int, opts ...Option) (*tensor.Dense, error) {
	c, err := newConfig("Uniform", opts)
	if err != nil {
		return nil, err
	}
	n, err := checkShape("Uniform", shape)
	if err != nil {
		return nil, err
	}
	out := make([]float32, n)
	c.generator().FillUniform(out, c.minval, c.maxval)
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(out)), nil
}

// NormalIn is [Normal] in a traced step tr (a custom train step, a
// keras.Function): with a [Generator] (or the global one) the values are
// drawn afresh at every replay from the generator's state, which advances
// after each; with a [Seed] they are the same at every replay. Misuse
// panics with an *ops.Error, as every op; the step's boundary returns it.
func NormalIn(tr *ops.Trace, shape ops.Shape, opts ...Option) ops.Tensor {
	c, err := newConfig("Normal", opts)
	if err != nil {
		panic(&ops.Error{Op: "random.Normal", Msg: err.Error()})
	}
	if c.seed != nil {
		return statelessIn(tr, shape, func(out []float32) { c.generator().FillNormal(out, c.mean, c.stddev) })
	}
	return ops.RandomNormal(tr, shape, c.mean, c.stddev, c.generator())
}

// UniformIn is [Uniform] in a traced step; see [NormalIn].
func UniformIn(tr *ops.Trace, shape ops.Shape, opts ...Option) ops.Tensor {
	c, err := newConfig("Uniform", opts)
	if err != nil {
		panic(&ops.Error{Op: "random.Uniform", Msg: err.Error()})
	}
	if c.seed != nil {
		return statelessIn(tr, shape, func(out []float32) { c.generator().FillUniform(out, c.minval, c.maxval) })
	}
	return ops.RandomUniform(tr, shape, c.minval, c.maxval, c.generator())
}

// statelessIn adds the values of a stateless draw as a constant of tr.
func statelessIn(tr *ops.Trace, shape ops.Shape, fill func([]float32)) ops.Tensor {
	n, err := checkShape("draw", shape)
	if err != nil {
		panic(&ops.Error{Op: "random", Msg: err.Error()})
	}
	out := make([]float32, n)
	fill(out)
	return tr.Constant(shape, out)
}
